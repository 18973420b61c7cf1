#pragma once
// What a device is and can do: the facts runapp info prints and apps size their launches by.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace duet {

// What kind of processor a device is. DeviceInfo::type holds the same as text ("GPU").
enum class DeviceType { cpu, gpu, accelerator, other };

// "CPU", "GPU", "Accelerator", "Other": the text runapp list and JSON show.
inline const char* device_type_name(DeviceType t) {
    switch (t) {
    case DeviceType::cpu:
        return "CPU";
    case DeviceType::gpu:
        return "GPU";
    case DeviceType::accelerator:
        return "Accelerator";
    default:
        return "Other";
    }
}

// One bit per DeviceType, for DeviceInfo::device_type_bits.
constexpr unsigned device_type_bit(DeviceType t) {
    return 1u << static_cast<unsigned>(t);
}

// Widths of a device's vectors per element type (OpenCL's CL_DEVICE_*_VECTOR_WIDTH_*): how
// many elements of that type one vector operation handles; 0 when the type is not supported.
struct VectorWidths {
    int i8 = 0;  // char
    int i16 = 0; // short
    int i32 = 0; // int
    int i64 = 0; // long
    int f16 = 0; // half
    int f32 = 0; // float
    int f64 = 0; // double
};

// The dialect of the kernel sources a device's backend builds: OpenCL C (compiled at run time)
// or CUDA C++. It chooses source files (kernels_cl/, kernels_cu/) and a device profile's rows;
// what a kernel may use is asked of DeviceCapabilities, never of the language.
enum class KernelLanguage { opencl_c, cuda };

// "opencl_c", "cuda": the name device profiles and JSON use.
inline const char* kernel_language_name(KernelLanguage l) {
    return l == KernelLanguage::cuda ? "cuda" : "opencl_c";
}

// Where a work-group's local (OpenCL) / shared (CUDA) memory lives.
enum class LocalMemoryKind {
    unknown,
    dedicated, // on-chip memory of its own (GPUs)
    global     // emulated in global memory / the host's caches (CPU devices)
};

// What kernels may use on a device and how well it can be timed, as typed facts, so that apps
// ask "does it have X" instead of comparing backend or vendor names. false / 0 / empty means
// "no" or "not known"; the backend fills what its API reports.
struct DeviceCapabilities {
    // Sub-group (OpenCL) / warp (CUDA) sizes a kernel may run with; empty when unknown.
    std::vector<int> subgroup_sizes;
    // Kernels can call sub-group / warp collectives (cl_khr_subgroups' sub_group_reduce_add;
    // CUDA's __shfl_*_sync).
    bool subgroup_functions = false;
    bool fp64 = false; // double precision in kernels
    bool fp16 = false; // half precision arithmetic in kernels
    LocalMemoryKind local_memory = LocalMemoryKind::unknown;
    bool float_atomics = false; // atomic add on 32-bit floats in global memory
    bool int64_atomics = false; // 64-bit integer atomics in global memory
    bool inline_asm = false;    // kernels may hold the device's assembly (CUDA: inline PTX)
    bool matrix_units = false;  // matrix multiply-accumulate units (tensor cores)
    // Events carry start/end timestamps taken on the device (else only the host clock times).
    bool device_timers = false;
    double timer_resolution_ns = 0; // of those timestamps; 0 when unknown

    // ---- Architecture facts apps ask instead of a backend's, language's or vendor's name ----
    // NVIDIA compute capability major.minor (CUDA; NVIDIA's OpenCL through
    // cl_nv_device_attribute_query); 0.0 where the device has none.
    int compute_major = 0;
    int compute_minor = 0;
    // A kernel's device-scope fence orders its global writes for the other work-groups of the
    // same launch (CUDA's __threadfence; PTX's fence in OpenCL C), so groups may hand work on.
    bool device_scope_fence = false;
    // Hopper's warpgroup MMA fed by the tensor memory accelerator (sm_90a) is in the backend's
    // prebuilt kernels (a build without defines).
    bool warpgroup_mma = false;
    // Kernels built at run time may hold Hopper's sm_90a-only PTX (wgmma, setmaxnreg) as inline
    // asm lines marked as kernels_cl/sm90a.clh says (NVIDIA's OpenCL on compute capability 9.0:
    // the backend builds the driver's PTX again, raised to sm_90a, falling back to the kernel's
    // other path, with a log line, where that fails).
    bool sm90a_ptx = false;
    // The device is a simulator (Oclgrind): correct but slow, so apps keep sizes small.
    bool simulator = false;
};

// Static description of one device as one backend sees it.
struct DeviceInfo {
    std::string backend; // "opencl" or "cuda"
    int local_index = 0; // index among this backend's devices
    std::string name;    // marketing name
    std::string vendor;  // "NVIDIA Corporation", "AMD", "Intel(R) Corporation", ...
    std::string type;    // "GPU", "CPU", "Accelerator": device_type_name(device_type)
    DeviceType device_type = DeviceType::other;
    std::string platform;         // OpenCL platform name, or "CUDA"
    std::string platform_version; // OpenCL platform version, or the CUDA runtime version
    std::string driver_version;   // driver version string
    std::string device_version;   // OpenCL device version / CUDA compute capability "9.0"
    std::string library;          // OpenCL ICD (vendor) library path, or the CUDA driver library
    std::string uuid;             // 32 hex digits, empty when the device does not report one
    std::string pci_bus_id;       // "0000:3b:00.0", empty when unknown

    int compute_units = 0;              // SMs / compute units
    int clock_mhz = 0;                  // max core clock
    int memory_clock_mhz = 0;           // 0 when unknown
    int memory_bus_bits = 0;            // 0 when unknown
    std::uint64_t global_mem_bytes = 0; // device memory
    std::uint64_t max_alloc_bytes = 0;  // largest single allocation
    std::uint64_t local_mem_bytes = 0;  // shared/local memory per work-group
    // What a launch's duet::local arguments may take in all where the device lets a kernel opt
    // in beyond local_mem_bytes (CUDA: sharedMemPerBlockOptin, as dynamic shared memory, less
    // the kernel's static shared memory); 0 where there is no such opt-in (OpenCL).
    std::uint64_t local_mem_optin_bytes = 0;
    std::uint64_t global_mem_cache_bytes = 0; // last-level cache: L2 (GPU), the host LLC (CPU)
    std::uint64_t constant_mem_bytes = 0;     // constant memory
    std::size_t max_work_group_size = 0;      // threads per block / work-items per group
    std::array<std::size_t, 3> max_work_item_sizes{0, 0, 0};
    int subgroup_width = 0;                // warp / wavefront / sub-group width (0 = unknown)
    int preferred_work_group_multiple = 0; // from a probe kernel or the warp size
    bool unified_memory = false;           // host and device share memory (CPUs, iGPUs)
    // Loop iterations a work-item may run in all, over every loop of a kernel, before the
    // implementation ends its loops early (0 = no limit): Mesa's llvmpipe (rusticl) stops at
    // 65535, silently, which OpenCL does not allow; steps with long loops shape for it.
    std::uint64_t max_loop_iterations = 0;
    DeviceCapabilities caps; // what kernels may use; see DeviceCapabilities
    // The language of the kernels the backend builds, so apps choose sources and switches
    // without comparing backend names.
    KernelLanguage kernel_language = KernelLanguage::opencl_c;

    // Backend-specific facts as ordered label/value pairs (extensions, cache sizes, ...).
    std::vector<std::pair<std::string, std::string>> details;

    // ---- Launch facts: vector widths and every device-type bit ------------------------------
    // CL_DEVICE_NATIVE_VECTOR_WIDTH_* (the hardware's vectors) and
    // CL_DEVICE_PREFERRED_VECTOR_WIDTH_* (what the compiler prefers kernels to use); CUDA:
    // 1 for every supported type (a thread is scalar; the warp is the vector).
    VectorWidths native_vector_width;
    VectorWidths preferred_vector_width;
    // Every type the device reports, as device_type_bit(...) bits: a device may report several
    // (Oclgrind reports CPU, GPU, Accelerator and Default at once). device_type holds one of
    // them (GPU before CPU before Accelerator); 0 means "only device_type is known".
    unsigned device_type_bits = 0;
    // True when the device reports type `t` (among several, when it reports several).
    bool has_type(DeviceType t) const {
        return device_type_bits ? (device_type_bits & device_type_bit(t)) != 0 : device_type == t;
    }
    bool is_cpu() const { return has_type(DeviceType::cpu); }                 // the CPU bit
    bool is_gpu() const { return has_type(DeviceType::gpu); }                 // the GPU bit
    bool is_accelerator() const { return has_type(DeviceType::accelerator); } // that bit
    // "opencl:0", "cuda:1"
    std::string id() const { return backend + ":" + std::to_string(local_index); }
    // Theoretical peak memory bandwidth in GB/s from clock and bus width, 0 when unknown.
    double peak_bandwidth_gbs() const {
        return memory_clock_mhz > 0 && memory_bus_bits > 0
                   ? 2.0 * memory_clock_mhz * 1e6 * (memory_bus_bits / 8.0) / 1e9
                   : 0.0;
    }
    std::size_t max_parameter_bytes = 0;               // a launch's arguments in all (0 = unknown)
    std::array<std::size_t, 3> max_grid_size{0, 0, 0}; // work-groups per dimension (0 = no limit)
    bool device_addresses = false; // Buffer::device_address() works (pointers inside structs)
};

} // namespace duet
