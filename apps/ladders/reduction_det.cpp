// reduction's det_f32 step: a float sum with the same bits on every run, every work-group size,
// every device and both kernel languages (kernels_cl/reduction_det.cl, kernels_cu/reduction_det.
// cu, which say how). The host's part: the passes follow from n alone (det_plan: never from the
// device's compute units, or two devices would add in different orders), the run is repeated
// after the timing and every repeat must give the first run's bits, and the check holds the sum
// to the compensated summation's bound. The note gives the sum's bits, so that runs on other
// devices or backends can be compared.
#include "reduction_det.hpp"
#include "reduction.hpp"

#include <algorithm>
#include <bit>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "auto_size.hpp"
#include "device_kind.hpp"

namespace duet::apps {

namespace {

constexpr std::size_t det_lanes = 256; // the kernels' DET_LANES

std::size_t chunk_floats(const RunConfig& cfg) {
    return define_or(cfg, "reduction", "DET_FLOATS", 16384);
}
std::size_t chunk_pairs(const RunConfig& cfg) {
    return define_or(cfg, "reduction", "DET_PAIRS", 4096);
}

// The kernels' chunk macros (they have no defaults): a group's values and pairs.
Defines chunk_defines(const RunConfig& cfg) {
    return {{"DET_FLOATS", std::to_string(chunk_floats(cfg))},
            {"DET_PAIRS", std::to_string(chunk_pairs(cfg))}};
}

// Additions (compensated) any value goes through: per pass its lane's chain and the tree.
std::size_t det_depth(const std::vector<DetPass>& passes, const RunConfig& cfg) {
    std::size_t d = 0;
    for (const DetPass& p : passes)
        d += (p.pairs ? chunk_pairs(cfg) : chunk_floats(cfg)) / det_lanes +
             std::size_t(std::countr_zero(det_lanes));
    return d;
}

} // namespace

std::vector<DetPass> det_plan(std::size_t n, const RunConfig& cfg) {
    const std::size_t cf = chunk_floats(cfg), cp = chunk_pairs(cfg);
    if (cf % (4 * det_lanes) != 0 || cp % det_lanes != 0)
        throw Error::usage("reduction det_f32: DET_FLOATS must be a multiple of 1024 and "
                           "DET_PAIRS of 256 (whole float4s or pairs per lane)");
    std::vector<DetPass> out{{n, (n + cf - 1) / cf, false}};
    while (out.back().groups > 1) {
        const std::size_t m = out.back().groups;
        out.push_back({m, (m + cp - 1) / cp, true});
    }
    return out;
}

Step det_f32_step() {
    return {.name = "det_f32",
            .kernel = "reduce_det_f32",
            .description = "deterministic: fixed chunks of 16384 per group, 256 lanes in a fixed "
                           "tree, compensated (TwoSum) additions; the same bits on every device, "
                           "group size and backend",
            .shapes =
                [](const RunConfig& cfg, const DeviceInfo&) {
                    auto shapes = halving_shapes({cfg.local ? (*cfg.local)[0] : det_lanes, 1});
                    for (Shape& s : shapes) {
                        s.local_bytes = 2 * det_lanes * sizeof(float); // the lanes' (sum, error)
                        s.defines = chunk_defines(cfg);
                    }
                    return shapes;
                },
            .hooks =
                [] {
                    auto h = std::make_shared<ReductionHooks>();
                    h->run = run_det_f32;
                    return h;
                }()};
}

Result run_det_f32(Device& dev, const App& app, const Step& v, const RunConfig& cfg) {
    StepRun s(dev, app, v, cfg);
    Result& r = s.r;
    const DeviceInfo& info = dev.info();
    if (cfg.size.size() > 1)
        throw Error::usage("reduction takes one size (the number of values), got " +
                           dims_label(cfg.size));
    const std::size_t n = cfg.size.empty() ? app.auto_size(info)[0] : cfg.size[0];
    if (n < 1 || n > static_cast<std::size_t>(INT32_MAX))
        throw Error::usage("reduction size " + std::to_string(n) +
                           " is outside 1 .. 2^31-1 values");
    if (cfg.local && ((*cfg.local)[1] != 1 || (*cfg.local)[0] > det_lanes))
        throw Error::usage("reduction det_f32 takes --local N with N <= 256 (its 256 lanes are "
                           "shared by the group's work-items; more would idle)");
    BuildOptions opts;
    opts.defines = cfg.defines;
    for (auto& d : chunk_defines(cfg)) // the shapes carry them too; --local builds as given
        if (!user_sets(cfg, {d.first}))
            opts.defines.push_back(std::move(d));
    if (cfg.local)
        s.shape().local = pick_local(cfg, *cfg.local, s.build_as_given(opts));
    else
        s.build(opts);
    Kernel& kernel = s.kernel();
    const std::size_t ls = s.shape().local[0];
    r.size_label = std::to_string(n);
    r.local_label = std::to_string(ls);

    const auto passes = det_plan(n, cfg);
    const auto problem = reduction_problem<float>(n, cfg.seed); // the float steps' input
    const double ref = problem.sums.ref, abs_sum = problem.sums.abs_sum;
    auto din = s.upload(problem.input);
    // Two buffers of (sum, error) pairs, ping-ponged; each pass's groups write one pair each.
    const std::size_t pairs0 = passes[0].groups, pairs1 = passes.size() > 1 ? passes[1].groups : 1;
    Buffer* part[2] = {s.output(2 * pairs0 * sizeof(float)), s.output(2 * pairs1 * sizeof(float))};
    Queue& q = s.queue();
    const auto launch_all = [&] {
        Event first, last;
        for (std::size_t i = 0; i < passes.size(); ++i) {
            const Buffer& in = i == 0 ? *din : *part[(i - 1) % 2];
            last = q.launch(kernel, Range(passes[i].groups * ls).local(ls), in, *part[i % 2],
                            static_cast<int>(passes[i].items), passes[i].pairs ? 1 : 0);
            if (!first.valid())
                first = last;
        }
        return std::pair{first, last};
    };
    const Buffer& result = *part[(passes.size() - 1) % 2];
    // The sum is s + c of the last pair, one float addition (the same on every host).
    const auto read_sum = [&] {
        const auto pair = s.download<float>(result, 2);
        return pair[0] + pair[1];
    };
    s.time(launch_all);
    const float sum = read_sum();
    s.check_guards();
    // Repeats, untimed: every one must give the first run's bits.
    const int repeats = std::max(cfg.reps, 1);
    int differing = 0;
    for (int i = 0; i < repeats; ++i) {
        launch_all();
        if (std::bit_cast<std::uint32_t>(read_sum()) != std::bit_cast<std::uint32_t>(sum))
            ++differing;
    }
    r.bytes = double(n) * sizeof(float);

    // The check. Every TwoSum is exact (t + e = s + x), so the error is that of adding up the
    // e's into c (depth D additions of values each below u times a partial sum: within D^2 u^2
    // sum|x|, doubled for the (1 + u) factors) plus the last rounding of s + c (u |sum|); the
    // double reference adds its own tiny bound.
    const std::size_t depth = det_depth(passes, cfg);
    const double u = std::ldexp(1.0, -24), ud = std::ldexp(1.0, -53);
    const double d = double(depth);
    const double nd = double(n) * ud;
    r.error_kind = "abs";
    r.tolerance = 2 * u * std::fabs(ref) + 2 * d * d * u * u * abs_sum + nd / (1 - nd) * abs_sum;
    r.verified = cfg.verify != Verify::off;
    r.pass = differing == 0;
    if (r.verified) {
        r.max_error = std::fabs(double(sum) - ref);
        r.pass = r.pass && r.max_error <= r.tolerance; // NaN fails
    }
    const double plain = d * u / (1 - d * u) * abs_sum; // a plain float sum of the same depth
    const double ulp = std::ldexp(1.0, std::ilogb(std::fabs(double(sum)) + FLT_MIN) - 23);
    char buf[400];
    std::snprintf(buf, sizeof buf,
                  "sum %.9g, bits 0x%08x; same bits in %d of %d repeated runs; error vs FP64 "
                  "%.3g (%.2f ulp of the sum; a plain float sum of this depth may be off by "
                  "%.3g); %zu passes (%zu groups first), %zu compensated additions per value",
                  double(sum), std::bit_cast<std::uint32_t>(sum), repeats - differing, repeats,
                  std::fabs(double(sum) - ref), std::fabs(double(sum) - ref) / ulp, plain,
                  passes.size(), passes[0].groups, depth);
    s.note(buf);
    return s.finish(app.size_model());
}

} // namespace duet::apps
