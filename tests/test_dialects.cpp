// Kernel dialects as data (<duet/dialect.hpp>): the table's rows, the scanners' kernels and
// parameter names, and one host program for kernels written separately per language (their
// own names and parameter orders, bound by parameter name) on every device found; a text with
// no route to a device is an Error that names why.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "test_util.hpp"

namespace {

// The same computation written twice, as two languages' programmers would: other names, other
// parameter orders (sizes first in one, buffers first in the other).
const char* scale_cl = R"(
__kernel void scale_cl(__global float* restrict out, __global const float* in, const float k,
                       const int n) {
    const int i = get_global_id(0);
    if (i < n)
        out[i] = k * in[i] + 1.0f;
}
)";
const char* scale_cu = R"(
extern "C" __global__ void __launch_bounds__(256) scaleKernel(int n, float k,
                                                              const float* __restrict__ in,
                                                              float* out) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = k * in[i] + 1.0f;
}
)";

duet::BuildOptions both_languages() {
    duet::BuildOptions o;
    o.sources.add("opencl-c", scale_cl, "scale_cl", "scale.cl")
        .add("cuda-c++", scale_cu, "scaleKernel", "scale.cu");
    return o;
}

std::string message_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const duet::Error& e) {
        CHECK(e.kind() == duet::ErrorKind::usage);
        return e.what();
    }
    FAIL("no Error");
    return {};
}

bool has(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

// `kernel` of the one-text `file` built with `define` set to the largest power of two up to
// `most` that the compiled kernel runs with in one group on `dev`; that size in `group`.
std::unique_ptr<duet::Kernel> load_fitting(duet::Device& dev, const std::string& file,
                                           const std::string& kernel, const std::string& define,
                                           unsigned most, unsigned& group) {
    std::unique_ptr<duet::Kernel> k;
    group = 2 * most;
    do {
        group /= 2;
        duet::BuildOptions o;
        o.sources.add_file(std::string(DUET_SOURCE_DIR) + "/tests/data/one_text/" + file);
        o.defines = {{define, std::to_string(group)}};
        k = dev.load_kernel(kernel, o);
    } while (group > 1 && k->max_work_group_size() < group);
    return k;
}

} // namespace

TEST_CASE("dialects: the table names each dialect, its files and its routes") {
    REQUIRE(duet::find_dialect("opencl-c"));
    REQUIRE(duet::find_dialect("cuda-c++"));
    CHECK(duet::dialect_of(duet::KernelLanguage::cuda).name == "cuda-c++");
    CHECK(duet::dialect_of_file("dir/a.clh")->name == "opencl-c");
    CHECK(duet::dialect_of_file("b.cu")->name == "cuda-c++");
    CHECK(duet::dialect_of_file("c.ptx")->name == "ptx");
    CHECK(duet::dialect_of_file("notes.txt") == nullptr);
    // CUDA C++ reaches OpenCL devices as SPIR-V where they take IL, else as PTX (NVIDIA's).
    std::vector<std::string> to_opencl;
    for (const auto& r : duet::dialect("cuda-c++").routes)
        if (r.backend == "opencl")
            to_opencl.push_back(r.translation);
    CHECK(to_opencl == std::vector<std::string>{"cuda-c++-via-spir-v", "cuda-c++-via-ptx"});
    const auto& ptx_routes = duet::dialect("ptx").routes;
    REQUIRE(ptx_routes.size() == 2);
    CHECK((ptx_routes[0].backend == "cuda" && ptx_routes[0].translation.empty()));
    CHECK((ptx_routes[1].backend == "opencl" && has(ptx_routes[1].needs, "NVIDIA")));
    CHECK(has(message_of([] { duet::dialect("fortran"); }), "opencl-c"));
    for (const auto& d : duet::dialects()) {
        INFO(d.name);
        CHECK(!d.extensions.empty());
        for (const auto& r : d.routes)
            CHECK((r.backend == "opencl" || r.backend == "cuda"));
    }
    duet::KernelSources s;
    s.add("opencl-c", "x");
    CHECK(has(message_of([&] { s.add("opencl-c", "y"); }), "two OpenCL C texts"));
    s.cuda = "z"; // the deprecated field is the cuda-c++ text
    CHECK(s.all().size() == 2);
    CHECK(has(message_of([&] { s.add("cuda-c++", "w"); }), "two CUDA C++ texts"));
    CHECK(has(message_of([] { duet::KernelSources().add_file("k.txt"); }), ".cu (CUDA C++)"));
}

TEST_CASE("dialects: the scanners read each kernel's parameter names in both languages") {
    const auto cl = duet::scan_kernels(scale_cl, duet::dialect("opencl-c"));
    REQUIRE(cl.size() == 1);
    CHECK(cl[0].parameter_names == std::vector<std::string>{"out", "in", "k", "n"});
    CHECK(cl[0].parameter_types[1] == "__global const float*");
    const auto cu = duet::scan_kernels(scale_cu, duet::dialect("cuda-c++"));
    REQUIRE(cu.size() == 1);
    CHECK(cu[0].name == "scaleKernel");
    CHECK(cu[0].parameter_names == std::vector<std::string>{"n", "k", "in", "out"});
    CHECK(cu[0].signature() == "scaleKernel(int n, float k, const float* __restrict__ in, "
                               "float* out)");
    const auto t = duet::scan_kernels("template <int B, class T> __global__ void t(Pair<int, 3> p, "
                                      "T v[4], float = 1.0f) {}\n__global__ void none(void) {}",
                                      duet::dialect("cuda-c++"));
    REQUIRE(t.size() == 2);
    CHECK(t[0].parameter_names.empty());
    CHECK(t[1].parameter_names == std::vector<std::string>{"p", "v", ""});
    CHECK(t[1].parameter_types[1] == "T[4]");
    const auto ptx =
        duet::scan_kernels(".visible .entry vec_add(\n.param .u64 a)", duet::dialect("ptx"));
    REQUIRE(ptx.size() == 1);
    CHECK(ptx[0].name == "vec_add");
}

TEST_CASE("dialects: one host program binds separately written kernels by parameter name") {
    constexpr int n = 1000;
    std::vector<float> in(n), out(n, -1.0f);
    for (int i = 0; i < n; ++i)
        in[i] = 0.25f * static_cast<float>(i % 97) - 3.0f;
    for (const char* backend : {"opencl", "cuda"})
        for (auto* dev : duet_test::devices_of(backend)) {
            SUBCASE(dev->label().c_str()) {
                MESSAGE("on " << dev->label());
                auto q = dev->create_queue();
                auto a = dev->alloc<float>(n), c = dev->alloc<float>(n);
                q->write(*a, in);
                auto k = dev->load_kernel("scale", both_languages());
                CHECK(k->declaration().parameter_names.size() == 4);
                // No language branch: the same call, whichever text the device built.
                q->launch_named(*k, duet::Range{n},
                                {duet::arg("in", *a), duet::arg("n", n), duet::arg("k", 2.5f),
                                 duet::arg("out", *c)});
                q->read(*c, out);
                q->finish();
                for (int i = 0; i < n; ++i)
                    REQUIRE(out[i] == doctest::Approx(2.5f * in[i] + 1.0f));

                const std::string sig = k->declaration().signature();
                const auto launch = [&](std::vector<duet::NamedArg> args) {
                    return message_of([&] { q->launch_named(*k, duet::Range{n}, args); });
                };
                auto e = launch({duet::arg("in", *a), duet::arg("n", n), duet::arg("scale", 2.5f),
                                 duet::arg("out", *c)});
                CHECK(has(e, "no parameter named 'scale'"));
                CHECK(has(e, sig));
                e = launch({duet::arg("in", *a), duet::arg("n", n), duet::arg("out", *c)});
                CHECK(has(e, "'k' has no argument"));
                e = launch({duet::arg("in", *a), duet::arg("n", n), duet::arg("k", 2.5f),
                            duet::arg("out", *c), duet::arg("n", n)});
                CHECK(has(e, "'n' is given twice"));
                // A type that does not fit: a buffer where the scale factor goes.
                e = launch({duet::arg("in", *a), duet::arg("n", n), duet::arg("k", *a),
                            duet::arg("out", *c)});
                CHECK(has(e, sig));
            }
        }
}

TEST_CASE("one kernel text: a kernel written only in CUDA C++ runs where a route exists") {
    constexpr int blocks = 5;
    for (const char* backend : {"opencl", "cuda"})
        for (auto* dev : duet_test::devices_of(backend)) {
            SUBCASE(dev->label().c_str()) {
                std::unique_ptr<duet::Kernel> k;
                unsigned tile = 0;
                try {
                    k = load_fitting(*dev, "tile_sums.cu", "tile_sums", "TILE", 128, tile);
                } catch (const duet::Error& e) {
                    // No route: the message names the text and why (no SPIR-V on this device).
                    MESSAGE("on " << dev->label() << ": " << std::string(e.what()));
                    CHECK(e.kind() == duet::ErrorKind::usage);
                    CHECK(has(e.what(), "CUDA C++ (" + std::string(DUET_SOURCE_DIR)));
                    CHECK(has(e.what(), "SPIR-V"));
                    // Not NVIDIA's OpenCL, or it is and clang or libclc is missing.
                    CHECK((has(e.what(), "takes no PTX") || has(e.what(), "Debian:")));
                    continue;
                }
                MESSAGE("on " << dev->label() << ", blocks of " << tile << ", built as "
                              << k->build_options());
                const int n = blocks * static_cast<int>(tile) - static_cast<int>(tile) / 2 - 1;
                std::vector<float> in(blocks * tile), sums(blocks);
                for (int i = 0; i < n; ++i)
                    in[i] = static_cast<float>((i * 13) % 9) - 4.0f;
                auto q = dev->create_queue();
                auto a = dev->alloc<float>(in.size()), s = dev->alloc<float>(blocks);
                q->write(*a, in);
                q->launch_named(*k, duet::Range{blocks * tile}.local(tile),
                                {duet::arg("sums", *s), duet::arg("in", *a), duet::arg("k", 0.5f),
                                 duet::arg("n", n)});
                q->read(*s, sums);
                q->finish();
                for (int b = 0; b < blocks; ++b) {
                    double want = 0;
                    for (int i = b * static_cast<int>(tile);
                         i < std::min((b + 1) * static_cast<int>(tile), n); ++i)
                        want += 0.5 * in[i];
                    CHECK(sums[b] == doctest::Approx(want));
                }
            }
        }
}

TEST_CASE("one kernel text: a kernel written only in OpenCL C runs on every device") {
    constexpr unsigned groups = 7, n4 = 64;
    std::vector<float> data(4 * n4);
    for (const char* backend : {"opencl", "cuda"})
        for (auto* dev : duet_test::devices_of(backend)) {
            SUBCASE(dev->label().c_str()) {
                unsigned group = 0;
                auto k = load_fitting(*dev, "group_sums.cl", "group_sums", "GROUP", 256, group);
                MESSAGE("on " << dev->label() << ", groups of " << group);
                const unsigned n = groups * group - group / 3;
                std::vector<float> in(groups * group), sums(groups);
                for (unsigned i = 0; i < in.size(); ++i)
                    in[i] = static_cast<float>((i * 37) % 11) - 5.0f;
                auto q = dev->create_queue();
                auto a = dev->alloc<float>(in.size()), s = dev->alloc<float>(groups),
                     v = dev->alloc<float>(data.size());
                q->write(*a, in);
                q->launch_named(*k, duet::Range{groups * group}.local(group),
                                {duet::arg("in", *a), duet::arg("sums", *s), duet::arg("n", n)});
                q->read(*s, sums);
                for (unsigned g = 0; g < groups; ++g) {
                    double want = 0;
                    for (unsigned i = g * group; i < std::min((g + 1) * group, n); ++i)
                        want += in[i];
                    CHECK(sums[g] == doctest::Approx(want));
                }
                duet::BuildOptions o;
                o.sources.add_file(std::string(DUET_SOURCE_DIR) +
                                   "/tests/data/one_text/group_sums.cl");
                q->write(*v, std::vector<float>(data.size(), 1.5f));
                auto k4 = dev->load_kernel("scale4", o);
                q->launch(*k4, duet::Range{n4}, *v, 2.0f, n4);
                q->read(*v, data);
                q->finish();
                for (float x : data)
                    REQUIRE(x == 3.0f);
            }
        }
}

TEST_CASE("one kernel text: an app's PTX runs on CUDA and NVIDIA's OpenCL, elsewhere says why") {
    constexpr int n = 1000;
    std::vector<float> in(n), out(n, -1.0f);
    for (int i = 0; i < n; ++i)
        in[i] = 0.5f * static_cast<float>(i % 13) - 2.0f;
    for (const char* backend : {"opencl", "cuda"})
        for (auto* dev : duet_test::devices_of(backend)) {
            SUBCASE(dev->label().c_str()) {
                duet::BuildOptions o;
                o.sources.add_file(std::string(DUET_SOURCE_DIR) + "/tests/data/one_text/scale.ptx");
                std::unique_ptr<duet::Kernel> k;
                try {
                    k = dev->load_kernel("scale_ptx", o);
                } catch (const duet::Error& e) {
                    MESSAGE("on " << dev->label() << ": " << std::string(e.what()));
                    CHECK(e.kind() == duet::ErrorKind::usage);
                    CHECK(dev->info().backend == "opencl"); // the CUDA driver takes PTX
                    CHECK(has(e.what(), "takes no PTX (only NVIDIA's OpenCL"));
                    continue;
                }
                MESSAGE("on " << dev->label() << ": built as " << k->build_options());
                auto q = dev->create_queue();
                auto a = dev->alloc<float>(n), c = dev->alloc<float>(n);
                q->write(*a, in);
                q->launch(*k, duet::Range{1024}.local(128), *c, *a, 2.0f, n);
                q->read(*c, out);
                q->finish();
                for (int i = 0; i < n; ++i)
                    REQUIRE(out[i] == doctest::Approx(2.0f * in[i] + 1.0f));
            }
        }
}

TEST_CASE("one kernel text: own_dialect builds Duet's own kernel from one dialect's file") {
    for (const char* backend : {"opencl", "cuda"})
        for (auto* dev : duet_test::devices_of(backend)) {
            SUBCASE(dev->label().c_str()) {
                duet::BuildOptions o;
                o.own_dialect = "opencl-c"; // kernels_cl/vecadd.cl on every device
                auto k = dev->load_kernel("vecadd_naive", o);
                MESSAGE("on " << dev->label() << ": built as " << k->build_options());
                constexpr int n = 1000;
                std::vector<float> a(n), b(n), c(n);
                for (int i = 0; i < n; ++i)
                    a[i] = static_cast<float>(i), b[i] = 0.5f * static_cast<float>(i % 7);
                auto q = dev->create_queue();
                auto da = dev->alloc<float>(n), db = dev->alloc<float>(n),
                     dc = dev->alloc<float>(n);
                q->write(*da, a);
                q->write(*db, b);
                q->launch(*k, duet::Range{1024}.local(256), *da, *db, *dc, n);
                q->read(*dc, c);
                q->finish();
                for (int i = 0; i < n; ++i)
                    REQUIRE(c[i] == a[i] + b[i]);
                // A dialect Duet's kernels are not written in, and a kernel the file lacks.
                o.own_dialect = "ptx";
                CHECK(has(message_of([&] { dev->load_kernel("vecadd_naive", o); }),
                          "own_dialect ptx"));
                o.own_dialect = "opencl-c";
                try {
                    dev->load_kernel("no_such_kernel_here", o);
                    FAIL("no Error");
                } catch (const duet::Error& e) {
                    CHECK(e.kind() == duet::ErrorKind::not_found);
                    CHECK(has(e.what(), "no_such_kernel_here"));
                }
            }
        }
}
