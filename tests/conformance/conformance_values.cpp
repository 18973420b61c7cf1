// Conformance, on every device of every backend: arguments as real code passes them. Structs by
// value past the old 16-byte cap, up to the device's parameter limit and refused past it; a
// struct of the wrong size refused by the kernel's own parameter size; a struct holding device
// addresses (Buffer::device_address) where the device gives them, a clear Error where not; a
// functor struct of device pointers launched through a CUDA template as the benchmarks write it.
#include <cmath>
#include <cstdint>
#include <vector>

#include "conformance.hpp"
#include "value_kernels.hpp"

using duet::Range;

namespace {

// 25 weights, a bias and a count: 108 bytes, laid out alike in C++, OpenCL C and CUDA.
struct Weights {
    float w[25];
    float bias;
    int n;
};
static_assert(sizeof(Weights) == 108);

// Two device addresses and a count (24 bytes: the pointers 8-byte aligned on every side).
struct Pair {
    std::uint64_t a;
    std::uint64_t b;
    int n;
};
static_assert(sizeof(Pair) == 24);

// The benchmark's closure as a struct: what its lambda captures, by value.
struct Triad {
    const float* a;
    const float* b;
    float* c;
    float s;
};

// Floats in the large struct: 200 (800 bytes) fit every OpenCL device's minimum of 1 KiB.
constexpr int large_floats = 200;
struct Large {
    float v[large_floats];
};
// One float past the limit of a device that allows 1024 bytes of parameters in all.
struct TooLarge {
    float v[257];
};

duet::BuildOptions values_program() {
    auto o = conformance::user_program(value_kernels::opencl_source, value_kernels::cuda_source,
                                       "conformance_values");
    o.defines = {{"LARGE", std::to_string(large_floats)}};
    o.instantiations = {value_kernels::for_each_triad};
    return o;
}

void check_weights(duet::Device& dev, duet::Queue& q, const duet::BuildOptions& o) {
    auto k = dev.load_kernel("weigh", o);
    const int n = 300;
    std::vector<float> x(n), y(n, -1.f);
    for (int i = 0; i < n; ++i)
        x[i] = 0.25f * float(i % 17) - 1.f;
    Weights w{};
    float total = 0;
    for (int j = 0; j < 25; ++j)
        total += (w.w[j] = 0.125f * float(j + 1));
    w.bias = 3.f;
    w.n = n;
    auto dx = dev.alloc<float>(n), dy = dev.alloc<float>(n);
    q.write(*dx, x);
    q.launch(*k, Range(duet::round_up(n, 64)).local(64), *dx, *dy, w);
    q.read(*dy, y);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += std::abs(y[i] - (3.f + total * x[i])) > 1e-3f * (1.f + std::abs(y[i]));
    CHECK(wrong == 0);

    // A value of the wrong size is refused before the kernel reads garbage: by the kernel's
    // own parameter size (CUDA), or by the driver's clSetKernelArg (OpenCL's argument
    // information names a struct's type, not its size: Oclgrind checks, PoCL 3.1 does not).
    struct Short {
        float w[24];
    } s{};
    bool refused = false;
    try {
        q.launch(*k, Range(64).local(64), *dx, *dy, s);
        q.finish();
    } catch (const duet::Error& e) {
        refused = true;
        CHECK(e.kind() == duet::ErrorKind::usage);
        CHECK(conformance::contains(e.what(), "argument 2"));
    }
    if (dev.info().kernel_language == duet::KernelLanguage::cuda)
        CHECK(refused);
    else if (!refused)
        MESSAGE(dev.label() << ": the driver took a 96-byte value for a 108-byte struct "
                               "parameter (it does not check struct sizes)");
}

void check_large(duet::Device& dev, duet::Queue& q, const duet::BuildOptions& o) {
    const std::size_t limit = dev.info().max_parameter_bytes;
    MESSAGE("max_parameter_bytes: " << limit);
    CHECK(limit >= 1024); // OpenCL's minimum; CUDA's 4 KiB or 32764 bytes
    auto k = dev.load_kernel("large_sum", o);
    Large l{};
    float want = 0;
    for (int j = 0; j < large_floats; ++j)
        want += (l.v[j] = float(j % 7));
    auto dy = dev.alloc<float>(1);
    q.launch(*k, Range(64).local(64), *dy, l);
    std::vector<float> y(1);
    q.read(*dy, y);
    CHECK(y[0] == want);
    if (limit > 0 && limit < sizeof(TooLarge) + sizeof(void*)) {
        const TooLarge t{};
        CHECK_THROWS_WITH_AS(q.launch(*k, Range(64).local(64), *dy, t),
                             doctest::Contains("max_parameter_bytes"), duet::Error);
    }
}

void check_pair(duet::Device& dev, duet::Queue& q, const duet::BuildOptions& o) {
    const int n = 500;
    auto da = dev.alloc<float>(n), db = dev.alloc<float>(n);
    if (!dev.info().device_addresses) {
        MESSAGE("no device addresses on " << dev.label() << ": the Error is checked instead");
        CHECK_THROWS_WITH_AS((void)da->device_address(),
                             doctest::Contains("DeviceInfo::device_addresses"), duet::Error);
        // What the device lacks (OpenCL: shared virtual memory), not only that it lacks it.
        if (dev.info().kernel_language == duet::KernelLanguage::opencl_c)
            CHECK_THROWS_WITH_AS((void)da->device_address(), doctest::Contains("lacks"),
                                 duet::Error);
        return;
    }
    std::vector<float> a(n), b(n, 0.f);
    for (int i = 0; i < n; ++i)
        a[i] = float(i) - 7.5f;
    q.write(*da, a);
    auto k = dev.load_kernel("pair_twice", o);
    const Pair p{da->device_address(), db->device_address(), n};
    q.launch(*k, Range(duet::round_up(n, 64)).local(64), p);
    q.read(*db, b);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += b[i] != 2.f * a[i];
    CHECK(wrong == 0);
}

// Twice `a` into `b` through a Pair of their addresses; true where every float is right.
bool pair_twice(duet::Device& dev, duet::Queue& q, duet::Kernel& k, duet::Buffer& a,
                duet::Buffer& b, int n) {
    std::vector<float> x(n), y(n, 0.f);
    for (int i = 0; i < n; ++i)
        x[i] = 0.5f * float(i) + 1.f;
    q.write_bytes(a, x.data(), n * sizeof(float));
    q.fill(b, 0.f, std::size_t(n));
    const Pair p{a.device_address(), b.device_address(), n};
    q.launch(k, Range(duet::round_up(n, 64)).local(64), p);
    q.read_bytes(b, y.data(), n * sizeof(float));
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += y[i] != 2.f * x[i];
    if (wrong)
        MESSAGE(dev.label() << ": " << wrong << " of " << n << " floats wrong");
    return wrong == 0;
}

// Addresses whose buffers are gone (OpenCL: the SVM allocations a launch lists to the kernel)
// leave the next launches right; a view's address is its first byte, parent's plus the offset.
void check_addresses_come_and_go(duet::Device& dev, duet::Queue& q, const duet::BuildOptions& o) {
    if (!dev.info().device_addresses)
        return;
    auto k = dev.load_kernel("pair_twice", o);
    const int n = 300;
    auto da = dev.alloc<float>(n), db = dev.alloc<float>(n);
    {
        auto gone = dev.alloc<float>(n);
        CHECK(gone->device_address() != 0);
        CHECK(pair_twice(dev, q, *k, *da, *db, n));
        q.finish();
    }
    CHECK(pair_twice(dev, q, *k, *da, *db, n));
    auto other = dev.alloc<float>(n); // swapped in after a launch that listed da and db
    CHECK(pair_twice(dev, q, *k, *other, *db, n));
    db.reset(); // the kernel's list loses one, keeps the others
    auto dc = dev.alloc<float>(n);
    CHECK(pair_twice(dev, q, *k, *da, *dc, n));

    const std::size_t offset = dev.view_alignment();
    if (offset % sizeof(float) != 0 || offset + n * sizeof(float) > 4 * n * sizeof(float))
        return;
    auto big = dev.alloc<float>(4 * n);
    std::unique_ptr<duet::Buffer> view;
    try {
        view = dev.view(*big, offset, n * sizeof(float));
    } catch (const duet::Error& e) {
        MESSAGE(dev.label() << ": no views (" << e.what() << ")");
        return;
    }
    CHECK(view->device_address() == big->device_address() + offset);
    CHECK(pair_twice(dev, q, *k, *da, *view, n));
}

// The benchmark pattern: a template kernel over a closure of device pointers (CUDA only: OpenCL
// C has no templates or closures).
void check_closure(duet::Device& dev, duet::Queue& q, const duet::BuildOptions& o) {
    if (dev.info().kernel_language != duet::KernelLanguage::cuda || !dev.info().device_addresses)
        return;
    const int n = 1000;
    auto da = dev.alloc<float>(n), db = dev.alloc<float>(n), dc = dev.alloc<float>(n);
    std::vector<float> a(n), b(n), c(n, 0.f);
    for (int i = 0; i < n; ++i)
        a[i] = 0.5f * float(i), b[i] = 1.f - float(i);
    q.write(*da, a);
    q.write(*db, b);
    auto k = dev.load_kernel(value_kernels::for_each_triad, o);
    const Triad f{da->device_pointer<float>(), db->device_pointer<float>(),
                  dc->device_pointer<float>(), 3.f};
    q.launch(*k, Range(256).local(128), f, n);
    q.read(*dc, c);
    int wrong = 0;
    for (int i = 0; i < n; ++i)
        wrong += std::abs(c[i] - (a[i] + 3.f * b[i])) > 1e-3f * (1.f + std::abs(c[i]));
    CHECK(wrong == 0);
}

} // namespace

TEST_CASE("conformance: structs and closures by value, device addresses inside them") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            MESSAGE("device: " << dev->label());
            const auto o = values_program();
            if (!conformance::load_or_skip(*dev, "weigh", o))
                continue;
            auto q = dev->create_queue();
            check_weights(*dev, *q, o);
            check_large(*dev, *q, o);
            check_pair(*dev, *q, o);
            check_addresses_come_and_go(*dev, *q, o);
            check_closure(*dev, *q, o);
        }
    }
}
