#pragma once
// The host's memory, for checking an allocation before it is made (a CPU device's buffers and
// pinned host buffers are host memory; an allocation beyond it thrashes, then fails or asserts).
#include <cstdint>
#include <string>

namespace duet {

// MemAvailable from /proc/meminfo (sysinfo's free + buffer RAM where that file is missing),
// in bytes; 0 when unknown.
std::uint64_t host_memory_available();

// "12.0 GiB" etc., for messages.
std::string bytes_text(std::uint64_t bytes);

} // namespace duet
