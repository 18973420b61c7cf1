// vecadd: c = a + b over n floats. The model app: inputs, poisoned output, timed runs,
// a double-precision CPU reference and effective bandwidth.
#include <algorithm>
#include <cmath>

#include "app.hpp"
#include "auto_size.hpp"
#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "native/native.hpp"
#include "native/reference.hpp"
#include "problem.hpp"

namespace duet::apps {
namespace {

// vecadd's hooks on a step record: the work-items it launches for n elements, on the device.
struct VecaddHooks : StepHooks {
    std::function<std::size_t(std::size_t n, const DeviceInfo&, const RunConfig&)> items;
};

// vec4: one float4 per work-item up to a grid that fills a GPU (2048 work-items per compute
// unit), then the grid-stride loop. CPUs get the whole range: their OpenCL compilers vectorise
// across work-items, not along a loop.
std::size_t grid_items(std::size_t n, const DeviceInfo& info, const RunConfig&) {
    const std::size_t quads = (n + 3) / 4;
    return is_cpu(info) ? quads
                        : std::min<std::size_t>(quads, std::size_t(info.compute_units) * 2048);
}

std::shared_ptr<const StepHooks>
items_hooks(std::function<std::size_t(std::size_t, const DeviceInfo&, const RunConfig&)> items,
            bool cpu_width = false) {
    auto h = std::make_shared<VecaddHooks>();
    h->items = std::move(items);
    if (cpu_width)
        h->defines = cpu_width_hooks()->defines;
    return h;
}

// The group: 256 where the kernel allows it, else the largest that it does.
std::vector<Shape> group_256(const RunConfig&, const DeviceInfo&) {
    return halving_shapes({256, 1});
}

// The ladder: one record per step (step.hpp); a new step is its kernels and one record.
const std::vector<Step>& vecadd_steps() {
    static const std::vector<Step> steps = {
        {.name = "naive",
         .kernel = "vecadd_naive",
         .description = "one element per work-item, bounds check",
         .shapes = group_256,
         .hooks =
             items_hooks([](std::size_t n, const DeviceInfo&, const RunConfig&) { return n; })},
        {.name = "vec4",
         .kernel = "vecadd_vec4",
         .description = "grid-stride loop, float4 loads and stores",
         .shapes = group_256,
         .hooks = items_hooks(grid_items)},
        {.name = "cpu",
         .kernel = "vecadd_cpu",
         .description = "CPU-shaped: 4 work-items per core, each a contiguous chunk in vectors of "
                        "the device's float width, streamed stores past the cache",
         .shapes =
             [](const RunConfig&, const DeviceInfo&) {
                 return halving_shapes({1, 1});
             },
         // one work-item per group, a chunk each; the vector width in its build
         // (enough of them that no work-item's loop passes a device's loop limit: llvmpipe)
         .hooks = items_hooks(
             [](std::size_t n, const DeviceInfo& info, const RunConfig& cfg) {
                 BuildOptions width; // the vector width its build takes
                 const std::size_t w = add_cpu_width(width, info, cfg);
                 return std::max(cpu_tasks(info, cfg, "vecadd"), loop_bound_items(info, n / w + 1));
             },
             true)},
    };
    return steps;
}

class VecAdd final : public App {
  public:
    std::string name() const override { return "vecadd"; }
    int group_dims() const override { return 1; }
    std::string description() const override { return "c = a + b, float32 (memory bound)"; }
    const std::vector<Step>& steps() const override { return vecadd_steps(); }
    std::vector<std::size_t> default_size() const override { return {1u << 22}; }
    // a, b, c: 12 bytes per value; 2^28 values (3 GiB) at most on a GPU.
    SizeModel size_model() const override {
        return {.app = "vecadd",
                .dims = 1,
                .bytes_per_item = 12,
                .gpu_cap = std::size_t{1} << 28,
                .cpu_cap = std::size_t{1} << 24,
                .sim_size = std::size_t{1} << 12,
                .index_cap = std::size_t{1} << 30};
    }

    Result run(Device& dev, const Variant& v, const RunConfig& cfg) const override {
        StepRun s(dev, *this, v, cfg);
        Result& r = s.r;
        const std::size_t n = cfg.size.empty() ? auto_size(dev.info())[0] : cfg.size.at(0);
        if (cfg.size.size() > 1)
            throw Error::usage("vecadd takes one size (the vector length), got " +
                               dims_label(cfg.size));
        if (n > static_cast<std::size_t>(INT32_MAX))
            throw Error::usage("vecadd size " + std::to_string(n) + " is over 2^31-1 elements");
        const int ni = static_cast<int>(n);
        r.size_label = std::to_string(n);
        BuildOptions opts;
        opts.defines = cfg.defines;
        add_step_defines(name(), v, opts, dev.info(), cfg);
        // The group: --local as given (or an error), else 256 where the kernel allows it, else
        // the largest that it does.
        if (cfg.local)
            s.shape().local = pick_local(cfg, *cfg.local, s.build_as_given(opts));
        else
            s.build(opts);
        Kernel& kernel = s.kernel();

        // a, b and c together before any is made (each alone may fit); a CPU device's buffers
        // are host memory too.
        check_host_fits(n, 3 * sizeof(float) * (is_cpu(dev.info()) ? 2 : 1),
                        "vecadd's a, b and c (and a CPU device's copies)");
        check_device_alloc(dev.info(), double(n) * sizeof(float), "vecadd's a");
        const auto a_in = shared_floats(n, cfg.seed), b_in = shared_floats(n, cfg.seed + 1);
        const auto &a = *a_in, &b = *b_in;
        auto da = s.upload(a_in), db = s.upload(b_in);
        auto dc = s.output(n * sizeof(float));

        const auto local = s.shape().local;
        const auto* hooks = hooks_of<VecaddHooks>(v); // the step's work-items for n elements
        const std::size_t items = hooks && hooks->items ? hooks->items(n, dev.info(), cfg) : n;
        Range range = Range(round_up(items, local[0])).local(local[0]);
        r.local_label = std::to_string(local[0]);
        Queue& q = s.queue();
        s.time([&] {
            auto e = q.launch(kernel, range, *da, *db, *dc, ni);
            return std::pair{e, e};
        });
        const auto& c = s.download<float>(*dc, n);
        r.bytes = 3.0 * n * sizeof(float);

        check(r, a, b, c, cfg);
        s.check_guards();
        return s.finish(size_model());
    }

    Result run_native(const RunConfig& cfg, const std::string& variant) const override {
        const auto t0 = std::chrono::steady_clock::now();
        const std::size_t n = size_of(cfg.size);
        Result r = native_result(name(), native_variant(variant), {n}, cfg);
        check_host_fits(n, 3 * sizeof(float), "vecadd's a, b and c");
        const auto a_in = shared_floats(n, cfg.seed), b_in = shared_floats(n, cfg.seed + 1);
        const auto &a = *a_in, &b = *b_in;
        std::vector<float> c(n);
        r.kernel_ms = r.host_ms =
            time_on_host(cfg, [&] { native::vecadd(a.data(), b.data(), c.data(), n); });
        r.bytes = 3.0 * n * sizeof(float);
        check(r, a, b, c, cfg);
        r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        return r;
    }

  private:
    static std::size_t size_of(const std::vector<std::size_t>& size) {
        if (size.size() != 1)
            throw Error::usage("vecadd takes one size (the vector length), got " +
                               dims_label(size));
        if (size[0] > static_cast<std::size_t>(INT32_MAX))
            throw Error::usage("vecadd size " + std::to_string(size[0]) +
                               " is over 2^31-1 elements");
        return size[0];
    }

    // The check of every row, device or native: c = a + b exactly.
    static void check(Result& r, std::span<const float> a, std::span<const float> b,
                      std::span<const float> c, const RunConfig& cfg) {
        r.error_kind = "abs";
        r.tolerance = 0; // one IEEE add, correctly rounded on every device
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        // one correctly rounded float add
        const auto ref = [&](std::size_t i) { return double(float(double(a[i]) + double(b[i]))); };
        if (cfg.verify == Verify::full) { // every element in one pass, no index or reference arrays
            compare_all(r, c, ref);
            return;
        }
        const auto idx = check_indices(c.size(), cfg.verify, cfg.seed);
        compare_each(
            r, c, idx.size(), [&](std::size_t t) { return idx[t]; },
            [&](std::size_t t) { return ref(idx[t]); });
        if (!(r.sampled = r.verified && idx.size() < c.size()))
            return;
        // The rest as sums of 64, plain and random-weighted: each must equal the sum of the
        // correctly rounded adds.
        check_sums(r, c, exact_block_sums(c.size(), 64, ref, cfg.seed));
    }
};

} // namespace

const App& vecadd_app() {
    static const VecAdd app;
    return app;
}

} // namespace duet::apps
