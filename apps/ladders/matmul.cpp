// matmul: C = A * B, float32, row-major, A M x K and B K x N: the optimisation ladder of every
// GPU course, from one output per work-item to double-buffered register-blocked tiles. Each
// variant is a kernel in kernels_cl/matmul_STEP.cl and kernels_cu/matmul_STEP.cu (one file per
// step); the comments there explain each step. --size is "n" (square) or "MxNxK"; --local shapes
// the naive kernel's work-group (128x1 against 1x128 shows coalescing); the other kernels'
// work-groups follow from their tiles.
//
// Checking: every checked entry of C is compared with a double-precision CPU dot product, against
// a bound of its own (entry_bound, matmul_reference.cpp); max_error is the largest |c - ref| /
// bound over the checked entries ("of bound": the run passes when it is at most 1).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <thread>

#include "auto_size.hpp"
#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "matmul.hpp"
#include "matmul_reference.hpp"
#include "native/native.hpp"
#include "native/reference.hpp"
#include "problem.hpp"

namespace duet::apps {

namespace {

using namespace matmul_ref; // entry bounds, the reference's dot products, the tf32 step's error

// Above this many multiply-adds, --verify full checks a sample: the CPU reference of every entry
// would take longer than the GPU runs it checks (2^31 is about 1290^3, a second or two on 2 cores).
constexpr double full_check_limit = 2147483648.0;

class Matmul final : public App {
  public:
    std::string name() const override { return "matmul"; }
    std::string description() const override {
        return "C = A*B, float32 row-major, M x K by K x N (compute bound); size n or MxNxK";
    }
    const std::vector<Step>& steps() const override { return matmul_steps(); }
    // 384^3: the whole ladder, naive included, in a few seconds on 2 CPU cores through PoCL.
    std::vector<std::size_t> default_size() const override { return {384}; }
    // A, B, C: 3 n^2 floats; 2 n^3 flops; multiples of 1024 up to 8192 on a GPU, 512 on a CPU
    // device (naive takes seconds there beyond).
    SizeModel size_model() const override {
        return {.app = "matmul",
                .dims = 3,
                .bytes_per_item = 4,
                .flops_per_item = 2,
                .granule = 1024,
                .gpu_cap = 8192,
                .cpu_cap = 512,
                .sim_size = 32,
                .index_cap = 46336};
    }
    // runapp tune: a size that fills a GPU; on a CPU every point is a build of seconds.
    std::vector<std::size_t> tune_size(const DeviceInfo& info) const override {
        return {is_gpu(info) ? 4096u : 512u};
    }

    Result run(Device& dev, const Variant& v, const RunConfig& cfg) const override {
        StepRun s(dev, *this, v, cfg);
        Result& r = s.r;
        const auto [M, N, K] = problem_size(cfg, dev.info());
        Result early; // an explicit --verify full too big to check is refused before anything runs
        verify_level(cfg, double(M) * N * K, full_check_limit, early, name());
        // A, B and C on the host (and a CPU device's copies) together, before anything is made.
        check_host_fits(M * K + K * N + M * N, sizeof(float) * (is_cpu(dev.info()) ? 2 : 1),
                        "matmul's A, B and C (and a CPU device's copies)");
        check_device_alloc(dev.info(), double(std::max({M * K, K * N, M * N})) * sizeof(float),
                           "matmul's largest matrix");
        r.size_label = dims_label({M, N, K});
        BuildOptions opts;
        for (const auto& d : cfg.defines) // best's plan (matmul.hpp): the host's, not the kernel's
            if (!best_host_define(d.first))
                opts.defines.push_back(d);
        // The step's own work (its record's hooks, MatmulHooks): its defines, launch and check.
        MatmulProblem p{dev, cfg, s, M, N, K, int(M), int(N), int(K)};
        const auto* hooks = hooks_of<MatmulHooks>(v);
        const auto work = hooks && hooks->begin ? hooks->begin(p) : std::make_unique<MatmulWork>(p);
        if (work->needs_apply())
            check_needs(v, dev.info());
        const auto shapes = shapes_of(v, cfg, dev.info()); // matmul_steps.cpp
        work->prepare(opts, shapes);
        add_step_defines(name(), v, opts, dev.info(), cfg); // and the profile's
        // Launch geometry: the global size covers C in whole work-groups; the kernels check
        // the edges themselves. The shape is the variant's own where the device allows it, else
        // the largest smaller one that fits (matmul_steps.cpp); a step whose work-group is the
        // user's (naive) takes --local as given.
        const bool user_local = hooks && hooks->user_local;
        if (user_local && cfg.local) { // the user's shape or a clear error, never another one
            Kernel& k = s.build_as_given(opts);
            s.shape() = shapes.front();
            s.shape().local = pick_local(cfg, *cfg.local, k);
        } else {
            s.build(opts, shapes);
        }
        const Shape& g = s.shape();

        const auto a_in = shared_floats(M * K, cfg.seed), b_in = shared_floats(K * N, cfg.seed + 1);
        const auto &a = *a_in, &b = *b_in;
        auto da = s.upload(a_in), db = s.upload(b_in);
        auto dc = s.output(M * N * sizeof(float));
        const auto local = g.local;
        if (cfg.local && !user_local && *cfg.local != local)
            s.note("--local applies to the naive kernel; " + v.name +
                   "'s work-group is fixed by its tile");
        const Range range =
            Range((N + g.cols - 1) / g.cols * local[0], (M + g.rows - 1) / g.rows * local[1])
                .local(local[0], local[1]);
        r.local_label = std::to_string(local[0]) + "x" + std::to_string(local[1]);
        s.time(work->launch(s.kernel(), g, range, opts, *da, *db, *dc));
        const auto c = s.download<float>(*dc, M * N);
        r.flops = 2.0 * double(M) * double(N) * double(K);
        r.bytes = 4.0 * (double(M) * K + double(K) * N + double(M) * N);

        r.error_kind = "of bound";
        r.tolerance = 1.0;
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            work->check(r, c, *reference(a, b, M, N, K, cfg, r.note), a, b);
            s.check_guards();
        } else {
            work->unverified(r);
        }
        return s.finish(size_model());
    }

    Result run_native(const RunConfig& cfg, const std::string& variant) const override {
        const auto t0 = std::chrono::steady_clock::now();
        const auto& dims = cfg.size;
        if (dims.size() != 1 && dims.size() != 3)
            throw Error::usage("matmul takes one size (n) or three (MxNxK), got " +
                               dims_label(dims));
        const std::size_t M = dims[0], N = dims.size() == 3 ? dims[1] : dims[0],
                          K = dims.size() == 3 ? dims[2] : dims[0];
        Result r; // the same refusal of a full check too big as a device row's
        verify_level(cfg, double(M) * N * K, full_check_limit, r, name());
        check_host_fits(M * K + K * N + M * N, sizeof(float), "matmul's A, B and C");
        r = native_result(name(), native_variant(variant), {M, N, K}, cfg, native::sgemm_library());
        if (const auto w = native::sgemm_warning(); !w.empty())
            r.note = w;
        const auto a_in = shared_floats(M * K, cfg.seed), b_in = shared_floats(K * N, cfg.seed + 1);
        const auto &a = *a_in, &b = *b_in;
        std::vector<float> c(M * N);
        r.kernel_ms = r.host_ms =
            time_on_host(cfg, [&] { native::sgemm(a.data(), b.data(), c.data(), M, N, K); });
        r.flops = 2.0 * double(M) * double(N) * double(K);
        r.bytes = 4.0 * (double(M) * K + double(K) * N + double(M) * N);
        r.error_kind = "of bound"; // the device rows' check
        r.tolerance = 1.0;
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            const auto ref = reference(a, b, M, N, K, cfg, r.note);
            compare_outputs(r, c, ref->indices, ref->value, &ref->bound);
            if ((r.sampled = ref->indices.size() < M * N))
                check_sums(r, c, matmul_sums(*ref->sums, K));
        }
        r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        return r;
    }

  private:
    // M, N, K from --size (n, or MxNxK) or the device's auto size; a usage Error for another
    // count or a matrix of 2^31 elements or more (the kernels index with int).
    std::array<std::size_t, 3> problem_size(const RunConfig& cfg, const DeviceInfo& info) const {
        const auto dims = cfg.size.empty() ? auto_size(info) : cfg.size;
        if (dims.size() != 1 && dims.size() != 3)
            throw Error::usage("matmul takes one size (n: n x n times n x n) or three (MxNxK: "
                               "M x K times K x N), got " +
                               dims_label(dims));
        const std::size_t M = dims[0], N = dims.size() == 3 ? dims[1] : dims[0],
                          K = dims.size() == 3 ? dims[2] : dims[0];
        for (const double elems : {double(M) * K, double(K) * N, double(M) * N})
            if (elems > double(INT32_MAX))
                throw Error::usage(
                    "matmul size " + dims_label({M, N, K}) +
                    ": a matrix of over 2^31-1 elements (the kernels index with int)");
        return {M, N, K};
    }

    // The reference of the checked entries, computed once per problem and shared by the
    // variants (the inputs depend only on the sizes and the seed).
    std::shared_ptr<const Reference> reference(std::span<const float> a, std::span<const float> b,
                                               std::size_t M, std::size_t N, std::size_t K,
                                               const RunConfig& cfg, std::string& note) const {
        Result r; // full stays full: past the limit, refused when asked for, else a sample said
        const Verify verify = verify_level(cfg, double(M) * N * K, full_check_limit, r, "matmul");
        note += (note.empty() || r.note.empty() ? "" : "; ") + r.note;
        return cache_.get(Key{M, N, K, cfg.seed, verify}, [&] {
            return compute_reference(a, b, M, N, K, check_indices(M * N, verify, cfg.seed),
                                     cfg.seed);
        });
    }

    struct Key {
        std::size_t M, N, K;
        std::uint64_t seed;
        Verify verify;
        bool operator==(const Key&) const = default;
    };
    mutable RecentValues<Key, Reference> cache_;
};

} // namespace

MatmulWork::Timed MatmulWork::launch(Kernel& kernel, const Shape&, const Range& range,
                                     const BuildOptions&, const Buffer& a, const Buffer& b,
                                     Buffer& c) {
    Queue& q = p_.s.queue();
    return [&q, &kernel, range, &a, &b, &c, mi = p_.mi, ni = p_.ni, ki = p_.ki] {
        auto e = q.launch(kernel, range, a, b, c, mi, ni, ki);
        return std::pair{e, e};
    };
}

void MatmulWork::check(Result& r, std::span<const float> c, const matmul_ref::Reference& ref,
                       std::span<const float>, std::span<const float>) {
    compare_outputs(r, c, ref.indices, ref.value, &ref.bound);
    // A sample: every row and column sum as well, so a wrong entry outside it still fails.
    if ((r.sampled = ref.indices.size() < p_.M * p_.N))
        check_sums(r, c, matmul_sums(*ref.sums, p_.K));
}

const App& matmul_app() {
    static const Matmul app;
    return app;
}

} // namespace duet::apps
