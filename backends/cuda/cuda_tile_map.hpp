#pragma once
// duet::tile_map arguments (<duet/tile_map.hpp>) on CUDA: the
// 128-byte CUtensorMap that Hopper's tile copy engine (TMA) reads, made by the driver's
// cuTensorMapEncodeTiled for a CudaBuffer.
#include <functional>
#include <string>

#include <duet/tile_map.hpp>

namespace duet::cuda {

class CudaDevice;

// The parameter a kernel receives for a tile map (a CUtensorMap: 128 bytes, aligned to 128).
struct alignas(128) TileMapParam {
    unsigned char bytes[tile_map_param_size];
};

// Encodes `map` (its shape already checked by the runtime: TileMap::problem) over device memory
// `ptr` of `dev`. Usage Errors where the device has no tile copy engine (compute capability
// below 9.0) or the driver lacks the entry point; `where` names the launch (called only to
// build an error: a launch that is fine builds no text).
TileMapParam encode_tile_map(const CudaDevice& dev, const TileMap& map, void* ptr,
                             const std::function<std::string()>& where);

} // namespace duet::cuda
