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
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "auto_size.hpp"
#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "device_profile.hpp"
#include "matmul.hpp"
#include "matmul_reference.hpp"
#include "native/native.hpp"
#include "native/reference.hpp"

namespace duet::apps {

namespace {

using namespace matmul_ref; // entry bounds, the reference's dot products, the tf32 step's error

// Above this many multiply-adds, --verify full checks a sample: the CPU reference of every entry
// would take longer than the GPU runs it checks (2^31 is about 1290^3, a second or two on 2 cores).
constexpr double full_check_limit = 2147483648.0;

// A tunable macro's value among the build's defines (define_or in app.hpp), for matmul.
std::size_t define_or(const RunConfig& cfg, const std::string& name, std::size_t fallback) {
    return define_or(cfg, "matmul", name, fallback);
}

class Matmul final : public App {
  public:
    std::string name() const override { return "matmul"; }
    std::string description() const override {
        return "C = A*B, float32 row-major, M x K by K x N (compute bound); size n or MxNxK";
    }
    const std::vector<Step>& steps() const override { return matmul_steps(); }
    // 384^3: the whole ladder, naive included, in a few seconds on 2 CPU cores through PoCL.
    std::vector<std::size_t> default_size() const override { return {384}; }
    // --size auto: matmul_model() in auto_size.cpp.
    std::vector<std::size_t> auto_size(const DeviceInfo& info) const override {
        return {choose_size(matmul_model(), info).n};
    }
    // runapp tune: a size that fills a GPU; on a CPU every point is a build of seconds.
    std::vector<std::size_t> tune_size(const DeviceInfo& info) const override {
        return {is_gpu(info) ? 4096u : 512u};
    }

    Result run(Device& dev, const Variant& v, const RunConfig& cfg) const override {
        StepRun s(dev, *this, v, cfg);
        Result& r = s.r;
        const auto dims = cfg.size.empty() ? auto_size(dev.info()) : cfg.size;
        if (dims.size() != 1 && dims.size() != 3)
            throw Error::usage("matmul takes one size (n: n x n times n x n) or three (MxNxK: "
                               "M x K times K x N), got " +
                               dims_label(dims));
        const std::size_t M = dims[0], N = dims.size() == 3 ? dims[1] : dims[0],
                          K = dims.size() == 3 ? dims[2] : dims[0];
        // The kernels index with int: every matrix must have fewer than 2^31 elements.
        for (const double elems : {double(M) * K, double(K) * N, double(M) * N})
            if (elems > double(INT32_MAX))
                throw Error::usage(
                    "matmul size " + dims_label({M, N, K}) +
                    ": a matrix of over 2^31-1 elements (the kernels index with int)");
        const int mi = static_cast<int>(M), ni = static_cast<int>(N), ki = static_cast<int>(K);
        Result early; // an explicit --verify full too big to check is refused before anything runs
        verify_level(cfg, double(M) * N * K, full_check_limit, early, name());
        r.size_label = dims_label({M, N, K});
        BuildOptions opts;
        for (const auto& d : cfg.defines) // best's plan (matmul.hpp): the host's, not the kernel's
            if (!best_host_define(d.first))
                opts.defines.push_back(d);
        // DUET_TF32_EMULATE (OpenCL, tests): tf32's mma done by the work-group in local memory,
        // on any device; it checks the kernel's fragment arithmetic, not tensor cores.
        const bool tf32_emulated = v.name == "tf32" && define_or(cfg, "DUET_TF32_EMULATE", 0);
        const DeviceProfile profile = profile_of(dev.info());
        if (tf32_emulated && !profile.takes_define("DUET_TF32_EMULATE"))
            throw Error::usage("DUET_TF32_EMULATE is for OpenCL devices (the CUDA kernel has no "
                               "emulation); leave it out on " +
                               dev.info().id());
        if (!tf32_emulated) // tf32 refuses all but NVIDIA 8.0+
            check_needs(v, dev.info());
        const auto shapes = shapes_of(v, cfg, dev.info()); // matmul_steps.cpp
        // best: how it covers C (a split of K, edges, aligned copies: matmul_best_plan.cpp), and
        // its defines for unaligned rows and NVIDIA's OpenCL (matmul_steps.cpp).
        const BestPlan plan = v.name == "best" ? best_plan(cfg, dev.info(), M, N, K,
                                                           shapes.front().rows, shapes.front().cols)
                                               : BestPlan{};
        if (v.name == "best")
            for (auto& d : best_defines(cfg, dev.info(), plan.n, plan.k))
                opts.defines.push_back(std::move(d));
        if (plan.clamp && !user_sets(cfg, {"BEST_CLAMP"}))
            opts.defines.emplace_back("BEST_CLAMP", "1");
        if (plan.rows_out && !user_sets(cfg, {"BEST_ROWS_OUT"}))
            opts.defines.emplace_back("BEST_ROWS_OUT", "1");
        if (v.name == "tf32" && !tf32_emulated) // the profile's: PTX mma in OpenCL C
            for (const auto& d : profile.defines_for("matmul", "tf32"))
                if (!user_sets(cfg, {d.first}))
                    opts.defines.push_back(d);
        // Launch geometry: the global size covers C in whole work-groups; the kernels check
        // the edges themselves. The shape is the variant's own where the device allows it, else
        // the largest smaller one that fits (matmul_steps.cpp); naive takes --local as given.
        // A split of K is a build of its own (BEST_SPLIT).
        const bool user_local = v.name == "naive" && cfg.local;
        if (v.name == "cpu") // the vector width its shapes assume (kernels_cl/matmul_cpu.cl)
            add_cpu_width(opts, dev.info(), cfg);
        if (plan.splits > 1)
            opts.defines.emplace_back("BEST_SPLIT", "1");
        if (user_local) { // the user's shape or a clear error, never another one
            Kernel& k = s.build_as_given(opts);
            s.shape() = shapes.front();
            s.shape().local = pick_local(cfg, *cfg.local, k);
        } else {
            s.build(opts, shapes);
        }
        Kernel& kernel = s.kernel();
        const Shape& g = s.shape();
        // tf32 on Hopper (matmul_steps.cpp): wgmma takes B "K-major" only, so matmul_tf32_bt
        // first writes B^T with rows of Kp (K rounded up to 4) floats, in the timed work, and
        // where K % 4 != 0 matmul_tf32_pad writes A with rows of Kp (the tile copy engine reads
        // rows 16 bytes apart); the kernel reads both through tile maps, its stages come as its
        // duet::local argument (g.local_bytes, over 48 KiB).
        const bool wgmma = g.kernel == "matmul_tf32_wgmma";
        const std::size_t Kp = (K + 3) / 4 * 4;
        if (wgmma && double(Kp) * double(std::max(M, N)) > double(INT32_MAX))
            throw Error::usage(
                "matmul size " + dims_label({M, N, K}) +
                ": tf32's B^T or padded A of over 2^31-1 elements (the kernels index with int)");
        std::unique_ptr<Kernel> transpose, pad;
        const bool pad_a = wgmma && K % 4 != 0;
        if (wgmma) {
            transpose = dev.load_kernel("matmul_tf32_bt", opts);
            if (pad_a)
                pad = dev.load_kernel("matmul_tf32_pad", opts);
            s.note(std::string("wgmma (sm_90a) fed by the tile copy engine (TMA), by "
                               "matmul_tf32_wgmma; B transposed first by matmul_tf32_bt") +
                   (pad_a ? ", A's rows padded to a multiple of 4 by matmul_tf32_pad" : "") +
                   " (timed with it); inputs truncated to TF32");
        }

        const auto a = random_floats(M * K, cfg.seed);
        const auto b = random_floats(K * N, cfg.seed + 1);
        auto da = s.upload(a), db = s.upload(b);
        auto dc = s.output(M * N * sizeof(float));
        std::unique_ptr<Buffer> dbt, dap;
        if (wgmma)
            dbt = dev.alloc<float>(N * Kp);
        if (pad_a)
            dap = dev.alloc<float>(M * Kp);
        Queue& q = s.queue();

        const auto local = g.local;
        if (cfg.local && v.name != "naive" && *cfg.local != local)
            s.note("--local applies to the naive kernel; " + v.name +
                   "'s work-group is fixed by its tile");
        const std::size_t rows = g.rows, cols = g.cols;
        const Range range =
            Range((N + cols - 1) / cols * local[0], (M + rows - 1) / rows * local[1])
                .local(local[0], local[1]);
        r.local_label = std::to_string(local[0]) + "x" + std::to_string(local[1]);
        std::optional<BestLaunch> best; // best's launches (matmul_best_launch.cpp)
        if (v.name == "best")
            best.emplace(dev, q, cfg, opts, kernel, g, plan, M, N, K,
                         [&](std::string text) { s.note(std::move(text)); });

        const int kpi = static_cast<int>(Kp);
        const Range bt_range = Range((N + 31) / 32 * 32, (Kp + 31) / 32 * 8).local(32, 8);
        const Range pad_range =
            Range((Kp + 255) / 256 * 256, std::min<std::size_t>(M, 65535)).local(256, 1);
        s.time([&] {
            if (wgmma) {
                auto first = q.launch(*transpose, bt_range, *db, *dbt, ki, ni, kpi);
                if (pad_a)
                    q.launch(*pad, pad_range, *da, *dap, mi, ki, kpi);
                const Buffer& a_rows = pad_a ? *dap : *da;
                auto last = q.launch(kernel, range, duet::tile_map(a_rows, M, Kp, 128, 32),
                                     duet::tile_map(*dbt, N, Kp, 256, 32), *da, *dbt, *dc, mi, ni,
                                     ki, kpi, duet::local(g.local_bytes));
                return std::pair{first, last};
            }
            if (best)
                return (*best)(*da, *db, *dc);
            auto e = q.launch(kernel, range, *da, *db, *dc, mi, ni, ki);
            return std::pair{e, e};
        });
        const auto c = s.download<float>(*dc, M * N);
        r.flops = 2.0 * double(M) * double(N) * double(K);
        r.bytes = 4.0 * (double(M) * K + double(K) * N + double(M) * N);

        r.error_kind = "of bound";
        r.tolerance = 1.0;
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            const auto ref = reference(a, b, M, N, K, cfg, r.note);
            if (v.name == "tf32") {
                std::vector<double> bound(ref->indices.size());
                for (std::size_t t = 0; t < bound.size(); ++t)
                    bound[t] = tf32_entry_bound(ref->abs_sum[t], K, wgmma);
                compare_outputs(r, c, ref->indices, ref->value, &bound);
                char buf[320];
                std::snprintf(buf, sizeof buf,
                              "TF32, not float32 (inputs %s): max |error| %.2e of sum|a*b| against "
                              "the FP64 reference (bound %.2e); float32 dot products of the same "
                              "entries (CPU): %.2e",
                              wgmma ? "truncated" : "rounded",
                              relative_error(*ref, c, a, b, N, K, false),
                              tf32_entry_bound(1.0, K, wgmma) - double(K) * FLT_MIN,
                              relative_error(*ref, c, a, b, N, K, true));
                r.note += std::string(r.note.empty() ? "" : "; ") + buf;
            } else {
                compare_outputs(r, c, ref->indices, ref->value, &ref->bound);
            }
            s.check_guards();
        } else if (v.name == "tf32") {
            r.note += std::string(r.note.empty() ? "" : "; ") +
                      "TF32, not float32 (10-bit mantissa inputs); unverified";
        }
        return s.finish(matmul_model());
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
        r = native_result(name(), native_variant(variant), {M, N, K}, cfg, native::sgemm_library());
        if (const auto w = native::sgemm_warning(); !w.empty())
            r.note = w;
        const auto a = random_floats(M * K, cfg.seed);
        const auto b = random_floats(K * N, cfg.seed + 1);
        std::vector<float> c(M * N);
        r.kernel_ms = r.host_ms = native::time_host(
            cfg.warmup, cfg.reps, [&] { native::sgemm(a.data(), b.data(), c.data(), M, N, K); });
        r.flops = 2.0 * double(M) * double(N) * double(K);
        r.bytes = 4.0 * (double(M) * K + double(K) * N + double(M) * N);
        r.error_kind = "of bound"; // the device rows' check
        r.tolerance = 1.0;
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            const auto ref = reference(a, b, M, N, K, cfg, r.note);
            compare_outputs(r, c, ref->indices, ref->value, &ref->bound);
        }
        r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        return r;
    }

  private:
    // The reference of the checked entries, computed once per problem and shared by the
    // variants (the inputs depend only on the sizes and the seed).
    std::shared_ptr<const Reference> reference(const std::vector<float>& a,
                                               const std::vector<float>& b, std::size_t M,
                                               std::size_t N, std::size_t K, const RunConfig& cfg,
                                               std::string& note) const {
        Result r; // full stays full: past the limit, refused when asked for, else a sample said
        const Verify verify = verify_level(cfg, double(M) * N * K, full_check_limit, r, "matmul");
        note += (note.empty() || r.note.empty() ? "" : "; ") + r.note;
        return cache_.get(Key{M, N, K, cfg.seed, verify}, [&] {
            return compute_reference(a, b, M, N, K, check_indices(M * N, verify, cfg.seed));
        });
    }

    struct Key {
        std::size_t M, N, K;
        std::uint64_t seed;
        Verify verify;
        bool operator==(const Key&) const = default;
    };
    mutable LastValueCache<Key, Reference> cache_;
};

} // namespace

const App& matmul_app() {
    static const Matmul app;
    return app;
}

} // namespace duet::apps
