// conv5x5: a 5x5 convolution of a float32 image with clamp-to-edge borders, the image-processing
// ladder: naive, the filter in constant memory, a tile with its halo in local memory, a sliding
// window of rows in registers, and the memory-bound best (float4 tiles, 4x4 outputs per
// work-item). Kernels in kernels_cl/conv5x5.cl and kernels_cu/conv5x5.cu; the comments there
// explain each step. --size is "n" (n x n) or "WxH". --local shapes the work-group: for naive,
// const and rows directly; for tiled and best it sets the tile macros (the work-group is the tile).
//
// Metrics: Mpixel/s (W*H output pixels) and effective bandwidth 8*W*H bytes (each input pixel
// read once and each output written once: what a perfect cache would move).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <mutex>
#include <thread>

#include "app.hpp"
#include "auto_size.hpp"
#include "conv5x5.hpp"
#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "native/native.hpp"
#include "native/reference.hpp"
#include "problem.hpp"

namespace duet::apps {

namespace {

// Above this many pixels, --verify full checks a sample: the CPU reference of every pixel of
// 8192^2 is 1.7 G multiply-adds, longer than all the GPU runs it checks.
constexpr std::size_t full_check_limit = std::size_t{4096} * 4096;

// The double-precision reference of the checked pixels, spread over the CPU's cores.
struct Reference {
    std::vector<std::size_t> indices; // row-major pixel indices
    std::vector<double> value;
};

// The pixels to check: all, or a sample that adds to check_indices' spread every pixel within
// 3 of the image's edges, where the clamped halo loads are.
std::vector<std::size_t> pixels_to_check(std::size_t W, std::size_t H, Verify verify,
                                         std::uint64_t seed) {
    auto idx = check_indices(W * H, verify, seed);
    if (verify != Verify::sample || idx.size() == W * H)
        return idx;
    for (std::size_t y = 0; y < H; ++y) {
        const bool edge_row = y < 3 || y + 3 >= H;
        for (std::size_t x = 0; x < W; ++x) {
            if (!edge_row && x == 3 && W > 6)
                x = W - 3; // skip the inside of the row
            idx.push_back(y * W + x);
        }
    }
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    return idx;
}

std::shared_ptr<const Reference> compute_reference(std::span<const float> img,
                                                   std::span<const float> filter, std::size_t W,
                                                   std::size_t H,
                                                   std::vector<std::size_t> indices) {
    auto ref = std::make_shared<Reference>();
    ref->indices = std::move(indices);
    const std::size_t n = ref->indices.size();
    ref->value.resize(n);
    const long long wi = static_cast<long long>(W), hi = static_cast<long long>(H);
    double f[25];
    for (int i = 0; i < 25; ++i)
        f[i] = filter[i];
    auto work = [&](std::size_t begin, std::size_t end) {
        for (std::size_t t = begin; t < end; ++t) {
            const long long y = static_cast<long long>(ref->indices[t] / W);
            const long long x = static_cast<long long>(ref->indices[t] % W);
            // Inside, eight pixels of a row at once where the indices run on: no clamping, and
            // eight sums side by side (each adds the same terms in the same order as alone).
            constexpr int lanes = 8;
            if (y >= 2 && y + 2 < hi && x >= 2 && x + lanes + 1 < wi && t + lanes <= end &&
                ref->indices[t + lanes - 1] == ref->indices[t] + lanes - 1) {
                double acc[lanes] = {};
                const float* p = &img[(y - 2) * wi + (x - 2)];
                for (long long dy = 0; dy < 5; ++dy, p += wi)
                    for (long long dx = 0; dx < 5; ++dx)
                        for (int l = 0; l < lanes; ++l)
                            acc[l] += f[dy * 5 + dx] * double(p[dx + l]);
                for (int l = 0; l < lanes; ++l)
                    ref->value[t + l] = acc[l];
                t += lanes - 1;
                continue;
            }
            double s = 0;
            for (long long dy = 0; dy < 5; ++dy) {
                const long long gy = std::clamp(y + dy - 2, 0LL, hi - 1);
                for (long long dx = 0; dx < 5; ++dx) {
                    const long long gx = std::clamp(x + dx - 2, 0LL, wi - 1);
                    s += double(filter[dy * 5 + dx]) * double(img[gy * wi + gx]);
                }
            }
            ref->value[t] = s;
        }
    };
    parallel_for(n, 4096, work);
    return ref;
}

} // namespace

namespace {

class Conv5x5 final : public App {
  public:
    std::string name() const override { return "conv5x5"; }
    std::string description() const override {
        return "5x5 convolution, float32 image, clamp-to-edge (memory bound); size n or WxH";
    }
    const std::vector<Step>& steps() const override { return conv5x5_steps(); }
    // 1024^2: the whole ladder in a few seconds on 2 CPU cores through PoCL.
    std::vector<std::size_t> default_size() const override { return {1024}; }
    // in and out: 8 bytes per pixel; up to 8192^2 on a GPU, 2048^2 on a CPU device.
    SizeModel size_model() const override {
        return {.app = "conv5x5",
                .dims = 2,
                .bytes_per_item = 8,
                .granule = 1024,
                .gpu_cap = 8192,
                .cpu_cap = 2048,
                .sim_size = 64,
                .index_cap = 46336};
    }
    std::vector<std::size_t> tune_size(const DeviceInfo& info) const override {
        return {is_gpu(info) ? 8192u : 2048u};
    }

    Result run(Device& dev, const Variant& v, const RunConfig& cfg) const override {
        StepRun s(dev, *this, v, cfg);
        Result& r = s.r;
        const auto dims = cfg.size.empty() ? auto_size(dev.info()) : cfg.size;
        if (dims.size() != 1 && dims.size() != 2)
            throw Error::usage("conv5x5 takes one size (n: an n x n image) or two (WxH), got " +
                               dims_label(dims));
        const std::size_t W = dims[0], H = dims.size() == 2 ? dims[1] : dims[0];
        // The kernels index with int.
        if (double(W) * double(H) > double(INT32_MAX))
            throw Error::usage("conv5x5 size " + dims_label({W, H}) +
                               ": over 2^31-1 pixels (the kernels index with int)");
        const std::size_t n = W * H;
        const int wi = static_cast<int>(W), hi = static_cast<int>(H);
        Result early; // an explicit --verify full too big to check is refused before anything runs
        verify_level(cfg, 25.0 * double(W) * H, 25.0 * double(full_check_limit), early, name());
        // The image and the output on the host (and a CPU device's copies), before anything.
        check_host_fits(2 * W * H, sizeof(float) * (is_cpu(dev.info()) ? 2 : 1),
                        "conv5x5's image and output (and a CPU device's copies)");
        check_device_alloc(dev.info(), double(W) * H * sizeof(float), "conv5x5's image");
        r.size_label = dims_label({W, H});
        const auto* hooks = hooks_of<ConvHooks>(v); // the step's geometry (conv5x5_steps.cpp)
        const ConvGeometry g = hooks && hooks->geometry ? hooks->geometry(cfg) : ConvGeometry{};
        BuildOptions opts;
        opts.defines = cfg.defines;
        opts.defines.insert(opts.defines.end(), g.defines.begin(), g.defines.end());
        // The cpu step's vector width; the device profile's defines for the step (rows: reads
        // through the read-only cache where OpenCL C takes inline PTX, kernels_cl/conv5x5.cl), a
        // user's define of the same name standing (DUET_NV_LDG=0 keeps plain loads, to compare).
        add_step_defines(name(), v, opts, dev.info(), cfg);
        // The shape: the user's (--local, a tile --define) as given, or an error; otherwise the
        // variant's own where the device allows it, else the largest smaller one that fits.
        const bool pinned = cfg.local || user_sets(cfg, g.pins);
        if (pinned) // the kernel's tile macros that neither the user nor --local gave
            add_unset(opts.defines, g.macros);
        Kernel& kernel = pinned ? s.build_as_given(opts) : s.build(opts);

        const auto img_in = shared_floats(n, cfg.seed), filter_in = shared_floats(25, cfg.seed + 1);
        const auto &img = *img_in, &filter = *filter_in;
        auto din = s.upload(img_in), dfilter = s.upload(filter_in);
        auto dout = s.output(n * sizeof(float));

        // Launch geometry: whole work-groups over the image; the kernels check the edges.
        std::array<std::size_t, 2> local;
        std::size_t out_cols = g.cols, out_rows = g.rows; // outputs per work-item
        if (!pinned) {
            local = s.shape().local;
            out_cols = s.shape().cols;
            out_rows = s.shape().rows;
        } else if (g.free_local) {
            local = pick_local(cfg, g.local, kernel);
        } else {
            RunConfig own = cfg;
            own.local.reset();
            local = pick_local(own, g.local, kernel);
        }
        const std::size_t items_x = (W + out_cols - 1) / out_cols,
                          items_y = (H + out_rows - 1) / out_rows;
        const Range range = Range(round_up(items_x, local[0]), round_up(items_y, local[1]))
                                .local(local[0], local[1]);
        r.local_label = std::to_string(local[0]) + "x" + std::to_string(local[1]);

        Queue& q = s.queue();
        s.time([&] {
            auto e = q.launch(kernel, range, *din, *dout, *dfilter, wi, hi);
            return std::pair{e, e};
        });
        const auto& out = s.download<float>(*dout, n);
        r.pixels = double(n);
        r.bytes = 8.0 * double(n);

        r.error_kind = "abs";
        r.tolerance = conv5x5_tolerance(filter);
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            const auto ref = reference(img, filter, W, H, cfg, r.note);
            compare_outputs(r, out, ref->indices, ref->value);
            if ((r.sampled = ref->indices.size() < n))
                check_sums(r, out, *problem_sums(img, filter, W, H, cfg.seed));
            s.check_guards();
        }
        return s.finish(size_model());
    }

    Result run_native(const RunConfig& cfg, const std::string& variant) const override {
        const auto t0 = std::chrono::steady_clock::now();
        if (cfg.size.empty() || cfg.size.size() > 2)
            throw Error::usage("conv5x5 takes one size (n: n x n) or two (WxH), got " +
                               dims_label(cfg.size));
        const std::size_t W = cfg.size[0], H = cfg.size.size() == 2 ? cfg.size[1] : cfg.size[0];
        const std::size_t n = W * H;
        check_host_fits(2 * n, sizeof(float), "conv5x5's image and output");
        Result r = native_result(name(), native_variant(variant), cfg.size, cfg);
        const auto img_in = shared_floats(n, cfg.seed), filter_in = shared_floats(25, cfg.seed + 1);
        const auto &img = *img_in, &filter = *filter_in;
        std::vector<float> out(n);
        r.kernel_ms = r.host_ms = time_on_host(
            cfg, [&] { native::conv5x5(img.data(), filter.data(), out.data(), W, H); });
        r.pixels = double(n);
        r.bytes = 8.0 * double(n);
        r.error_kind = "abs"; // the device rows' check
        r.tolerance = conv5x5_tolerance(filter);
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            const auto ref = reference(img, filter, W, H, cfg, r.note);
            compare_outputs(r, out, ref->indices, ref->value);
            if ((r.sampled = ref->indices.size() < n))
                check_sums(r, out, *problem_sums(img, filter, W, H, cfg.seed));
        }
        r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        return r;
    }

  private:
    // The row and column sums of a problem, made once and shared by its variants and devices.
    std::shared_ptr<const SumCheck> problem_sums(std::span<const float> img,
                                                 std::span<const float> filter, std::size_t W,
                                                 std::size_t H, std::uint64_t seed) const {
        return sums_cache_.get(SumsKey{W, H, seed}, [&] {
            return std::make_shared<const SumCheck>(conv5x5_sums(img, filter, W, H, seed));
        });
    }
    struct SumsKey {
        std::size_t W, H;
        std::uint64_t seed;
        bool operator==(const SumsKey&) const = default;
    };
    mutable RecentValues<SumsKey, SumCheck> sums_cache_;

    // The reference of the checked pixels, computed once per problem and shared by the variants
    // (the inputs depend only on the size and the seed).
    std::shared_ptr<const Reference> reference(std::span<const float> img,
                                               std::span<const float> filter, std::size_t W,
                                               std::size_t H, const RunConfig& cfg,
                                               std::string& note) const {
        Result r; // full stays full: past the limit, refused when asked for, else a sample said
        const Verify verify =
            verify_level(cfg, 25.0 * double(W) * H, 25.0 * double(full_check_limit), r, "conv5x5");
        note += (note.empty() || r.note.empty() ? "" : "; ") + r.note;
        return cache_.get(Key{W, H, cfg.seed, verify}, [&] {
            return compute_reference(img, filter, W, H, pixels_to_check(W, H, verify, cfg.seed));
        });
    }

    struct Key {
        std::size_t W, H;
        std::uint64_t seed;
        Verify verify;
        bool operator==(const Key&) const = default;
    };
    mutable RecentValues<Key, Reference> cache_;
};

} // namespace

const App& conv5x5_app() {
    static const Conv5x5 app;
    return app;
}

} // namespace duet::apps
