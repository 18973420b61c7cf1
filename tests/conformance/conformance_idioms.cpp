// Conformance, on every device of every backend: kernels written the way people write CUDA C++
// and OpenCL C (tests/idiom_kernels.hpp), loaded by their own names and launched through the
// public API with no wrapper. CUDA: template instantiations and namespaced kernels by their C++
// names, one NVRTC build for all the instantiations listed. OpenCL: `kernel void`, restrict,
// -DTYPE and compiler options of the app's own.
#include <cmath>
#include <vector>

#include "conformance.hpp"
#include "idiom_kernels.hpp"

using duet::Range;

namespace {

duet::BuildOptions idiom_options() {
    auto o = conformance::user_program(idioms::opencl_source, idioms::cuda_source, "idioms");
    o.defines = {{"TYPE", "float"}};
    o.opencl_options = {"-cl-std=CL1.2", "-cl-denorms-are-zero"};
    o.cuda_options = {"-lineinfo"};
    o.instantiations = {idioms::triad_float, idioms::triad_double, idioms::dot_float,
                        idioms::map_scale};
    return o;
}

bool cuda(const duet::Device& dev) {
    return dev.info().kernel_language == duet::KernelLanguage::cuda;
}

// a = b + s * c over n floats (a grid-stride loop: fewer work-items than elements).
void check_triad(duet::Device& dev, duet::Queue& q, duet::Kernel& k) {
    const int n = 1000;
    std::vector<float> a(n, -1.f), b(n), c(n);
    for (int i = 0; i < n; ++i)
        b[i] = 0.5f * i, c[i] = 2.f - i;
    auto da = dev.alloc<float>(n), db = dev.alloc<float>(n), dc = dev.alloc<float>(n);
    q.write(*db, b);
    q.write(*dc, c);
    q.launch(k, Range(256).local(64), *da, *db, *dc, 3.f, n);
    q.read(*da, a);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += std::fabs(a[i] - (b[i] + 3.f * c[i])) > 1e-3f * (1.f + std::fabs(b[i]));
    CHECK(wrong == 0);
}

} // namespace

TEST_CASE("conformance: kernels as people write them, loaded by their own names") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            const auto opts = idiom_options();
            auto triad =
                conformance::load_or_skip(*dev, cuda(*dev) ? idioms::triad_float : "triad", opts);
            if (!triad)
                continue;
            check_triad(*dev, *q, *triad);

            // A block-sized dot product: CUDA's block size is a template argument and its
            // shared array static; OpenCL takes the block's memory as an argument.
            const int n = 4096, groups = 8, block = 128;
            std::vector<float> a(n), b(n), partial(groups, -1.f);
            double expected = 0;
            for (int i = 0; i < n; ++i) {
                a[i] = static_cast<float>(i % 7), b[i] = static_cast<float>(i % 5) - 1.f;
                expected += double(a[i]) * b[i];
            }
            auto da = dev->alloc<float>(n), db = dev->alloc<float>(n);
            auto dp = dev->alloc<float>(groups);
            q->write(*da, a);
            q->write(*db, b);
            auto dot = dev->load_kernel(cuda(*dev) ? idioms::dot_float : "dot_partial", opts);
            if (cuda(*dev)) {
                CHECK(dot->provenance() == duet::Provenance::memory_cache); // one build for all
                q->launch(*dot, Range(groups * block).local(block), *da, *db, *dp, n);
            } else {
                q->launch(*dot, Range(groups * block).local(block), *da, *db, *dp,
                          duet::local(block * sizeof(float)), n);
            }
            q->read(*dp, partial);
            double sum = 0;
            for (float p : partial)
                sum += p;
            CHECK(sum == doctest::Approx(expected));

            auto iota = dev->load_kernel("fill_iota", opts); // not extern "C" in CUDA
            std::vector<int> out(100, 0);
            auto dout = dev->alloc<int>(out.size());
            q->launch(*iota, Range(128).local(32), *dout, 7, 100);
            q->read(*dout, out);
            CHECK(out[0] == 7);
            CHECK(out[99] == 106);
        }
    }
}

TEST_CASE("conformance: CUDA functors and double instantiations by name") {
    for (auto* dev : conformance::every_device()) {
        if (!cuda(*dev))
            continue;
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            const auto opts = idiom_options();
            auto map = conformance::load_or_skip(*dev, idioms::map_scale, opts);
            if (!map)
                continue;
            const int n = 500;
            std::vector<float> in(n, 2.f), out(n, 0.f);
            auto din = dev->alloc<float>(n), dout = dev->alloc<float>(n);
            q->write(*din, in);
            q->launch(*map, Range(512).local(128), *din, *dout, idioms::ScaleArg{2.5f}, n);
            q->read(*dout, out);
            CHECK(out[0] == 5.f);
            CHECK(out[n - 1] == 5.f);

            auto triad = dev->load_kernel(idioms::triad_double, opts);
            std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
            auto da = dev->alloc<double>(n), db = dev->alloc<double>(n), dc = dev->alloc<double>(n);
            q->write(*db, b);
            q->write(*dc, c);
            q->launch(*triad, Range(512).local(128), *da, *db, *dc, 0.25, n);
            q->read(*da, a);
            CHECK(a[0] == 1.5);
            CHECK(a[n - 1] == 1.5);
        }
    }
}

TEST_CASE("conformance: compiler options that write files or load plugins are refused") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            for (const char* bad : {"-o", "--output-dir=/tmp", "-save-temps", "-Xclang",
                                    "-load=/tmp/p.so", "--fdevice-time-trace=t.json",
                                    "-Xptxas=--output-file,x", "-arch=sm_80", "two words"}) {
                INFO(bad);
                auto o = idiom_options();
                o.opencl_options = {bad};
                try {
                    dev->load_kernel("fill_iota", o);
                    FAIL("accepted");
                } catch (const duet::Error& e) {
                    CHECK(e.kind() == duet::ErrorKind::usage);
                    CHECK(conformance::contains(e.what(), "opencl_options"));
                }
            }
        }
    }
}
