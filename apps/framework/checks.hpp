#pragma once
// Honest results: poisoned outputs, how far a check goes and what
// it compares, the input-perturbing test hook, and the device's plausible ceilings.
#include <cmath>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"

namespace duet::apps {

// Fills a buffer with NaN bytes (0xFF) so an output the kernel never wrote cannot pass.
void poison(Queue& q, Buffer& buf);
// The device's plausible ceilings, with generous margins, from its reported clocks and units
// (0 = unknown): FLOP/s as 1024 flops per cycle per compute unit (4x a 128-lane FMA SM or two
// AVX-512 FMA ports), bytes/s as 2x the memory's peak or, unreported, 512 bytes per cycle per
// compute unit (above any L1).
struct Ceiling {
    double gflops = 0, gbs = 0;
};
Ceiling plausible_ceiling(const DeviceInfo& info);
// Marks r implausible (with a note) when its figure is over the ceiling on the clock used; a
// figure over it on the device's events but not on the host's takes the host's.
void check_plausible(Result& r, const Ceiling& c);

// The verification level to use at `work` CPU multiply-adds: cfg.verify, unless full is over
// `limit` and over a few seconds of estimated CPU time on this host. Then, when the user asked for
// full (cfg.verify_explicit), full if the estimate is at most a minute of CPU time, else a usage
// Error saying how long it would take; by default, sample with a note in r.
Verify verify_level(const RunConfig& cfg, double work, double limit, Result& r,
                    const std::string& app);
// The test hook RunConfig::perturb_input: changes the last element of input `which` on the device.
void perturb(const RunConfig& cfg, int which, Queue& q, Buffer& buf, std::size_t elem_bytes);
// Indices to check: all of [0, n) for Verify::full, an even spread of up to 4096 for sample.
std::vector<std::size_t> check_indices(std::size_t n, Verify v, std::uint64_t seed);
// Checks out[indices[t]] against ref[t]: the error is |out - ref|, divided by scale[t] when a
// scale is given. Sets r.max_error and r.pass (a NaN, i.e. an output never written, fails).
// Every element of `out` is also scanned for NaN/Inf, sampled or not.
void compare_outputs(Result& r, std::span<const float> out, const std::vector<std::size_t>& indices,
                     const std::vector<double>& ref, const std::vector<double>* scale = nullptr);
// Scans every element of `out` for NaN/Inf on every core; the first one (lowest index) fails r
// with a note naming it. True when all are finite.
bool all_finite(Result& r, std::span<const float> out);
// The largest error of `count` checks, err(t) for t in [0, count), computed on every core; NaN
// when any err(t) is NaN.
// (A template, so that err is inlined into the loop: a check costs what reading the output does.)
template <class Err> double max_error_of(std::size_t count, Err err) {
    std::mutex mutex;
    double worst = 0;
    parallel_for(count, std::size_t{1} << 14, [&](std::size_t begin, std::size_t end) {
        double part = 0;
        for (std::size_t t = begin; t < end; ++t) {
            const double e = err(t);
            if (std::isnan(e) || e > part)
                part = e;
            if (std::isnan(part))
                break;
        }
        std::lock_guard lock(mutex);
        if (std::isnan(part) || part > worst)
            worst = part;
    });
    return worst;
}
// compare_outputs without index or reference arrays: scans `out` (all_finite), then checks
// out[index(t)] against ref(t) for t in [0, count), every core taking a part.
template <class Index, class Ref>
void compare_each(Result& r, std::span<const float> out, std::size_t count, Index index, Ref ref) {
    r.pass = true;
    r.max_error = 0;
    if (!all_finite(r, out))
        return;
    r.max_error = max_error_of(
        count, [&](std::size_t t) { return std::fabs(double(out[index(t)]) - ref(t)); });
    r.pass = !std::isnan(r.max_error) && r.max_error <= r.tolerance;
}
// compare_each over every element, out[i] against ref(i) for i in [0, out.size()), in one pass:
// a NaN or Inf in `out` shows as a non-finite error, and only then is `out` scanned again
// (all_finite) for the note naming the first one. The same outcome as compare_each with the
// identity index, at the cost of reading the output once.
template <class Ref> void compare_all(Result& r, std::span<const float> out, Ref ref) {
    r.pass = true;
    r.max_error = 0;
    const double worst =
        max_error_of(out.size(), [&](std::size_t i) { return std::fabs(double(out[i]) - ref(i)); });
    if (!std::isfinite(worst) && !all_finite(r, out))
        return;
    r.max_error = worst;
    r.pass = !std::isnan(worst) && worst <= r.tolerance;
}
} // namespace duet::apps
