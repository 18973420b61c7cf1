// DeviceInfo for a CUDA device: the fields every backend fills, plus the CUDA facts a user needs
// to reason about performance (compute capability, shared memory, registers, L2, ...).
#include "cuda_device_info.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "cuda_check.hpp"

namespace duet::cuda {

namespace {

// One attribute; a value the driver does not know is 0 ("unknown"), not a failure, so that a
// new attribute on an old driver cannot hide the device.
int attribute(cudaDeviceAttr attr, int ordinal) {
    int value = 0;
    if (traced(cudaDeviceGetAttribute(&value, attr, ordinal), "cudaDeviceGetAttribute") !=
        cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return value;
}

std::string hex_uuid(const cudaUUID_t& uuid) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    bool all_zero = true;
    for (char c : uuid.bytes) {
        const auto b = static_cast<unsigned char>(c);
        all_zero = all_zero && b == 0;
        s += digits[b >> 4];
        s += digits[b & 15];
    }
    return all_zero ? std::string{} : s;
}

// Lowercase "0000:3b:00.0": the form OpenCL's cl_khr_pci_bus_info is printed in, so that the
// registry can match the two views of one GPU. CUDA does not report the PCI function; it is 0.
std::string pci_bus_id(int domain, int bus, int device) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.0", static_cast<unsigned>(domain),
                  static_cast<unsigned>(bus), static_cast<unsigned>(device));
    return buf;
}

// NVIDIA's architecture names, for people who know GPUs by generation rather than by number.
std::string architecture(int major, int minor) {
    switch (major) {
    case 7:
        return minor >= 5 ? "Turing" : "Volta";
    case 8:
        return minor == 9 ? "Ada Lovelace" : "Ampere";
    case 9:
        return "Hopper";
    case 10:
    case 11:
    case 12:
        return "Blackwell";
    default:
        return major > 12 ? "newer than Blackwell" : "older than Volta";
    }
}

std::string yes_no(int v) {
    return v ? "yes" : "no";
}

std::string compute_mode(int mode) {
    switch (mode) {
    case cudaComputeModeDefault:
        return "default (shared)";
    case cudaComputeModeExclusive:
        return "exclusive thread";
    case cudaComputeModeProhibited:
        return "prohibited";
    case cudaComputeModeExclusiveProcess:
        return "exclusive process";
    default:
        return std::to_string(mode);
    }
}

} // namespace

std::string kernel_module_version() {
    std::ifstream in("/proc/driver/nvidia/version");
    std::string line;
    if (!in || !std::getline(in, line))
        return {};
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  Release Build ..."
    std::istringstream words(line);
    for (std::string w; words >> w;) {
        bool digits_and_dots = !w.empty() && std::isdigit(static_cast<unsigned char>(w[0]));
        for (char c : w)
            digits_and_dots =
                digits_and_dots && (std::isdigit(static_cast<unsigned char>(c)) || c == '.');
        if (digits_and_dots && w.find('.') != std::string::npos)
            return w;
    }
    return {};
}

DeviceFacts query_device(int ordinal, int driver_version, int runtime_version,
                         const std::string& driver_library) {
    cudaDeviceProp prop{};
    DUET_CUDA_CHECK(cudaGetDeviceProperties(&prop, ordinal),
                    "reading the properties of CUDA device " + std::to_string(ordinal));

    DeviceFacts f;
    DeviceLimits& l = f.limits;
    l.cc_major = prop.major;
    l.cc_minor = prop.minor;
    l.max_threads_per_block = prop.maxThreadsPerBlock;
    for (int d = 0; d < 3; ++d) {
        l.max_block_dims[d] = prop.maxThreadsDim[d];
        l.max_grid_dims[d] = prop.maxGridSize[d];
    }
    l.shared_per_block = prop.sharedMemPerBlock;
    l.shared_per_block_optin = std::max(prop.sharedMemPerBlockOptin, prop.sharedMemPerBlock);
    l.multiprocessors = prop.multiProcessorCount;
    l.total_mem = prop.totalGlobalMem;

    DeviceInfo& i = f.info;
    i.backend = "cuda";
    i.kernel_language = KernelLanguage::cuda;
    i.local_index = ordinal;
    i.name = prop.name;
    i.vendor = "NVIDIA Corporation";
    i.device_type = DeviceType::gpu;
    i.type = device_type_name(i.device_type);
    i.device_type_bits = device_type_bit(DeviceType::gpu);
    // A CUDA thread is scalar (the warp is the vector): width 1 for every type it supports.
    i.native_vector_width = {1, 1, 1, 1, 1, 1, 1};
    i.preferred_vector_width = i.native_vector_width;
    i.platform = "CUDA";
    i.platform_version = version_string(runtime_version);
    i.driver_version = version_string(driver_version);
    const std::string cc = std::to_string(prop.major) + "." + std::to_string(prop.minor);
    i.device_version = "compute capability " + cc;
    i.library = driver_library;
    i.uuid = hex_uuid(prop.uuid);
    i.pci_bus_id = pci_bus_id(prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);

    i.compute_units = prop.multiProcessorCount;
    // CUDA 13 removed clockRate and memoryClockRate from cudaDeviceProp; the attributes remain.
    i.clock_mhz = attribute(cudaDevAttrClockRate, ordinal) / 1000;
    i.memory_clock_mhz = attribute(cudaDevAttrMemoryClockRate, ordinal) / 1000;
    i.memory_bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal);
    i.global_mem_bytes = prop.totalGlobalMem;
    // CUDA has no per-allocation limit below the memory size (unlike OpenCL's MAX_MEM_ALLOC).
    i.max_alloc_bytes = prop.totalGlobalMem;
    i.local_mem_bytes = prop.sharedMemPerBlock;
    i.local_mem_optin_bytes =
        std::max<std::uint64_t>(prop.sharedMemPerBlockOptin, prop.sharedMemPerBlock);
    i.global_mem_cache_bytes =
        static_cast<std::uint64_t>(attribute(cudaDevAttrL2CacheSize, ordinal));
    i.constant_mem_bytes = prop.totalConstMem;
    i.max_work_group_size = static_cast<std::size_t>(prop.maxThreadsPerBlock);
    for (int d = 0; d < 3; ++d)
        i.max_work_item_sizes[d] = static_cast<std::size_t>(prop.maxThreadsDim[d]);
    i.subgroup_width = prop.warpSize;
    i.preferred_work_group_multiple = prop.warpSize;
    i.unified_memory = prop.integrated != 0;
    // 4 KiB of kernel parameters; 32764 bytes on Volta and newer with CUDA 12.1 (runtime and
    // driver) and newer.
    const bool large_params = prop.major >= 7 && std::min(runtime_version, driver_version) >= 12010;
    i.max_parameter_bytes = large_params ? 32764 : 4096;
    for (int d = 0; d < 3; ++d)
        i.max_grid_size[d] = static_cast<std::size_t>(prop.maxGridSize[d]);
    i.device_addresses = true; // a buffer's device pointer (Buffer::device_address)

    // What every CUDA GPU that CUDA 12+ supports (sm_50 and up) offers, and what depends on
    // the compute capability.
    DeviceCapabilities& c = i.caps;
    c.subgroup_sizes = {prop.warpSize};
    c.subgroup_functions = true; // __shfl_*_sync, __reduce_*_sync
    c.fp64 = true;
    c.fp16 = prop.major > 5 || (prop.major == 5 && prop.minor >= 3); // half arithmetic: sm_53+
    c.local_memory = LocalMemoryKind::dedicated;
    c.float_atomics = true; // atomicAdd(float*) on global memory
    c.int64_atomics = true;
    c.inline_asm = true;              // inline PTX
    c.matrix_units = prop.major >= 7; // tensor cores: Volta and later
    c.device_timers = true;           // cudaEvent timestamps
    c.timer_resolution_ns = 500;      // cudaEventElapsedTime: "around 0.5 microseconds"
    c.device_scope_fence = true;      // __threadfence()
    i.architecture = l.sm();
    // NVIDIA's features by name (docs/api/devices.md's table), sorted: mma.sync with TF32
    // operands from compute capability 8.0; the embedded fat binary's sm_90a code (wgmma, TMA)
    // for compute capability 9.0 only.
    if (prop.major >= 8)
        i.extensions.push_back("nv.mma_sync");
    if (prop.major == 9 && prop.minor == 0)
        i.extensions.push_back("nv.wgmma");

    auto& d = i.details;
    d.emplace_back("compute capability",
                   cc + " (" + l.sm() + ", " + architecture(prop.major, prop.minor) + ")");
    d.emplace_back("multiprocessors", std::to_string(prop.multiProcessorCount));
    d.emplace_back("warp size", std::to_string(prop.warpSize));
    d.emplace_back("max threads per multiprocessor",
                   std::to_string(prop.maxThreadsPerMultiProcessor));
    d.emplace_back("max blocks per multiprocessor",
                   std::to_string(prop.maxBlocksPerMultiProcessor));
    d.emplace_back("max grid size", std::to_string(prop.maxGridSize[0]) + " x " +
                                        std::to_string(prop.maxGridSize[1]) + " x " +
                                        std::to_string(prop.maxGridSize[2]));
    d.emplace_back("shared memory per block", bytes_string(prop.sharedMemPerBlock));
    d.emplace_back("shared memory per block (opt-in)", bytes_string(prop.sharedMemPerBlockOptin));
    d.emplace_back("shared memory per multiprocessor",
                   bytes_string(prop.sharedMemPerMultiprocessor));
    d.emplace_back("shared memory reserved per block",
                   bytes_string(prop.reservedSharedMemPerBlock));
    d.emplace_back("registers per block", std::to_string(prop.regsPerBlock));
    d.emplace_back("registers per multiprocessor", std::to_string(prop.regsPerMultiprocessor));
    d.emplace_back("L2 cache", bytes_string(static_cast<std::size_t>(prop.l2CacheSize)));
    d.emplace_back("L2 persisting max",
                   bytes_string(static_cast<std::size_t>(prop.persistingL2CacheMaxSize)));
    d.emplace_back("FP32:FP64 throughput ratio",
                   std::to_string(attribute(cudaDevAttrSingleToDoublePrecisionPerfRatio, ordinal)) +
                       ":1");
    d.emplace_back("ECC", prop.ECCEnabled ? "on" : "off");
    d.emplace_back("async copy engines", std::to_string(prop.asyncEngineCount));
    d.emplace_back("concurrent kernels", yes_no(prop.concurrentKernels));
    d.emplace_back("cooperative launch", yes_no(prop.cooperativeLaunch));
    d.emplace_back("thread block clusters", yes_no(prop.clusterLaunch));
    d.emplace_back("unified addressing", yes_no(prop.unifiedAddressing));
    d.emplace_back("managed memory", yes_no(prop.managedMemory));
    d.emplace_back("pageable memory access", yes_no(prop.pageableMemoryAccess));
    d.emplace_back("integrated", yes_no(prop.integrated));
    d.emplace_back("multi-GPU board", yes_no(prop.isMultiGpuBoard));
    d.emplace_back("compute mode", compute_mode(attribute(cudaDevAttrComputeMode, ordinal)));
    d.emplace_back("kernel run time limit (watchdog)",
                   yes_no(attribute(cudaDevAttrKernelExecTimeout, ordinal)));
    d.emplace_back("MPS", yes_no(prop.mpsEnabled));
    if (prop.deviceNumaId >= 0 && prop.deviceNumaConfig != 0)
        d.emplace_back("device NUMA node", std::to_string(prop.deviceNumaId));
    if (prop.hostNumaId >= 0)
        d.emplace_back("host NUMA node", std::to_string(prop.hostNumaId));
    char pci_ids[32];
    // gpuPciDeviceID holds the device id in the high 16 bits and the vendor id in the low.
    std::snprintf(pci_ids, sizeof pci_ids, "%04x:%04x", prop.gpuPciDeviceID & 0xffffu,
                  prop.gpuPciDeviceID >> 16);
    d.emplace_back("PCI vendor:device", pci_ids);
    d.emplace_back("CUDA driver API version", version_string(driver_version));
    if (const auto km = kernel_module_version(); !km.empty())
        d.emplace_back("NVIDIA kernel module", km);
    d.emplace_back("CUDA runtime (static)", version_string(runtime_version));
    return f;
}

} // namespace duet::cuda
