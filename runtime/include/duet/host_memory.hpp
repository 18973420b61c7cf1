#pragma once
// The host's memory, for checking an allocation before it is made (a CPU device's buffers and
// pinned host buffers are host memory; an allocation beyond it thrashes, then fails or asserts).
#include <cstdint>
#include <string>

namespace duet {

// What this process may still allocate, in bytes: the smallest of MemAvailable from
// /proc/meminfo (sysinfo's free + buffer RAM where that file is missing), the room left by its
// memory cgroup and their ancestors (v2 memory.max - memory.current, v1 memory.limit_in_bytes -
// memory.usage_in_bytes) and by RLIMIT_AS (less VmSize); 0 when none is known.
std::uint64_t host_memory_available();

// "12.0 GiB" etc., for messages.
std::string bytes_text(std::uint64_t bytes);

} // namespace duet
