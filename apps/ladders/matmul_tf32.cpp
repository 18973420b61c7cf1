// matmul's tensor-core steps, tf32 and tc3 (3xTF32, matmul_tc3.cpp), their host code beside their
// records (MatmulHooks, matmul.hpp): the emulated mma of the tests, the device profile's
// defines, Hopper's wgmma launch with its B^T and padded A, and the check: tf32's against the
// TF32 bound, tc3's against float32's (tc3_check).
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "device_profile.hpp"
#include "matmul.hpp"
#include "matmul_reference.hpp"
#include "matmul_tc3.hpp"

namespace duet::apps {

namespace {

using namespace matmul_ref;

// The launches the device profile may name for tf32 and tc3 (step_launch): the plain one, or
// the wgmma kernel built from the kernel's source (its defines in the same row).
enum class Tf32Launch { plain, wgmma_from_source };

Tf32Launch launch_named(const std::string& name) {
    if (name.empty())
        return Tf32Launch::plain;
    if (name == "wgmma_from_source")
        return Tf32Launch::wgmma_from_source;
    throw Error::runtime("device profiles: matmul's tf32 and tc3 have no launch \"" + name +
                         "\" (apps/ladders/matmul_tf32.cpp)");
}

class Tf32Work final : public MatmulWork {
  public:
    // DUET_TF32_EMULATE (OpenCL, tests): tf32's mma done by the work-group in local memory, on
    // any device; it checks the kernel's fragment arithmetic, not tensor cores.
    // `split`: tc3's work (the same launches; tc3's kernels split each input in two), else tf32's.
    // The profile's launch, as its defines, only where the profile applies (not emulated).
    Tf32Work(MatmulProblem& p, bool split)
        : MatmulWork(p), split_(split), emulated_(emulated(p.cfg)),
          profile_(profile_of(p.dev.info())),
          launch_(emulated_ ? Tf32Launch::plain
                            : launch_named(profile_.launch_for("matmul", split ? "tc3" : "tf32"))) {
        if (emulated_ && !profile_.takes_define("DUET_TF32_EMULATE"))
            throw Error::usage("DUET_TF32_EMULATE is for OpenCL devices (the CUDA kernel has no "
                               "emulation); leave it out on " +
                               p.dev.info().id());
    }
    bool needs_apply() const override { return !emulated_; } // tf32 refuses all but NVIDIA 8.0+
    // The emulation builds without the profile's PTX switches (the hooks' takes_profile).
    static bool emulated(const RunConfig& cfg) {
        return define_or(cfg, "matmul", "DUET_TF32_EMULATE", 0) != 0;
    }

    Timed launch(Kernel& kernel, const Shape& g, const Range& range, const BuildOptions& opts,
                 const Buffer& a, const Buffer& b, Buffer& c) override;
    std::optional<Timed> launch_from_source(Kernel& kernel, const Shape& g, const Range& range,
                                            const BuildOptions& opts, const Buffer& a,
                                            const Buffer& b, Buffer& c);
    Timed launch_split(Kernel& kernel, const Shape& g, const Range& range, const BuildOptions& opts,
                       const Buffer& a, const Buffer& b, Buffer& c, bool opencl = false);
    Timed launch_swapped(Kernel& kernel, const Shape& g, const Range& range,
                         const BuildOptions& opts, const Buffer& a, const Buffer& b, Buffer& c,
                         bool opencl = false);
    Timed launch_bt(Kernel& kernel, const Shape& g, const Range& range, const BuildOptions& opts,
                    const Buffer& a, const Buffer& b, Buffer& c);
    std::optional<Timed> launch_tma(const Shape& g, const BuildOptions& opts, const Buffer& a,
                                    const Buffer& b, Buffer& c);

    void check(Result& r, std::span<const float> c, const Reference& ref, std::span<const float> a,
               std::span<const float> b) override {
        r.sampled = ref.indices.size() < p_.M * p_.N;
        if (split_)
            return tc3_check(r, c, ref, a, b, p_.N, p_.K);
        std::vector<double> bound(ref.indices.size());
        for (std::size_t t = 0; t < bound.size(); ++t)
            bound[t] = tf32_entry_bound(ref.abs_sum[t], p_.K, truncated_);
        compare_outputs(r, c, ref.indices, ref.value, &bound);
        if (r.sampled) // every row and column sum as well (TF32's bound)
            check_sums(r, c, matmul_sums(*ref.sums, p_.K, true, truncated_));
        char buf[320];
        std::snprintf(buf, sizeof buf,
                      "TF32, not float32 (inputs %s): max |error| %.2e of sum|a*b| against "
                      "the FP64 reference (bound %.2e); float32 dot products of the same "
                      "entries (CPU): %.2e",
                      truncated_ ? "truncated" : "rounded",
                      relative_error(ref, c, a, b, p_.N, p_.K, false),
                      tf32_entry_bound(1.0, p_.K, truncated_) - double(p_.K) * FLT_MIN,
                      float32_error(ref, a, b, p_.N, p_.K));
        r.note += std::string(r.note.empty() ? "" : "; ") + buf;
    }
    void unverified(Result& r) override {
        if (split_)
            return;
        r.note += std::string(r.note.empty() ? "" : "; ") +
                  "TF32, not float32 (10-bit mantissa inputs); unverified";
    }

  private:
    bool split_; // tc3
    bool emulated_;
    DeviceProfile profile_;
    Tf32Launch launch_;      // the profile's for the step
    bool wgmma_ = false;     // CUDA's Hopper kernels (their own launch)
    bool truncated_ = false; // inputs cut to TF32 by wgmma, not rounded (the check's bound)
    std::unique_ptr<Kernel> transpose_, pad_, tma_; // tma_: OpenCL's tf32 or tc3 on tile maps
    std::unique_ptr<Buffer> bt_, ap_, bp_; // B^T (tc3's split or OpenCL's tf32), padded A and B
};

// On Hopper (matmul_steps.cpp's tf32 shapes) CUDA's wgmma kernels take their own launch: tile
// maps over their operands, their stages as the duet::local argument (g.local_bytes, over 48
// KiB). Where the device profile names the wgmma kernel built from source, launch_from_source.
// Elsewhere the plain launch.
MatmulWork::Timed Tf32Work::launch(Kernel& kernel, const Shape& g, const Range& range,
                                   const BuildOptions& opts, const Buffer& a, const Buffer& b,
                                   Buffer& c) {
    wgmma_ = g.own_launch;
    truncated_ = wgmma_;
    if (launch_ == Tf32Launch::wgmma_from_source)
        if (auto timed = launch_from_source(kernel, g, range, opts, a, b, c))
            return std::move(*timed);
    if (!wgmma_)
        return MatmulWork::launch(kernel, g, range, opts, a, b, c);
    if (!split_)
        return launch_swapped(kernel, g, range, opts, a, b, c);
    return launch_split(kernel, g, range, opts, a, b, c);
}

// The device profile's wgmma from OpenCL C (nv.sm90a_ptx: kernels_cl/matmul_wgmma.clh), unless
// the backend fell back to the kernel's mma.sync path (its build options say so). The wgmma
// build (TF_WGMMA in kernels_cl/matmul_wgmma.clh: the 128x128 block of 8 warps): CUDA's design,
// matmul_tf32_tma or matmul_tc3_tma, where the backend takes tile maps (launch_tma), else
// matmul_tf32 with B^T in B's place (launch_bt), or matmul_tc3 as it is; nullopt (launch()'s
// other paths) for the kernel's other shapes and where the build fell back.
std::optional<MatmulWork::Timed> Tf32Work::launch_from_source(Kernel& kernel, const Shape& g,
                                                              const Range& range,
                                                              const BuildOptions& opts,
                                                              const Buffer& a, const Buffer& b,
                                                              Buffer& c) {
    const bool fell_back = kernel.build_options().find("DUET_SM90A_FALLBACK") != std::string::npos;
    const bool wgmma_shape = !fell_back && g.rows == 128 && g.cols == 128 && g.items() == 256;
    p_.s.note(fell_back ? "mma.sync: the sm_90a build of the wgmma kernel fell back "
                          "(DUET_LOG_LEVEL=warn says why)"
                        : "wgmma (sm_90a PTX built from the kernel's source)" +
                              std::string(wgmma_shape ? "" : ", tiles copied by cp.async") +
                              std::string(split_ ? "" : "; inputs truncated to TF32"));
    truncated_ = wgmma_ || !fell_back;
    if (!wgmma_shape)
        return std::nullopt;
    if (auto timed = launch_tma(g, opts, a, b, c))
        return timed;
    if (!split_)
        return launch_bt(kernel, g, range, opts, a, b, c);
    p_.s.note("tiles copied by cp.async");
    return MatmulWork::launch(kernel, g, range, opts, a, b, c);
}

// matmul_tc3_wgmma, or NVIDIA OpenCL's matmul_tc3_tma where `opencl`: wgmma takes its
// shared-memory operand "K-major" only, so matmul_tc3_bt first writes B^T split, TF32 hi in rows
// 0 .. Np-1 and lo in Np .. 2 Np-1 (Np = N rounded up to the block's columns), rows of Kp (K
// rounded up to 4) floats, and where K % 4 != 0 matmul_tf32_pad writes A with rows of Kp (the
// tile copy engine reads rows 16 bytes apart); both timed with the kernel, which reads A and B^T
// through tile maps (boxes of the block's rows and columns). OpenCL's note is launch_tma's.
MatmulWork::Timed Tf32Work::launch_split(Kernel& kernel, const Shape& g, const Range& range,
                                         const BuildOptions& opts, const Buffer& a, const Buffer& b,
                                         Buffer& c, bool opencl) {
    const std::size_t M = p_.M, N = p_.N, K = p_.K, Kp = (K + 3) / 4 * 4;
    const std::size_t Np = (N + g.cols - 1) / g.cols * g.cols;
    if (double(Kp) * double(std::max(M, 2 * Np)) > double(INT32_MAX))
        throw Error::usage(
            "matmul size " + dims_label({M, N, K}) +
            ": tc3's split B^T or padded A of over 2^31-1 elements (the kernels index with int)");
    const bool pad_a = K % 4 != 0;
    const BuildOptions build = opencl ? shape_build(opts, g) : opts; // OpenCL's: the shape's
    transpose_ = p_.dev.load_kernel("matmul_tc3_bt", build);
    if (pad_a)
        pad_ = p_.dev.load_kernel("matmul_tf32_pad", build);
    if (!opencl)
        p_.s.note("wgmma (sm_90a) fed by the tile copy engine (TMA), by " + g.kernel +
                  "; B transposed and split into TF32 hi and lo first by matmul_tc3_bt" +
                  (pad_a ? ", A's rows padded to a multiple of 4 by matmul_tf32_pad" : "") +
                  " (timed with it)");
    bt_ = p_.dev.alloc<float>(2 * Np * Kp);
    if (pad_a)
        ap_ = p_.dev.alloc<float>(M * Kp);
    const Range bt_range = Range(Np, (Kp + 31) / 32 * 8).local(32, 8);
    const Range pad_range =
        Range((Kp + 255) / 256 * 256, std::min<std::size_t>(M, 65535)).local(256, 1);
    Queue& q = p_.s.queue();
    const int mi = p_.mi, ni = p_.ni, ki = p_.ki, kpi = static_cast<int>(Kp);
    const int npi = static_cast<int>(Np);
    return [=, this, &q, &kernel, &a, &b, &c] {
        auto first = q.launch(*transpose_, bt_range, b, *bt_, ki, ni, kpi, npi);
        if (pad_)
            q.launch(*pad_, pad_range, a, *ap_, mi, ki, kpi);
        const Buffer& a_rows = pad_ ? *ap_ : a;
        const auto map_a = duet::tile_map(a_rows, M, Kp, g.rows, 32);
        const auto map_bt = duet::tile_map(*bt_, 2 * Np, Kp, g.cols, 32);
        auto last = opencl ? q.launch(kernel, range, map_a, map_bt, c, mi, ni, ki)
                           : q.launch(kernel, range, map_a, map_bt, a, *bt_, c, mi, ni, ki, kpi,
                                      duet::local(g.local_bytes));
        return std::pair{first, last};
    };
}

// matmul_tf32_wgmma, or NVIDIA OpenCL's matmul_tf32_tma where `opencl` (C^T = B^T A^T: B's
// fragments from registers, no transpose): the tile maps read A and B as they lie, rows padded
// to a multiple of 4 floats by matmul_tf32_pad where they are not (A's where K % 4 != 0, B's
// where N % 4 != 0), timed with it. OpenCL's note is launch_tma's, once the kernel ran.
MatmulWork::Timed Tf32Work::launch_swapped(Kernel& kernel, const Shape& g, const Range& range,
                                           const BuildOptions& opts, const Buffer& a,
                                           const Buffer& b, Buffer& c, bool opencl) {
    const std::size_t M = p_.M, N = p_.N, K = p_.K, Kp = (K + 3) / 4 * 4, Np = (N + 3) / 4 * 4;
    if (double(Kp) * double(M) > double(INT32_MAX) || double(Np) * double(K) > double(INT32_MAX))
        throw Error::usage(
            "matmul size " + dims_label({M, N, K}) +
            ": tf32's padded A or B of over 2^31-1 elements (the kernels index with int)");
    const bool pad_a = K % 4 != 0, pad_b = N % 4 != 0;
    if (pad_a || pad_b)
        pad_ = p_.dev.load_kernel("matmul_tf32_pad", opencl ? shape_build(opts, g) : opts);
    if (!opencl)
        p_.s.note("wgmma (sm_90a) fed by the tile copy engine (TMA), by " + g.kernel +
                  " (C^T = B^T A^T, no transpose of B; blocks in pairs sharing A's tiles by "
                  "multicast)" +
                  (pad_a || pad_b
                       ? "; rows padded to a multiple of 4 by matmul_tf32_pad (timed with it)"
                       : "") +
                  "; inputs truncated to TF32");
    if (pad_a)
        ap_ = p_.dev.alloc<float>(M * Kp);
    if (pad_b)
        bp_ = p_.dev.alloc<float>(K * Np);
    const auto pad_range = [](std::size_t rows, std::size_t cols) {
        return Range((cols + 255) / 256 * 256, std::min<std::size_t>(rows, 65535)).local(256, 1);
    };
    const Range a_range = pad_range(M, Kp), b_range = pad_range(K, Np);
    Queue& q = p_.s.queue();
    const int mi = p_.mi, ni = p_.ni, ki = p_.ki, kpi = static_cast<int>(Kp);
    const int npi = static_cast<int>(Np);
    // CUDA's blocks run in clusters of two along x (a pair shares A's tile): an even count of
    // column tiles, the last one past N where their count is odd.
    const auto& items = range.global();
    const auto& group = range.local_size();
    const Range grid =
        opencl ? range
               : Range(round_up(items[0], 2 * group[0]), items[1]).local(group[0], group[1]);
    return [=, this, &q, &kernel, &a, &b, &c] {
        Event first;
        if (pad_a)
            first = q.launch(*pad_, a_range, a, *ap_, mi, ki, kpi);
        if (pad_b) {
            auto e = q.launch(*pad_, b_range, b, *bp_, ki, ni, npi);
            if (!first.valid())
                first = e;
        }
        const Buffer& a_rows = pad_a ? *ap_ : a;
        const Buffer& b_rows = pad_b ? *bp_ : b;
        // Both kernels' blocks are 256 rows of C (A's box) by 128 columns (B's four).
        const auto map_a = duet::tile_map(a_rows, M, Kp, 256, 32);
        const auto map_b = duet::tile_map(b_rows, K, Np, 32, 32);
        auto last = opencl ? q.launch(kernel, range, map_a, map_b, c, mi, ni, ki)
                           : q.launch(kernel, grid, map_a, map_b, a, b_rows, c, mi, ni, ki, kpi,
                                      npi, duet::local(g.local_bytes));
        return std::pair{first.valid() ? first : last, last};
    };
}

// NVIDIA OpenCL's tf32 or tc3 fed by the tile copy engine (kernels_cl/matmul_wgmma_tma.clh:
// CUDA's tf32 design, a 256x128 block by 32 x 8 work-items; matmul_tc3_tma.clh: CUDA's tc3 on a
// 128x128 block; the grid in the same block order), once launched (C written again by the timed
// launches); nullopt with the reason in the note where the launch fails (a usage Error where the
// backend refuses tile maps: no nv.sm90a_ptx, or no CUDA driver library beside NVIDIA's OpenCL).
std::optional<MatmulWork::Timed> Tf32Work::launch_tma(const Shape& g, const BuildOptions& opts,
                                                      const Buffer& a, const Buffer& b, Buffer& c) {
    const std::size_t M = p_.M, N = p_.N;
    const bool tc3 = split_;
    const std::size_t rows = tc3 ? 128 : 256; // the kernel's block: rows x 128 of C
    tma_ = p_.dev.load_kernel(tc3 ? "matmul_tc3_tma" : "matmul_tf32_tma", shape_build(opts, g));
    const Range range = Range((N + 127) / 128 * 32, (M + rows - 1) / rows * 8).local(32, 8);
    try {
        Timed timed = tc3 ? launch_split(*tma_, g, range, opts, a, b, c, true)
                          : launch_swapped(*tma_, g, range, opts, a, b, c, true);
        timed();
        p_.s.queue().finish();
        const std::string pad = tc3 ? ", A's rows padded to a multiple of 4 by matmul_tf32_pad"
                                    : "; rows padded to a multiple of 4 by matmul_tf32_pad";
        p_.s.note(std::string("fed by the tile copy engine (TMA), by ") +
                  (tc3 ? "matmul_tc3_tma (128x128 block); B transposed and split into TF32 hi "
                         "and lo first by matmul_tc3_bt"
                       : "matmul_tf32_tma (256x128 block, C^T = B^T A^T, no transpose of B)") +
                  (pad_ ? pad : "") + (tc3 || pad_ ? " (timed with it)" : ""));
        return timed;
    } catch (const Error& e) {
        p_.s.note(std::string("no tile copy engine: ") + e.what());
        for (auto* k : {&tma_, &pad_, &transpose_})
            k->reset();
        for (auto* buf : {&ap_, &bp_, &bt_})
            buf->reset();
        return std::nullopt;
    }
}

// NVIDIA OpenCL's wgmma build of matmul_tf32 where launch_tma cannot run (kernels_cl/
// matmul_wgmma.clh) reads both operands from local memory as rows of K: matmul_tf32_bt first
// writes B^T (N x K), timed with the kernel, which takes it in B's place; tiles copied by
// cp.async.
MatmulWork::Timed Tf32Work::launch_bt(Kernel& kernel, const Shape& g, const Range& range,
                                      const BuildOptions& opts, const Buffer& a, const Buffer& b,
                                      Buffer& c) {
    const std::size_t N = p_.N, K = p_.K;
    // The same file, built as the kernel was.
    transpose_ = p_.dev.load_kernel("matmul_tf32_bt", shape_build(opts, g));
    bt_ = p_.dev.alloc<float>(N * K);
    const Range bt_range = Range((N + 31) / 32 * 32, (K + 31) / 32 * 8).local(32, 8);
    Queue& q = p_.s.queue();
    const int mi = p_.mi, ni = p_.ni, ki = p_.ki;
    p_.s.note("B^T written first by matmul_tf32_bt (timed with it), tiles copied by cp.async");
    return [=, this, &q, &kernel, &a, &b, &c] {
        auto first = q.launch(*transpose_, bt_range, b, *bt_, ki, ni);
        auto last = q.launch(kernel, range, a, *bt_, c, mi, ni, ki);
        return std::pair{first, last};
    };
}

} // namespace

namespace {

std::shared_ptr<const StepHooks> tensor_core_hooks(bool split) {
    auto h = std::make_shared<MatmulHooks>();
    h->begin = [split](MatmulProblem& p) { return std::make_unique<Tf32Work>(p, split); };
    h->takes_profile = [](const RunConfig& cfg) { return !Tf32Work::emulated(cfg); };
    return h;
}

} // namespace

std::shared_ptr<const StepHooks> tf32_hooks() {
    return tensor_core_hooks(false);
}

std::shared_ptr<const StepHooks> tc3_hooks() {
    return tensor_core_hooks(true);
}

} // namespace duet::apps
