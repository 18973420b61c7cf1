// reduction: the sum of n values through the classic ladder of M. Harris ("Optimizing Parallel
// Reduction in CUDA"), in int32 and float32, both checked exactly (reduction_floats: float values
// whose sums are exact in any order, so a value the kernel lost fails the run).
//
// Variants: each of the nine steps exists for both types, named STEP_i32 and STEP_f32 (kernels
// reduce_STEP_i32 / reduce_STEP_f32 in kernels_cl/reduction.cl and kernels_cu/reduction.cu).
// `runapp run reduction` runs all eighteen, the int ladder first, then the float ladder;
// `--variant sequential_i32,grid_stride_f32` picks some.
//
// Multi-pass variants reduce by one work-group's share per pass (ping-ponging between two
// partial-sum buffers) until one value is left, and all the passes of one run are timed together
// (first launch's start to last launch's end). The input is never written, so every run reduces
// the same data.
#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "auto_size.hpp"
#include "cpu_steps.hpp"
#include "device_kind.hpp"
#include "device_profile.hpp"
#include "native/native.hpp"
#include "native/reference.hpp"
#include "reduction.hpp"

namespace duet::apps {
namespace {

struct Pass {
    std::size_t items, groups; // values reduced, work-groups launched (= values left)
};

class Reduction final : public App {
  public:
    std::string name() const override { return "reduction"; }
    int group_dims() const override { return 1; }
    std::string description() const override {
        return "sum of n values, int32 (exact) and float32, Harris's ladder (memory bound)";
    }
    const std::vector<Step>& steps() const override { return reduction_steps(); }
    std::vector<std::size_t> default_size() const override { return {1u << 22}; }
    // 4 bytes per value (int or float); 2^28 values on a GPU, 2^22 on a CPU device (eighteen
    // variants: the ladder in ~10 s on 2 cores); int indices.
    SizeModel size_model() const override {
        return {.app = "reduction",
                .dims = 1,
                .bytes_per_item = 4,
                .gpu_cap = std::size_t{1} << 28,
                .cpu_cap = std::size_t{1} << 22,
                .sim_size = std::size_t{1} << 12,
                .index_cap = std::size_t{1} << 30};
    }
    std::vector<std::size_t> tune_size(const DeviceInfo& info) const override {
        return {is_gpu(info) ? std::size_t{1} << 26 : std::size_t{1} << 22};
    }

    Result run(Device& dev, const Variant& v, const RunConfig& cfg) const override {
        const auto* hooks = hooks_of<ReductionHooks>(v);
        if (hooks && hooks->run)
            return hooks->run(dev, *this, v, cfg); // det_f32: reduction_det.cpp
        return hooks && hooks->ints ? run_typed<int>(dev, v, cfg) : run_typed<float>(dev, v, cfg);
    }

    // The native row of the step's type (its record's hooks).
    std::string native_variant(const std::string& variant) const override {
        return ints(variant) ? "native_i32" : "native_f32";
    }

    // The native reference: each thread sums a contiguous part in 32 lanes (vectorised), then the
    // lanes and the threads' sums are added in turn. Checked as the device rows are: the int sum
    // exactly, the float sum against the same gamma bound for the native summation's depth.
    Result run_native(const RunConfig& cfg, const std::string& variant) const override {
        const auto t0 = std::chrono::steady_clock::now();
        if (cfg.size.size() != 1 || cfg.size[0] < 1 || cfg.size[0] > std::size_t(INT32_MAX))
            throw Error::usage("reduction takes one size, 1 .. 2^31-1 values, got " +
                               dims_label(cfg.size));
        const std::size_t n = cfg.size[0];
        const bool is_int = ints(variant);
        Result r = native_result(name(), native_variant(variant), {n}, cfg);
        double got = 0, ref = 0;
        std::int64_t exact = 0;
        if (is_int) {
            const auto problem = reduction_problem<int>(n, cfg.seed);
            const auto& host = *problem.input;
            exact = problem.sums.exact;
            std::int32_t sum = 0;
            r.kernel_ms = r.host_ms =
                time_on_host(cfg, [&] { sum = native::reduce_i32(host.data(), n); });
            got = double(sum);
            r.error_kind = "abs";
            r.tolerance = 0;
        } else {
            const auto problem = reduction_problem<float>(n, cfg.seed);
            const auto& host = *problem.input;
            ref = problem.sums.ref;
            float sum = 0;
            r.kernel_ms = r.host_ms =
                time_on_host(cfg, [&] { sum = native::reduce_f32(host.data(), n); });
            got = double(sum);
            r.error_kind = "abs";
            r.tolerance = problem.slack;
        }
        r.bytes = double(n) * 4;
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            r.max_error = is_int ? std::fabs(got - double(exact)) : std::fabs(got - ref);
            r.pass = r.max_error <= r.tolerance; // NaN fails
        }
        r.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count();
        return r;
    }

  private:
    // Whether the step called `variant` sums int32 values (its record's hooks; float32 else).
    bool ints(const std::string& variant) const {
        for (const auto& s : steps())
            if (s.name == variant) {
                const auto* hooks = hooks_of<ReductionHooks>(s);
                return hooks && hooks->ints;
            }
        return false;
    }

    template <class T> Result run_typed(Device& dev, const Variant& v, const RunConfig& cfg) const {
        constexpr bool is_int = std::is_same_v<T, int>;
        StepRun s(dev, *this, v, cfg);
        Result& r = s.r;
        const ReductionStep& step = reduction_step_of(v);
        const DeviceInfo& info = dev.info();
        const DeviceProfile profile = profile_of(info); // the build switches its kernels take
        auto [n, ls] = checked_shape<T>(info, v, step, cfg);
        const BuildPlan b = build_plan(info, profile, v, step, cfg, ls);
        // The group: --local as given (or an error), else 256 where the kernel allows it, else
        // the largest power of two that it does (reduction_steps.cpp).
        if (cfg.local) {
            BuildOptions opts = b.opts;
            if (b.wg_define)
                opts.defines.emplace_back("WG", std::to_string(ls));
            const auto shapes = shapes_of(v, cfg, info); // their RED_PER
            for (const auto& d : shapes.front().defines)
                if (d.first != "WG" && !user_sets(cfg, {d.first}))
                    opts.defines.push_back(d);
            // pick_local checks the kernel's limit
            s.shape().local = pick_local(cfg, {ls, 1}, s.build_as_given(opts));
        } else {
            // WG with each shape, or the user's WG fixing the group (reduction_steps.cpp)
            s.build(b.opts);
            ls = s.shape().local[0];
            if (!r.note.empty()) // the shape's note, then this app's own parts
                r.note += "; ";
        }
        Kernel& kernel = s.kernel();
        r.size_label = std::to_string(n);
        r.local_label = std::to_string(s.shape().local[0]);

        // Ints in [-hi, hi] (reduction_int_range: no partial sum can overflow int32); floats whose
        // sums are exact in any order (reduction_problem<float>), so a lost value fails.
        const int hi = reduction_int_range(n);
        const auto problem = reduction_problem<T>(n, cfg.seed);
        const std::vector<Pass> passes = plan_passes(info, step, cfg, n, ls, b.chunk_step);
        auto din = s.upload(problem.input);
        const bool atomic = step.split == Split::grid_atomic;
        const T result = run_passes<T>(s, kernel, *din, passes, ls, atomic);
        r.bytes = double(n) * sizeof(T); // each input value read once; partial sums are noise

        // ---- check ----
        r.error_kind = "abs";
        // Integer addition is exact and (see above) cannot overflow; the float values are
        // chosen so that their float sum is exact too, in any order (reduction_floats).
        const double slack = problem.slack; // what the float sum may be off by
        r.tolerance = slack;
        if constexpr (!is_int)
            r.note += slack == 0 ? "f32 values: multiples of a power of two whose sums are exact; "
                                 : "f32 values +-1/2 (sums exact unless a partial sum reaches "
                                   "2^23); ";
        r.verified = cfg.verify != Verify::off;
        r.pass = true;
        if (r.verified) {
            const double err = is_int ? std::fabs(double(std::int64_t(result) - problem.sums.exact))
                                      : std::fabs(double(result) - problem.sums.ref);
            r.max_error = err;
            r.pass = err <= r.tolerance; // NaN (a poisoned, unwritten result) fails
        }
        s.check_guards(); // a pass that wrote past its partial sums fails

        r.note += passes_note(passes, atomic, v.needs.sub_groups == SubGroups::uses,
                              profile.takes_define("DUET_HAS_SUBGROUPS"), b.subgroups);
        if constexpr (is_int)
            r.note += ", values in [" + std::to_string(-hi) + ", " + std::to_string(hi) + "]";
        return s.finish(size_model());
    }

    // The number of values and the work-group size asked for (--size, --local), checked before
    // anything is made.
    template <class T>
    std::pair<std::size_t, std::size_t> checked_shape(const DeviceInfo& info, const Variant& v,
                                                      const ReductionStep& step,
                                                      const RunConfig& cfg) const {
        if (cfg.size.size() > 1)
            throw Error::usage("reduction takes one size (the number of values), got " +
                               dims_label(cfg.size));
        const std::size_t n = cfg.size.empty() ? auto_size(info)[0] : cfg.size[0];
        if (n < 1 || n > static_cast<std::size_t>(INT32_MAX))
            throw Error::usage("reduction size " + std::to_string(n) +
                               " is outside 1 .. 2^31-1 values");
        if (cfg.local && (*cfg.local)[1] != 1)
            throw Error::usage("reduction is one-dimensional: give --local N, not a WxH shape");
        // The values on the host (and a CPU device's copy), before anything is made.
        check_host_fits(n, sizeof(T) * (is_cpu(info) ? 2 : 1),
                        "reduction's values (and a CPU device's copy)");
        check_device_alloc(info, double(n) * sizeof(T), "reduction's values");
        const bool chunk = step.split == Split::chunk; // any group size, 1 by default
        const std::size_t ls = cfg.local ? (*cfg.local)[0] : chunk ? 1 : 256;
        if (!chunk && (ls < 2 || !std::has_single_bit(ls)))
            throw Error::usage("reduction needs a power-of-two work-group size of at least 2 "
                               "(its trees halve the group each step), got " +
                               std::to_string(ls));
        if (step.wg_define && ls > 1024)
            throw Error::usage("reduction " + v.name +
                               ": the unrolled tree goes up to work-groups of 1024, got " +
                               std::to_string(ls));
        return {n, ls};
    }

    // The step's build options: the user's defines, the sub-group switch, the device profile's
    // defines for the step and a CPU step's widths. WG is added with --local (wg_define).
    struct BuildPlan {
        BuildOptions opts;
        bool wg_define = false;     // WG comes with each shape (reduction_shapes)
        bool subgroups = false;     // the OpenCL sub-group path is compiled in
        std::size_t chunk_step = 0; // a CPU step's CPU_VW x CPU_ACC values per step of a work-item
    };
    BuildPlan build_plan(const DeviceInfo& info, const DeviceProfile& profile, const Variant& v,
                         const ReductionStep& step, const RunConfig& cfg, std::size_t ls) const {
        BuildPlan b;
        b.opts.defines = cfg.defines;
        const auto user_define = [&](const char* name) {
            return std::find_if(b.opts.defines.begin(), b.opts.defines.end(),
                                [&](const auto& d) { return d.first == name; });
        };
        // WG and the sub-group switch only exist in OpenCL C: CUDA gets the block size from
        // blockDim (a switch to the template instance) and always has warp shuffles, so the
        // embedded fat binary is used as is.
        if (profile.takes_define("WG") && step.wg_define) {
            if (auto it = user_define("WG"); it != b.opts.defines.end()) {
                if (it->second != std::to_string(ls))
                    throw Error::usage("define WG=" + it->second +
                                       " differs from the work-group size " + std::to_string(ls) +
                                       "; set the size with --local instead");
            } else {
                b.wg_define = true;
            }
        }
        if (profile.takes_define("DUET_HAS_SUBGROUPS") && v.needs.sub_groups == SubGroups::uses) {
            if (auto it = user_define("DUET_HAS_SUBGROUPS"); it != b.opts.defines.end()) {
                b.subgroups = it->second != "0"; // a user's 0 forces the fallback, to compare
            } else if (has_subgroups(info) && ls >= 4) {
                // (A group of 2 gains nothing from sub-groups, and PoCL 5.0 cannot build
                // sub-group kernels for it: undefined __pocl_work_group_alloca.)
                b.opts.defines.emplace_back("DUET_HAS_SUBGROUPS", "1");
                b.subgroups = true;
            }
        }
        // The cpu steps' widths (their records' hooks), then the device profile's defines for
        // the step (NVIDIA's OpenCL, which takes inline PTX: atomic_f32 with the red.global
        // instruction CUDA's atomicAdd is; the last six tree steps of unroll_* and grid_stride_*
        // with bar.warp.sync, as CUDA's __syncwarp, on 32-wide warps; kernels_cl/reduction.cl). A
        // user's define of the same name stands (0 keeps the compare-and-swap loop or the
        // barriers, to compare).
        add_step_defines(name(), v, b.opts, info, cfg);
        if (step.split == Split::chunk)
            b.chunk_step = cpu_vector_width(info, cfg) * cpu_accumulators(cfg);
        return b;
    }

    // The passes, each reducing its values to one partial sum per group. Grid-stride steps
    // launch enough groups to fill the device (about 2048 work-items per compute unit), never
    // more than the input needs; the second pass is one group, which walks the few thousand
    // partial sums at most, so they never take a third launch.
    std::vector<Pass> plan_passes(const DeviceInfo& info, const ReductionStep& step,
                                  const RunConfig& cfg, std::size_t n, std::size_t ls,
                                  std::size_t chunk_step) const {
        const bool chunk = step.split == Split::chunk;
        const std::size_t cap = std::max<std::size_t>(
            1, std::size_t(std::max(info.compute_units, 1)) * std::max<std::size_t>(1, 2048 / ls));
        std::vector<Pass> passes;
        for (std::size_t m = n;;) {
            const bool grid = step.split == Split::grid || step.split == Split::grid_atomic;
            const std::size_t per_group = step.split == Split::one ? ls
                                          : grid                   ? red_per(cfg) * ls
                                          : chunk                  ? chunk_step * ls
                                                                   : 2 * ls;
            std::size_t g = (m + per_group - 1) / per_group;
            if (grid)
                g = passes.empty() ? std::min(g, cap) : 1;
            // A few chunks per compute unit (more where the device bounds loops), then one group
            // adds their sums.
            if (chunk) {
                const std::size_t bound =
                    (loop_bound_items(info, m / chunk_step + 1) + ls - 1) / ls;
                g = passes.empty()
                        ? std::min(g, std::max({std::size_t{1}, cpu_tasks(info, cfg, name()) / ls,
                                                bound}))
                        : 1;
            }
            passes.push_back({m, g});
            m = g;
            if (m == 1 || step.split == Split::grid_atomic)
                break;
        }
        return passes;
    }

    // The timed runs of every pass (all the passes of one run timed together); the sum they give.
    template <class T>
    static T run_passes(StepRun& s, Kernel& kernel, const Buffer& din,
                        const std::vector<Pass>& passes, std::size_t ls, bool atomic) {
        // The partial sums, each with guard zones on both sides (checked after the run).
        // (Poisoned by a write, as every output: Oclgrind 21.10 reports reads of a buffer filled
        // with clEnqueueFillBuffer and then written by a kernel as uninitialised, and the second
        // pass reads exactly such a buffer.)
        const std::size_t part_count[2] = {atomic ? 1 : passes[0].groups,
                                           passes.size() > 1 ? passes[1].groups : 1};
        Buffer* part[2] = {s.output(part_count[0] * sizeof(T)),
                           s.output(part_count[1] * sizeof(T))};
        Queue& q = s.queue();
        std::vector<Range> ranges;
        for (const Pass& p : passes)
            ranges.push_back(Range(p.groups * ls).local(ls));
        const auto scratch = duet::local(ls * sizeof(T));
        s.time([&] {
            Event first, last;
            if (atomic) { // the sum starts from zero every run (a blocking write, not timed)
                const T zero = T(0);
                q.write_bytes(*part[0], &zero, sizeof(T));
            }
            for (std::size_t i = 0; i < passes.size(); ++i) {
                const Buffer& in = i == 0 ? din : *part[(i - 1) % 2];
                Buffer& out = *part[i % 2];
                last = q.launch(kernel, ranges[i], in, out, static_cast<int>(passes[i].items),
                                scratch);
                if (!first.valid())
                    first = last;
            }
            return std::pair{first, last};
        });
        return s.download<T>(*part[(passes.size() - 1) % 2], 1)[0];
    }

    // What the reader must know: the passes and their groups, the atomic's zeroing, and the path
    // of a step that sums within a sub-group.
    static std::string passes_note(const std::vector<Pass>& passes, bool atomic,
                                   bool uses_group_sum, bool takes_subgroup_switch,
                                   bool subgroups) {
        std::string groups;
        for (const Pass& p : passes)
            groups += (groups.empty() ? "" : ", ") + std::to_string(p.groups);
        std::string note = std::to_string(passes.size()) +
                           (passes.size() == 1 ? " pass" : " passes") + " (" + groups +
                           (passes.size() == 1 && passes[0].groups == 1 ? " group)" : " groups)");
        if (atomic)
            note += ", the sum is zeroed before each run (not timed)";
        if (uses_group_sum)
            note += !takes_subgroup_switch ? ", warp shuffles (__shfl_down_sync)"
                    : subgroups            ? ", sub-groups (sub_group_reduce_add)"
                                           : ", no sub-group functions (cl_khr_subgroups or "
                                             "cl_intel_subgroups): local-memory tree";
        return note;
    }
};

} // namespace

const App& reduction_app() {
    static const Reduction app;
    return app;
}

} // namespace duet::apps
