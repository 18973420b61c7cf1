#pragma once
// duet::tile_map arguments on NVIDIA's OpenCL (<duet/tile_map.hpp>): the tensor map that Hopper's
// tile copy engine (TMA) reads, encoded on the host by the CUDA driver's cuTensorMapEncodeTiled
// (libcuda.so.1, the driver NVIDIA's OpenCL runs on, opened with dlopen: nothing is linked) over
// the OpenCL buffer's device address, and handed to the kernel in a 128-byte device buffer (a
// `global const DuetTileMap*` parameter). Devices without the nv.sm90a_ptx extension refuse it.
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>

#include <duet/tile_map.hpp>

#include "opencl_common.hpp"

namespace duet {
struct KernelParam;
}

namespace duet::opencl {

class OpenclDevice;
class OpenclBuffer;

// One device's encoded maps, by their bytes (a map's buffer is made once), and the kernel that
// reads a buffer's device address.
class TileMapStore {
  public:
    // The device buffer holding `map` encoded over `buf` for parameter `param` (null when the
    // kernel's parameters are unknown), the work enqueued on `q`. Usage Errors where the device
    // has no nv.sm90a_ptx, the parameter is not a `global const DuetTileMap*`, or libcuda.so.1 is
    // missing; `where` names the argument (called only to build an error).
    cl::Buffer map_buffer(OpenclDevice& dev, cl::CommandQueue& q, const TileMap& map,
                          const OpenclBuffer& buf, const KernelParam* param,
                          const std::function<std::string()>& where);

  private:
    std::uint64_t device_address(OpenclDevice& dev, cl::CommandQueue& q, const OpenclBuffer& buf);

    std::mutex mutex_;
    cl::Kernel addr_of_;
    std::map<std::array<unsigned char, tile_map_param_size>, cl::Buffer> maps_;
};

// Why a device refuses tile maps ("" when it takes them): the nv.sm90a_ptx extension.
std::string tile_map_refusal(const OpenclDevice& dev);

} // namespace duet::opencl
