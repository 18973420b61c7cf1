// Honest results (checks.hpp): poisoned outputs, how far --verify
// full goes, what is compared, the input-perturbing test hook, and plausible ceilings.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

#include "app.hpp"

namespace duet::apps {

namespace {
// An explicit --verify full is honoured up to this much estimated CPU time, refused beyond.
constexpr double max_full_check_s = 60;
// The default --verify checks everything when that takes at most this much estimated CPU time.
constexpr double auto_full_check_s = 4;

} // namespace

Ceiling plausible_ceiling(const DeviceInfo& info) {
    Ceiling c;
    if (info.compute_units <= 0 || info.clock_mhz <= 0)
        return c;
    const double cycles = double(info.compute_units) * info.clock_mhz * 1e6;
    // 1024 flops per cycle per unit is 4x an SM's float32 FMA rate; matrix units go far beyond
    // (an H100 SM does 2048 TF32 flops a cycle, 4096 bf16): 4096 where the device has them.
    c.gflops = cycles * (info.caps.matrix_units ? 4096 : 1024) / 1e9;
    const double peak = info.peak_bandwidth_gbs();
    c.gbs = peak > 0 ? std::max(2 * peak, cycles * 64 / 1e9) : cycles * 512 / 1e9;
    return c;
}

void check_plausible(Result& r, const Ceiling& c) {
    if (r.skipped)
        return;
    auto over = [&] {
        return (c.gflops > 0 && r.gflops() > c.gflops) || (c.gbs > 0 && r.gbs() > c.gbs);
    };
    if (!over())
        return;
    if (r.clock == "device events" && r.host_ms.median > 0) {
        const Stats device = r.kernel_ms;
        r.kernel_ms = r.host_ms;
        if (!over()) {
            r.clock = "host (events gave " + ms_text(device.median) +
                      ", above the device's plausible peak)";
            return;
        }
        r.kernel_ms = device;
    }
    r.implausible = true;
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "implausible: %.4g ms is above the device's plausible peak (%.0f GFLOP/s, "
                  "%.0f GB/s from its clocks and units); the timer is wrong",
                  r.kernel_ms.median, c.gflops, c.gbs);
    r.note += std::string(r.note.empty() ? "" : "; ") + buf;
}

Verify verify_level(const RunConfig& cfg, double work, double limit, Result& r,
                    const std::string& app) {
    const double cores = std::max(1u, std::thread::hardware_concurrency());
    const double seconds = work / (1e9 * cores); // ~1 G multiply-adds per second per core
    // Full whenever it is cheap: under the app's limit or a few seconds of CPU time on this host.
    if (cfg.verify != Verify::full || work <= limit || seconds <= auto_full_check_s)
        return cfg.verify;
    char cost[200];
    std::snprintf(cost, sizeof cost, "%.3g multiply-adds on the CPU, about %.0f s on %.0f cores",
                  work, seconds, cores);
    if (cfg.verify_explicit && seconds <= max_full_check_s)
        return Verify::full; // asked for: checked fully, if it takes up to a minute
    if (cfg.verify_explicit)
        throw Error::usage(app + ": --verify full at this size needs " + cost +
                           "; use --verify sample (or a smaller --size)");
    r.note += std::string(r.note.empty() ? "" : "; ") +
              "checked a sample (the default --verify; full would need " + cost + ")";
    return Verify::sample;
}

void perturb(const RunConfig& cfg, int which, Queue& q, Buffer& buf, std::size_t elem_bytes) {
    if (cfg.perturb_input != which || buf.size() < elem_bytes)
        return;
    // Bit 6 of every byte flipped: a different value whatever the type (for a float in [-1, 1)
    // it flips the top exponent bit: a huge number).
    std::vector<unsigned char> e(elem_bytes);
    q.read_bytes(buf, e.data(), elem_bytes, buf.size() - elem_bytes);
    for (auto& b : e)
        b = static_cast<unsigned char>(b ^ 0x40);
    q.write_bytes(buf, e.data(), elem_bytes, buf.size() - elem_bytes);
}

void poison(Queue& q, Buffer& buf) {
    // All-ones is a NaN as float and -1 as int. Small buffers are written from the host rather
    // than filled: Oclgrind 21.10 marks memory from clEnqueueFillBuffer as uninitialised once a
    // kernel has rewritten it, and would report false errors in multi-pass kernels (a simulator
    // runs small sizes only). Large ones are filled on the device: a host copy of a GiB output
    // costs a GiB of host memory and a transfer for every variant.
    constexpr std::size_t fill_from = std::size_t{16} << 20;
    const unsigned char ff = 0xFF;
    if (buf.size() >= fill_from) {
        q.fill_bytes(buf, &ff, 1, buf.size());
        return;
    }
    // One block of poison for every write (poison runs before each timed run): made once.
    static const std::vector<unsigned char> bytes(fill_from, ff);
    q.write_bytes(buf, bytes.data(), buf.size());
}

std::vector<std::size_t> check_indices(std::size_t n, Verify v, std::uint64_t seed) {
    std::vector<std::size_t> idx;
    if (v == Verify::off || n == 0)
        return idx;
    if (v == Verify::full || n <= 4096) {
        idx.resize(n);
        std::iota(idx.begin(), idx.end(), std::size_t{0});
        return idx;
    }
    // Sample: both ends (where boundary bugs live) and a seeded random spread between.
    std::mt19937_64 rng(seed ^ 0x5eed);
    std::uniform_int_distribution<std::size_t> dist(0, n - 1);
    for (std::size_t i = 0; i < 512; ++i) {
        idx.push_back(i);
        idx.push_back(n - 1 - i);
    }
    for (int i = 0; i < 3072; ++i)
        idx.push_back(dist(rng));
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    return idx;
}

bool all_finite(Result& r, std::span<const float> out) {
    // The lowest bad index found so far: parts past it stop, so the first one is the one named.
    std::atomic<std::size_t> first{out.size()};
    parallel_for(out.size(), std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end && i < first.load(std::memory_order_relaxed); ++i)
            if (!std::isfinite(out[i])) {
                std::size_t seen = first.load();
                while (i < seen && !first.compare_exchange_weak(seen, i)) {
                }
                return;
            }
    });
    const std::size_t i = first.load();
    if (i == out.size())
        return true;
    r.pass = false;
    r.max_error = std::numeric_limits<double>::infinity();
    r.note += std::string(r.note.empty() ? "" : "; ") + "FAIL: output " + std::to_string(i) +
              " is " + (std::isnan(out[i]) ? "NaN" : "Inf");
    return false;
}

void compare_outputs(Result& r, std::span<const float> out, const std::vector<std::size_t>& indices,
                     const std::vector<double>& ref, const std::vector<double>* scale) {
    r.pass = true;
    r.max_error = 0;
    // Every output element, sampled or not: a NaN or Inf anywhere fails.
    if (!all_finite(r, out))
        return;
    r.max_error = max_error_of(indices.size(), [&](std::size_t t) {
        const double err = std::fabs(double(out[indices[t]]) - ref[t]);
        return scale ? err / (*scale)[t] : err;
    });
    r.pass = !std::isnan(r.max_error) && r.max_error <= r.tolerance;
}

} // namespace duet::apps
