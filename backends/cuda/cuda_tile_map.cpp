// duet::cuda::tile_map on CUDA (cuda_tile_map.hpp). The driver entry point is looked up through the
// runtime (cudaGetDriverEntryPointByVersion), so the backend needs no link to libcuda itself.
#include "cuda_tile_map.hpp"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstring>

#include <duet/error.hpp>

#include "cuda_device.hpp"

namespace duet::cuda {

namespace {

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

EncodeTiled encoder(const std::function<std::string()>& where) {
    static EncodeTiled fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            p = nullptr;
        return reinterpret_cast<EncodeTiled>(p);
    }();
    if (!fn)
        throw Error::usage(where() + ": the CUDA driver has no cuTensorMapEncodeTiled (tile maps "
                                     "need a CUDA 12 driver or newer)");
    return fn;
}

} // namespace

static_assert(sizeof(CUtensorMap) == tile_map_param_size &&
                  alignof(CUtensorMap) <= alignof(TileMapParam),
              "duet::cuda::tile_map_param_size is a CUtensorMap's size");

TileMapParam encode_tile_map(const CudaDevice& dev, const TileMap& map, void* ptr,
                             const std::function<std::string()>& where) {
    if (dev.limits().cc_major < 9)
        throw Error::usage(where() + ": " + dev.label() + " (compute capability " +
                           std::to_string(dev.limits().cc_major) + "." +
                           std::to_string(dev.limits().cc_minor) +
                           ") has no tile copy engine; tile maps need compute capability 9.0 "
                           "(Hopper) or newer");
    const cuuint64_t dims[2] = {map.cols, map.rows};
    const cuuint64_t strides[1] = {map.cols * sizeof(float)};
    const cuuint32_t box[2] = {map.box_cols, map.box_rows};
    const cuuint32_t steps[2] = {1, 1};
    CUtensorMap m;
    const CUresult rc =
        encoder(where)(&m, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, ptr, dims, strides, box, steps,
                       CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                       CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc != CUDA_SUCCESS)
        throw Error(ErrorKind::runtime, "cuda", "cuTensorMapEncodeTiled", static_cast<long>(rc),
                    "CUresult " + std::to_string(static_cast<int>(rc)),
                    where() + ": the driver refused a tile map of " + std::to_string(map.rows) +
                        " x " + std::to_string(map.cols) + " floats in boxes of " +
                        std::to_string(map.box_rows) + " x " + std::to_string(map.box_cols));
    TileMapParam out;
    std::memcpy(out.bytes, &m, sizeof m);
    return out;
}

} // namespace duet::cuda
