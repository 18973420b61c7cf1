#pragma once
// --size auto (the default of run and compare): a problem size per device and app, so that the
// working set is at least 4x the device's last-level cache (it measures memory, not cache), each
// launch is long enough to time (about 1 ms, estimated from the device's class, never measured)
// and it fits the device's memory. CPU devices are capped to keep a whole ladder in seconds on a
// small machine, and a simulator (Oclgrind) gets small sizes. Pure functions of a DeviceInfo, so
// tests check them without a device.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace duet::apps {

// What an app's working set and work grow like, for the rule: each app's own (App::size_model).
struct SizeModel {
    std::string app; // for the note
    int dims = 1;    // 1: n values; 2: an n x n image; 3: n^3 matmul
    double bytes_per_item =
        4; // working-set bytes per value (1-D), pixel (2-D) or matrix entry (3-D: 3 n^2 entries)
    double flops_per_item = 0; // arithmetic per n^3 (3-D); 0: memory bound
    std::size_t granule = 1;   // sizes are multiples (3-D/2-D) or powers of two (1-D) of this
    std::size_t gpu_cap = 0;   // largest n on a GPU (host time: inputs, reference)
    std::size_t cpu_cap = 0;   // largest n on a CPU device (the ladder in seconds on 2 cores)
    std::size_t sim_size = 0;  // n on a simulator
    std::size_t index_cap = 0; // largest n the kernels' int indexing allows
};

struct AutoSize {
    std::size_t n = 0; // the size (the app's dims are n, n x n or n^3)
    std::string note;  // why: "auto: 4x the 50 MiB L2", "auto, capped for a CPU device"
};

// The last-level cache the rule uses: DeviceInfo::global_mem_cache_bytes, 4 MiB when unknown.
std::uint64_t llc_bytes(const DeviceInfo& info);
// True for a simulator (Oclgrind): runs one work-item at a time, ~1000x slower than a CPU.
bool is_simulator(const DeviceInfo& info);
// The size of `m` on `info`.
AutoSize choose_size(const SizeModel& m, const DeviceInfo& info);

} // namespace duet::apps
