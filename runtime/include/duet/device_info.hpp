#pragma once
// What a device is and can do: the facts runapp info prints and apps size their launches by.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
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
// "no" or "not known"; the backend fills what its API reports. Every field is a portable fact,
// named and described without a vendor's or an API's words (tests/check_docs.py portable-facts
// keeps it so); docs/api/devices.md says what each backend reports. A vendor's feature is a
// DeviceInfo extension instead.
// <portable-facts>
struct DeviceCapabilities {
    // Sub-group sizes (the work-items that run in lockstep) a kernel may run with; empty when
    // unknown.
    std::vector<int> subgroup_sizes;
    // Kernels can call sub-group collectives (a reduction or a shuffle across a sub-group).
    bool subgroup_functions = false;
    bool fp64 = false; // double precision in kernels
    bool fp16 = false; // half precision arithmetic in kernels
    LocalMemoryKind local_memory = LocalMemoryKind::unknown;
    bool float_atomics = false; // atomic add on 32-bit floats in global memory
    bool int64_atomics = false; // 64-bit integer atomics in global memory
    bool inline_asm = false;    // kernels may hold the device's assembly
    bool matrix_units = false;  // matrix multiply-accumulate units
    // Events carry start/end timestamps taken on the device (else only the host clock times).
    bool device_timers = false;
    double timer_resolution_ns = 0; // of those timestamps; 0 when unknown
    // A kernel's device-scope fence orders its global writes for the other work-groups of the
    // same launch, so groups may hand work on.
    bool device_scope_fence = false;
    // The device is a simulator: correct but slow, so apps keep sizes small.
    bool simulator = false;
};
// </portable-facts>

// Static description of one device as one backend sees it: where it comes from (the first
// fields, which name its vendor and API by design), then its portable facts.
struct DeviceInfo {
    std::string backend;          // "opencl" or "cuda"
    int local_index = 0;          // index among this backend's devices
    std::string name;             // marketing name
    std::string vendor;           // "NVIDIA Corporation", "AMD", "Intel(R) Corporation", ...
    std::string platform;         // OpenCL platform name, or "CUDA"
    std::string platform_version; // OpenCL platform version, or the CUDA runtime version
    std::string driver_version;   // driver version string
    std::string device_version;   // OpenCL device version / CUDA compute capability "9.0"
    std::string library;          // OpenCL ICD (vendor) library path, or the CUDA driver library
    std::string uuid;             // 32 hex digits, empty when the device does not report one
    std::string pci_bus_id;       // "0000:3b:00.0", empty when unknown
    // The vendor's name for the device's architecture, used only to match device profiles
    // (NVIDIA: "sm_90" for compute capability 9.0, through CUDA or NVIDIA's OpenCL); empty
    // where unknown. Apps never branch on it: they ask caps or an extension.
    std::string architecture;
    // The backend's vendor extensions on this device, sorted: features only some vendors'
    // devices have, each named "vendor.feature" ("nv.mma_sync") and documented in one place,
    // docs/api/devices.md's table of extensions. Apps ask has_extension(name).
    std::vector<std::string> extensions;
    bool has_extension(std::string_view ext) const {
        return std::find(extensions.begin(), extensions.end(), ext) != extensions.end();
    }
    // The language of the kernels the backend builds, so apps choose sources and switches
    // without comparing backend names.
    KernelLanguage kernel_language = KernelLanguage::opencl_c;
    // Backend-specific facts as ordered label/value pairs (extensions, cache sizes, ...).
    std::vector<std::pair<std::string, std::string>> details;
    // "opencl:0", "cuda:1"
    std::string id() const { return backend + ":" + std::to_string(local_index); }

    // <portable-facts>
    std::string type; // "GPU", "CPU", "Accelerator": device_type_name(device_type)
    DeviceType device_type = DeviceType::other;
    int compute_units = 0;              // compute units (the cores that each run work-groups)
    int clock_mhz = 0;                  // max core clock
    int memory_clock_mhz = 0;           // 0 when unknown
    int memory_bus_bits = 0;            // 0 when unknown
    std::uint64_t global_mem_bytes = 0; // device memory
    std::uint64_t max_alloc_bytes = 0;  // largest single allocation
    std::uint64_t local_mem_bytes = 0;  // local memory per work-group
    // What a launch's duet::local arguments may take in all where the device lets a kernel opt
    // in beyond local_mem_bytes (less the kernel's static local memory); 0 where there is no
    // such opt-in.
    std::uint64_t local_mem_optin_bytes = 0;
    std::uint64_t global_mem_cache_bytes = 0; // last-level cache: the GPU's, the host's (CPU)
    std::uint64_t constant_mem_bytes = 0;     // constant memory
    std::size_t max_work_group_size = 0;      // work-items per group
    std::array<std::size_t, 3> max_work_item_sizes{0, 0, 0};
    int subgroup_width = 0;                // sub-group width (0 = unknown)
    int preferred_work_group_multiple = 0; // from a probe kernel or the sub-group width
    bool unified_memory = false;           // host and device share memory (CPUs, iGPUs)
    // Loop iterations a work-item may run in all, over every loop of a kernel, before the
    // implementation ends its loops early (0 = no limit): one CPU implementation stops at
    // 65535, silently (docs/api/devices.md); steps with long loops shape for it.
    std::uint64_t max_loop_iterations = 0;
    DeviceCapabilities caps; // what kernels may use; see DeviceCapabilities

    // ---- Launch facts: vector widths and every device-type bit ------------------------------
    // The hardware's vector width per element type (native) and the width the compiler prefers
    // kernels to use (preferred); 1 for every supported type where a work-item is scalar.
    VectorWidths native_vector_width;
    VectorWidths preferred_vector_width;
    // Every type the device reports, as device_type_bit(...) bits: a device may report several
    // (a simulator may report CPU, GPU and Accelerator at once). device_type holds one of
    // them (GPU before CPU before Accelerator); 0 means "only device_type is known".
    unsigned device_type_bits = 0;
    // True when the device reports type `t` (among several, when it reports several).
    bool has_type(DeviceType t) const {
        return device_type_bits ? (device_type_bits & device_type_bit(t)) != 0 : device_type == t;
    }
    bool is_cpu() const { return has_type(DeviceType::cpu); }                 // the CPU bit
    bool is_gpu() const { return has_type(DeviceType::gpu); }                 // the GPU bit
    bool is_accelerator() const { return has_type(DeviceType::accelerator); } // that bit
    // Theoretical peak memory bandwidth in GB/s from clock and bus width, 0 when unknown.
    double peak_bandwidth_gbs() const {
        return memory_clock_mhz > 0 && memory_bus_bits > 0
                   ? 2.0 * memory_clock_mhz * 1e6 * (memory_bus_bits / 8.0) / 1e9
                   : 0.0;
    }
    std::size_t max_parameter_bytes = 0;               // a launch's arguments in all (0 = unknown)
    std::array<std::size_t, 3> max_grid_size{0, 0, 0}; // work-groups per dimension (0 = no limit)
    bool device_addresses = false; // Buffer::device_address() works (pointers inside structs)
    // </portable-facts>
};

} // namespace duet
