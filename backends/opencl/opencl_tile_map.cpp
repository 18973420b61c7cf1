// duet::tile_map on NVIDIA's OpenCL (opencl_tile_map.hpp). The CUDA driver's encoder wants a
// current CUDA context (it answers CUDA_ERROR_INVALID_CONTEXT without one): the device's
// primary context is retained once, for the life of the process, and made current only around
// the encoding (pushed and popped, so that a thread's own CUDA context is left as it was).
#include "opencl_tile_map.hpp"

#include <dlfcn.h>

#include <cstring>

#include <duet/backend/launch_checks.hpp>
#include <duet/error.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"

namespace duet::opencl {

namespace {

// The CUDA driver API, declared here (no CUDA header or library at build time); enum values
// from cuda.h: CU_TENSOR_MAP_DATA_TYPE_FLOAT32 7, CU_TENSOR_MAP_SWIZZLE_128B 3,
// CU_TENSOR_MAP_L2_PROMOTION_L2_256B 3, interleave and out-of-bounds fill 0 (none, zeros).
using EncodeTiled = int (*)(void*, int, unsigned, void*, const std::uint64_t*, const std::uint64_t*,
                            const unsigned*, const unsigned*, int, int, int, int);
using CuInit = int (*)(unsigned);
using CuDeviceGetByPCIBusId = int (*)(int*, const char*);
using CuDeviceGet = int (*)(int*, int);
using CuPrimaryCtxRetain = int (*)(void**, int);
using CuCtxPush = int (*)(void*);
using CuCtxPop = int (*)(void**);

struct CudaDriver {
    EncodeTiled encode = nullptr;
    CuCtxPush push = nullptr;
    CuCtxPop pop = nullptr;
    CuPrimaryCtxRetain retain = nullptr;
    CuDeviceGetByPCIBusId by_bus = nullptr;
    CuDeviceGet get = nullptr;
    std::string why; // why it is not usable ("" when it is)
};

const CudaDriver& cuda_driver() {
    static const CudaDriver d = [] {
        CudaDriver c;
        void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) {
            const char* e = dlerror();
            c.why = std::string("the CUDA driver library libcuda.so.1 could not be loaded (") +
                    (e ? e : "?") + ")";
            return c;
        }
        const auto sym = [&](const char* name) { return dlsym(lib, name); };
        c.encode = reinterpret_cast<EncodeTiled>(sym("cuTensorMapEncodeTiled"));
        c.push = reinterpret_cast<CuCtxPush>(sym("cuCtxPushCurrent_v2"));
        c.pop = reinterpret_cast<CuCtxPop>(sym("cuCtxPopCurrent_v2"));
        c.retain = reinterpret_cast<CuPrimaryCtxRetain>(sym("cuDevicePrimaryCtxRetain"));
        c.by_bus = reinterpret_cast<CuDeviceGetByPCIBusId>(sym("cuDeviceGetByPCIBusId"));
        c.get = reinterpret_cast<CuDeviceGet>(sym("cuDeviceGet"));
        auto init = reinterpret_cast<CuInit>(sym("cuInit"));
        if (!c.encode || !c.push || !c.pop || !c.retain || !c.by_bus || !c.get || !init)
            c.why = "libcuda.so.1 has no cuTensorMapEncodeTiled or context functions (tile maps "
                    "need a CUDA 12 driver or newer)";
        else if (const int rc = init(0); rc != 0)
            c.why = "cuInit(0) failed with CUresult " + std::to_string(rc);
        return c;
    }();
    return d;
}

Error driver_error(const char* call, int rc, const std::string& what) {
    return Error(ErrorKind::runtime, "opencl", call, static_cast<long>(rc),
                 "CUresult " + std::to_string(rc), what);
}

// The retained primary context of the CUDA device at `pci` (device 0 where the bus is unknown).
void* primary_context(const CudaDriver& c, const std::string& pci,
                      const std::function<std::string()>& where) {
    static std::mutex m;
    static std::map<std::string, void*> contexts;
    std::lock_guard lock(m);
    if (auto it = contexts.find(pci); it != contexts.end())
        return it->second;
    int dev = 0;
    if (const int rc = pci.empty() ? c.get(&dev, 0) : c.by_bus(&dev, pci.c_str()); rc != 0)
        throw driver_error(pci.empty() ? "cuDeviceGet" : "cuDeviceGetByPCIBusId", rc,
                           where() + ": the CUDA driver does not know the device at PCI " +
                               (pci.empty() ? std::string("(unknown: device 0)") : pci));
    void* ctx = nullptr;
    if (const int rc = c.retain(&ctx, dev); rc != 0)
        throw driver_error("cuDevicePrimaryCtxRetain", rc,
                           where() + ": no CUDA context for the tile map's encoder");
    contexts[pci] = ctx;
    return ctx;
}

using MapBytes = std::array<unsigned char, tile_map_param_size>;

MapBytes encode(const CudaDriver& c, void* ctx, const TileMap& map, std::uint64_t addr,
                const std::function<std::string()>& where) {
    const std::uint64_t dims[2] = {map.cols, map.rows}, strides[1] = {map.cols * sizeof(float)};
    const unsigned box[2] = {map.box_cols, map.box_rows}, steps[2] = {1, 1};
    alignas(64) unsigned char bytes[tile_map_param_size] = {};
    if (const int rc = c.push(ctx); rc != 0)
        throw driver_error("cuCtxPushCurrent", rc, where() + ": making the CUDA context current");
    const int rc =
        c.encode(bytes, 7, 2, reinterpret_cast<void*>(addr), dims, strides, box, steps, 0, 3, 3, 0);
    void* popped = nullptr;
    c.pop(&popped);
    if (rc != 0)
        throw driver_error("cuTensorMapEncodeTiled", rc,
                           where() + ": the driver refused a tile map of " +
                               std::to_string(map.rows) + " x " + std::to_string(map.cols) +
                               " floats in boxes of " + std::to_string(map.box_rows) + " x " +
                               std::to_string(map.box_cols));
    MapBytes out;
    std::memcpy(out.data(), bytes, out.size());
    return out;
}

constexpr const char* addr_of_source =
    "kernel void duet_address_of(global const float* p, global ulong* out) {\n"
    "    out[0] = (ulong)p;\n"
    "}\n";

} // namespace

std::string tile_map_refusal(const OpenclDevice& dev) {
    if (dev.info().has_extension(sm90a_extension))
        return {};
    return dev.label() +
           " has no tile copy engine that OpenCL reaches: a duet::tile_map needs "
           "NVIDIA's OpenCL on compute capability 9.0 (the device extension " +
           sm90a_extension + "); pass the buffer itself to a kernel that copies without it";
}

std::uint64_t TileMapStore::device_address(OpenclDevice& dev, cl::CommandQueue& q,
                                           const OpenclBuffer& buf) {
    if (const std::uint64_t a = buf.queried_address.load())
        return a;
    if (!addr_of_()) {
        cl::Program p(dev.context(), std::string(addr_of_source));
        p.build(std::vector<cl::Device>{dev.cl_device()});
        addr_of_ = cl::Kernel(p, "duet_address_of");
    }
    cl::Buffer out(dev.context(), CL_MEM_READ_WRITE, sizeof(cl_ulong));
    addr_of_.setArg(0, buf.get());
    addr_of_.setArg(1, out);
    q.enqueueNDRangeKernel(addr_of_, cl::NullRange, cl::NDRange(1), cl::NDRange(1));
    cl_ulong a = 0;
    q.enqueueReadBuffer(out, CL_TRUE, 0, sizeof a, &a);
    buf.queried_address.store(a);
    return a;
}

cl::Buffer TileMapStore::map_buffer(OpenclDevice& dev, cl::CommandQueue& q, const TileMap& map,
                                    const OpenclBuffer& buf, const KernelParam* param,
                                    const std::function<std::string()>& where) {
    if (std::string why = tile_map_refusal(dev); !why.empty())
        throw Error::usage(where() + " is a duet::tile_map, but " + why);
    if (param && param->type.find("DuetTileMap") == std::string::npos)
        throw Error::usage(where() + " is a duet::tile_map for a parameter declared `" +
                           param->type +
                           "`: an OpenCL kernel takes a tile map as a `global "
                           "const DuetTileMap*` parameter");
    const CudaDriver& c = cuda_driver();
    if (!c.why.empty())
        throw Error::usage(where() +
                           " is a duet::tile_map, which NVIDIA's OpenCL takes through "
                           "the CUDA driver's encoder, but " +
                           c.why);
    void* ctx = primary_context(c, dev.info().pci_bus_id, where);
    std::lock_guard lock(mutex_);
    const MapBytes bytes = encode(c, ctx, map, device_address(dev, q, buf), where);
    if (auto it = maps_.find(bytes); it != maps_.end())
        return it->second;
    if (maps_.size() >= 256) // a launch's buffers outlive their release (OpenCL keeps them)
        maps_.clear();
    cl::Buffer b(dev.context(), CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes.size(),
                 const_cast<unsigned char*>(bytes.data()));
    maps_.emplace(bytes, b);
    return b;
}

} // namespace duet::opencl
