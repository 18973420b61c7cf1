#pragma once
// The earlier spelling of duet::tile_map (<duet/tile_map.hpp>), kept: the tile map is no longer
// the CUDA backend's alone (NVIDIA's OpenCL on Hopper takes it too).
#include <duet/tile_map.hpp>

namespace duet::cuda {

using duet::tile_map;
using duet::tile_map_param_size;
using TileMap = duet::TileMap;

} // namespace duet::cuda
