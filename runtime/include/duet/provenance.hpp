#pragma once
// Where a loaded kernel's program came from (Kernel::provenance()).
namespace duet {

enum class Provenance {
    compiled,        // compiled by this load (OpenCL compiler, NVRTC)
    memory_cache,    // already built or loaded earlier in this process, on this device
    disk_cache,      // a binary from the on-disk program cache (DUET_CACHE_DIR)
    embedded_binary, // the binary built into Duet when it was built (CUDA fatbin)
};

// "compiled", "memory_cache", "disk_cache", "embedded_binary": the words runapp's table, JSON
// and CSV use.
inline const char* provenance_name(Provenance p) {
    switch (p) {
    case Provenance::compiled:
        return "compiled";
    case Provenance::memory_cache:
        return "memory_cache";
    case Provenance::disk_cache:
        return "disk_cache";
    case Provenance::embedded_binary:
        return "embedded_binary";
    }
    return "unknown";
}

} // namespace duet
