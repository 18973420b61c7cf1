#pragma once
// What one run of one ladder step measured and checked: the row of every table, JSON and CSV.
#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include <duet/duet.hpp>

namespace duet::apps {

// Everything measured in one run of one variant.
struct Result {
    std::string app, variant, device_id, device_name, backend;
    std::string size_label;  // "4096x4096x4096"
    std::string local_label; // "16x16"
    // The dialect of the kernel text built ("opencl-c" on a CUDA device: one text through both
    // APIs, runapp --kernel-text); empty: the device's own language (its twin file).
    std::string kernel_text;
    // The step as tables and pages name its row: "naive", or "naive [opencl-c]" for one text
    // on every device, a row beside the twins' of the same step.
    std::string step_label() const {
        return kernel_text.empty() ? variant : variant + " [" + kernel_text + "]";
    }
    Stats kernel_ms; // kernel time over the timed runs, from the clock `clock` names
    Stats host_ms;   // host steady_clock time of the same runs (launch to completion)
    std::string clock = "device events"; // or "host (events ...)": where kernel_ms came from
    bool implausible = false;      // the figure is above the device's plausible peak; not a result
    double h2d_ms = 0, d2h_ms = 0; // input upload, output download (device events)
    double h2d_bytes = 0, d2h_bytes = 0;
    double wall_ms = 0; // end to end: build, upload, warm-up, timed runs, download, check
    // Where wall_ms went, on the host's clock (ms; the parts add up to it). `setup` is what this
    // row made for every row of its problem: inputs, references and sums, the first upload to
    // its device, output memory, the device's download space and start-up (setup_clock.hpp); 0
    // when it found them made.
    struct WallParts {
        double setup = 0, build = 0, buffers = 0, runs = 0, download = 0, check = 0;
        // Outputs poisoned again before each timed run and probed after it (outside the timed
        // spans; not in `runs`): what honest timing costs the row.
        double poison = 0;
        // Every part with its name in JSON, in order: what writes and reads them.
        static constexpr std::array<std::pair<const char*, double WallParts::*>, 7> named = {{
            {"setup", &WallParts::setup},
            {"build", &WallParts::build},
            {"buffers", &WallParts::buffers},
            {"runs", &WallParts::runs},
            {"download", &WallParts::download},
            {"check", &WallParts::check},
            {"poison", &WallParts::poison},
        }};
        double total() const {
            double t = 0;
            for (const auto& [name, part] : named)
                t += this->*part;
            return t;
        }
    } wall_parts;
    double build_ms = 0;
    bool cache_hit = false;              // the load compiled nothing (provenance is not "compiled")
    std::string provenance = "compiled"; // duet::provenance_name(): compiled, memory_cache, ...
    std::string build_options;
    double flops = 0;       // arithmetic per run (0: not an arithmetic metric)
    double bytes = 0;       // bytes read + written per run (effective bandwidth)
    double pixels = 0;      // output pixels per run (0: not an image app)
    double max_error = 0;   // largest |result - reference| (relative where the app says)
    double tolerance = 0;   // allowed error
    std::string error_kind; // "abs" or "rel"
    bool verified = false;  // false with Verify::off
    // Only a sample of the outputs was compared with the reference (the whole output was still
    // scanned for NaN/Inf and, where the app has them, its sums checked): "PASS (sample)".
    bool sampled = false;
    bool pass = false;    // verified and within tolerance (false when skipped or unverified)
    bool skipped = false; // the device cannot run this variant; `note` says why
    std::uint64_t seed = 0;
    std::string note; // anything the reader must know (e.g. skipped, rounded sizes)
    // Speed-up over the native CPU reference of the same app and size (apps/native/): its median
    // time over this row's; 0 when there is none (no reference run, or either did not pass).
    double x_cpu = 0;
    // The host's native copy bandwidth for this row's bytes (memory-bound apps; 0: not measured).
    double native_copy_gbs = 0;

    // "pass", "fail", "skipped", "unverified" or "implausible": what JSON/CSV carry.
    std::string status() const {
        return skipped             ? "skipped"
               : verified && !pass ? "fail"
               : implausible       ? "implausible"
               : !verified         ? "unverified"
                                   : "pass";
    }
    double gflops() const { return flops > 0 ? flops / (kernel_ms.median * 1e6) : 0; }
    double gbs() const { return bytes > 0 ? bytes / (kernel_ms.median * 1e6) : 0; }
    double mpixels() const { return pixels > 0 ? pixels / (kernel_ms.median * 1e3) : 0; }
};

} // namespace duet::apps
