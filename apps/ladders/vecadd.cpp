// vecadd: c = a + b over n floats. The model app: inputs, poisoned output, timed runs,
// a double-precision CPU reference and effective bandwidth.
#include <algorithm>
#include <chrono>
#include <cmath>

#include "app.hpp"
#include "auto_size.hpp"
#include "device_kind.hpp"

namespace duet::apps {
namespace {

// The group: 256 where the kernel allows it, else the largest that it does.
std::vector<Shape> group_256(const RunConfig&, const DeviceInfo&) { return halving_shapes({256, 1}); }

// The ladder: one record per step (step.hpp); a new step is its kernels and one record.
const std::vector<Step>& vecadd_steps() {
    static const std::vector<Step> steps = {
        {.name = "naive",
         .kernel = "vecadd_naive",
         .description = "one element per work-item, bounds check",
         .shapes = group_256},
        {.name = "vec4",
         .kernel = "vecadd_vec4",
         .description = "grid-stride loop, float4 loads and stores",
         .shapes = group_256},
    };
    return steps;
}

class VecAdd final : public App {
public:
    std::string name() const override { return "vecadd"; }
    std::string description() const override { return "c = a + b, float32 (memory bound)"; }
    const std::vector<Step>& steps() const override { return vecadd_steps(); }
    std::vector<std::size_t> default_size() const override { return {1u << 22}; }
    // --size auto: vecadd_model() in auto_size.cpp.
    std::vector<std::size_t> auto_size(const DeviceInfo& info) const override {
        return {choose_size(vecadd_model(), info).n};
    }

    Result run(Device& dev, const Variant& v, const RunConfig& cfg) const override {
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t n = cfg.size.empty() ? auto_size(dev.info())[0] : cfg.size.at(0);
        if (cfg.size.size() > 1)
            throw Error::usage("vecadd takes one size (the vector length), got " +
                               dims_label(cfg.size));
        if (n > static_cast<std::size_t>(INT32_MAX))
            throw Error::usage("vecadd size " + std::to_string(n) + " is over 2^31-1 elements");
        const int ni = static_cast<int>(n);

        Result r;
        r.seed = cfg.seed;
        r.size_label = std::to_string(n);
        BuildOptions opts;
        opts.defines = cfg.defines;
        // The group: --local as given (or an error), else 256 where the kernel allows it, else
        // the largest that it does.
        Fitted fit;
        if (cfg.local) {
            fit.kernel = dev.load_kernel(v.kernel, opts);
            fit.shape.local = pick_local(cfg, *cfg.local, *fit.kernel);
        } else {
            fit = build_fitting(dev, v.kernel, opts, shapes_of(v, cfg, dev.info()), v.name);
            r.note = shape_note(v.name, fit);
        }
        auto& kernel = fit.kernel;
        describe(r, dev, *kernel, name(), v);

        const auto a = random_floats(n, cfg.seed);
        const auto b = random_floats(n, cfg.seed + 1);
        auto q = dev.create_queue();
        auto da = dev.alloc<float>(n), db = dev.alloc<float>(n), dc = alloc_guarded(dev, n * sizeof(float));
        r.h2d_ms = q->write(*da, a).elapsed_ms() + q->write(*db, b).elapsed_ms();
        r.h2d_bytes = 2.0 * n * sizeof(float);
        perturb(cfg, 0, *q, *da, sizeof(float));
        perturb(cfg, 1, *q, *db, sizeof(float));

        const auto local = fit.shape.local;
        // vec4: one float4 per work-item up to a grid that fills a GPU (2048 work-items per
        // compute unit), then the grid-stride loop. CPUs get the whole range: their OpenCL
        // compilers vectorise across work-items, not along a loop.
        const std::size_t quads = (n + 3) / 4;
        const std::size_t grid = is_cpu(dev.info())
                                     ? quads
                                     : std::min<std::size_t>(quads, std::size_t(dev.info().compute_units) * 2048);
        Range range = Range(round_up(v.name == "naive" ? n : grid, local[0])).local(local[0]);
        r.local_label = std::to_string(local[0]);
        poison(*q, *dc);
        time_runs(r, *q, cfg, [&] {
            auto e = q->launch(*kernel, range, *da, *db, *dc, ni);
            return std::pair{e, e};
        });
        std::vector<float> c(n);
        r.d2h_ms = q->read(*dc, c).elapsed_ms();
        r.d2h_bytes = double(n) * sizeof(float);
        r.bytes = 3.0 * n * sizeof(float);

        r.error_kind = "abs";
        r.tolerance = 0; // one IEEE add, correctly rounded on every device
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        const auto idx = check_indices(n, cfg.verify, cfg.seed);
        std::vector<double> ref(idx.size());
        for (std::size_t t = 0; t < idx.size(); ++t) // one correctly rounded float add
            ref[t] = static_cast<float>(double(a[idx[t]]) + double(b[idx[t]]));
        compare_outputs(r, c, idx, ref);
        check_guard(r, *q, *dc, n * sizeof(float));
        if (cfg.size.empty()) // say why this size
            r.note += std::string(r.note.empty() ? "" : "; ") + choose_size(vecadd_model(), dev.info()).note;
        r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        return r;
    }
};

} // namespace

const App& vecadd_app() {
    static const VecAdd app;
    return app;
}

} // namespace duet::apps
