#pragma once
// Loops that write with non-temporal stores (past the cache, no read-for-ownership of the
// destination): the native copy, and vecadd's native loop where its arrays exceed the cache.
#include <cstddef>

namespace duet::apps::native {

// dst = src, n bytes; both 64-byte aligned, n a multiple of 64. memcpy where the CPU has no such
// stores.
void stream_copy(const float* src, float* dst, std::size_t n);

// c = a + b, n floats, any alignment: ordinary stores up to c's first 32-byte boundary, then
// non-temporal ones. Returns false (and does nothing) where the CPU has no AVX; the caller then
// runs its ordinary loop.
bool stream_add(const float* a, const float* b, float* c, std::size_t n);

// The host's last-level cache in bytes (0 when the system does not say).
std::size_t last_level_cache_bytes();

} // namespace duet::apps::native
