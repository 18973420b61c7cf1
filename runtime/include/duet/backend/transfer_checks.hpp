#pragma once
// Transfer contracts checked once for both backends, before any driver sees them: a span of a
// buffer, and a fill pattern. Each returns the problem as text (empty when there is none), for
// the backend to put after what it was doing ("... on opencl:0 (...): ").
#include <cstddef>
#include <string>

namespace duet {

// Why `bytes` at byte `offset` do not fit a buffer of `size` bytes (empty when they do):
// "a write of 128 bytes at offset 0 does not fit a buffer of 64 bytes (0 + 128 > 64)".
// `op` names the operation ("a write", "a copy to the destination"). 0 bytes always fit.
std::string span_problem(const char* op, std::size_t bytes, std::size_t offset, std::size_t size);

// Why a fill of `bytes` with a `pattern_size`-byte `pattern` cannot be done (empty when it
// can): a null pattern, a size other than 1, 2, 4, 8 or 16 bytes, or bytes that are not a
// whole number of patterns.
std::string fill_problem(const void* pattern, std::size_t pattern_size, std::size_t bytes);

} // namespace duet
