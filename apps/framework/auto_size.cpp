// --size auto (auto_size.hpp).
#include "auto_size.hpp"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>

#include "device_kind.hpp"

namespace duet::apps {

namespace {

std::string mib(std::uint64_t bytes) {
    return std::to_string((bytes + (1u << 19)) >> 20) + " MiB";
}

// Rough throughput of a GPU for the >= 1 ms estimate: its reported peak bandwidth, or 1 TB/s;
// FP32 FLOP/s from compute units x clock x 256 (128 FMA lanes per SM/CU of recent GPUs), or
// 20 TFLOP/s. Estimates for choosing a size only, never printed as results.
double bandwidth_bps(const DeviceInfo& info) {
    const double gbs = info.peak_bandwidth_gbs();
    return (gbs > 0 ? gbs : 1000.0) * 1e9;
}
double flops_ps(const DeviceInfo& info) {
    return info.compute_units > 0 && info.clock_mhz > 0
               ? double(info.compute_units) * info.clock_mhz * 1e6 * 256
               : 20e12;
}

// The smallest size of the model's granule at or above `n`.
std::size_t round_up(const SizeModel& m, double n) {
    n = std::max(n, 1.0);
    if (m.dims == 1)
        return std::bit_ceil(static_cast<std::size_t>(std::ceil(n)));
    const auto g = static_cast<double>(m.granule);
    return static_cast<std::size_t>(std::ceil(n / g) * g);
}
// The largest size of the model's granule at or below `n`.
std::size_t round_down(const SizeModel& m, double n) {
    if (m.dims == 1)
        return std::bit_floor(static_cast<std::size_t>(std::max(n, 1.0)));
    const auto g = static_cast<double>(m.granule);
    return std::max(m.granule, static_cast<std::size_t>(std::floor(n / g) * g));
}

// The n whose working set is `bytes`.
double n_for_bytes(const SizeModel& m, double bytes) {
    return m.dims == 1   ? bytes / m.bytes_per_item
           : m.dims == 2 ? std::sqrt(bytes / m.bytes_per_item)
                         : std::sqrt(bytes / (3 * m.bytes_per_item));
}

} // namespace

std::uint64_t llc_bytes(const DeviceInfo& info) {
    return info.global_mem_cache_bytes ? info.global_mem_cache_bytes : std::uint64_t{4} << 20;
}

bool is_simulator(const DeviceInfo& info) {
    return info.caps.simulator;
}

AutoSize choose_size(const SizeModel& m, const DeviceInfo& info) {
    AutoSize a;
    if (is_simulator(info)) {
        a.n = m.sim_size;
        a.note = "auto: a small size on a simulator";
        return a;
    }
    const std::uint64_t llc = llc_bytes(info);
    // Working set at least 4x the last-level cache.
    double n = n_for_bytes(m, 4.0 * double(llc));
    std::string why = "auto: working set >= 4x the " + mib(llc) +
                      (info.global_mem_cache_bytes ? "" : " (assumed)") + " last-level cache";
    const bool cpu = is_cpu(info);
    if (!cpu) { // long enough to time: about 1 ms per launch
        const double ms_n = m.flops_per_item > 0
                                ? std::cbrt(1e-3 * flops_ps(info) / m.flops_per_item)
                                : n_for_bytes(m, 1e-3 * bandwidth_bps(info));
        if (ms_n > n) {
            n = ms_n;
            why += ", ~1 ms per launch";
        }
    }
    std::size_t size = round_up(m, n);
    const std::size_t cap = cpu ? m.cpu_cap : m.gpu_cap;
    if (size > cap) {
        size = cap;
        why += cpu ? ", capped for a CPU device (a ladder in seconds)" : ", capped (host time)";
    }
    // Device memory: the working set within a quarter of global memory, each buffer within the
    // largest allocation.
    const double mem = info.global_mem_bytes ? double(info.global_mem_bytes) / 4 : 0;
    const double alloc = info.max_alloc_bytes ? double(info.max_alloc_bytes) : 0;
    double limit = mem ? n_for_bytes(m, mem) : 1e300;
    if (alloc) // the largest buffer is 1/3 (vecadd, matmul), 1/2 (conv) or all (reduction) of it
        limit = std::min(limit, n_for_bytes(m, alloc * (m.dims == 2 ? 2 : 3)));
    if (double(size) > limit) {
        size = round_down(m, limit);
        why += ", bounded by device memory";
    }
    size = std::min(size, m.index_cap);
    a.n = std::max<std::size_t>(size, 1);
    a.note = why;
    return a;
}

} // namespace duet::apps
