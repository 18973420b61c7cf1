// DeviceInfo for an OpenCL device: the fields every backend fills, its capabilities from
// CL_DEVICE_TYPE and the extensions, and the vendor queries (NVIDIA, AMD, Intel) that give
// UUIDs, PCI bus ids and sub-group sizes.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "opencl_device.hpp"

namespace duet::opencl {

namespace {

// Vendor queries that are not in every header.
constexpr cl_device_info device_uuid_khr = 0x106A;
constexpr cl_device_info pci_bus_info_khr = 0x410F;
constexpr cl_device_info cc_major_nv = 0x4000, cc_minor_nv = 0x4001, warp_size_nv = 0x4003;
constexpr cl_device_info pci_bus_nv = 0x4008, pci_slot_nv = 0x4009, pci_domain_nv = 0x400A;
constexpr cl_device_info wavefront_amd = 0x4043, board_name_amd = 0x4038;
constexpr cl_device_info topology_amd = 0x4037;
constexpr cl_device_info subgroup_sizes_intel = 0x4108;
// cl_ext_float_atomics (not in every header): the capability bits of 32-bit float atomics.
constexpr cl_device_info single_fp_atomics_ext = 0x4231;
constexpr cl_ulong global_fp_atomic_add_ext = 1u << 1;

template <class T> bool query(const cl::Device& d, cl_device_info what, T& out) {
    return clGetDeviceInfo(d(), what, sizeof(T), &out, nullptr) == CL_SUCCESS;
}

std::string query_string(const cl::Device& d, cl_device_info what) {
    std::size_t n = 0;
    if (clGetDeviceInfo(d(), what, 0, nullptr, &n) != CL_SUCCESS || n == 0)
        return {};
    std::string s(n, '\0');
    clGetDeviceInfo(d(), what, n, s.data(), nullptr);
    while (!s.empty() && s.back() == '\0')
        s.pop_back();
    return s;
}

DeviceType device_type(cl_device_type t) {
    if (t & CL_DEVICE_TYPE_GPU)
        return DeviceType::gpu;
    if (t & CL_DEVICE_TYPE_CPU)
        return DeviceType::cpu;
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return DeviceType::accelerator;
    return DeviceType::other;
}

std::string bytes_label(std::uint64_t b) {
    char buf[64];
    if (b >= (1ULL << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(b) / double(1ULL << 30));
    else if (b >= (1ULL << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(b) / double(1ULL << 20));
    else
        std::snprintf(buf, sizeof buf, "%.1f KiB", double(b) / 1024.0);
    return buf;
}

// The host's last-level cache in bytes (the highest level sysfs lists for cpu0), 0 when unknown:
// what a CPU device's working set must exceed to measure memory.
std::uint64_t host_llc_bytes() {
    int best_level = 0;
    std::uint64_t best = 0;
    for (int k = 0; k < 8; ++k) {
        const std::string dir =
            "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(k) + "/";
        int level = 0;
        unsigned long long size = 0;
        char unit = 0;
        std::FILE* f = std::fopen((dir + "level").c_str(), "r");
        if (!f)
            continue;
        const bool got_level = std::fscanf(f, "%d", &level) == 1;
        std::fclose(f);
        f = std::fopen((dir + "size").c_str(), "r");
        if (!f)
            continue;
        const int got = std::fscanf(f, "%llu%c", &size, &unit);
        std::fclose(f);
        if (!got_level || got < 1)
            continue;
        const std::uint64_t bytes = unit == 'K' ? size << 10 : unit == 'M' ? size << 20 : size;
        if (level > best_level || (level == best_level && bytes > best)) {
            best_level = level;
            best = bytes;
        }
    }
    return best;
}

std::string pci_label(unsigned domain, unsigned bus, unsigned dev, unsigned fn) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", domain, bus, dev, fn);
    return buf;
}

} // namespace

DeviceInfo describe_device(const cl::Platform& platform, const cl::Device& d, int index,
                           const std::string& library) {
    DeviceInfo i;
    i.backend = "opencl";
    i.kernel_language = KernelLanguage::opencl_c;
    i.local_index = index;
    i.name = query_string(d, CL_DEVICE_NAME);
    // Mesa's gallivm (llvmpipe, under rusticl) ends every loop of a kernel once the work-item
    // has run LP_MAX_TGSI_LOOP_ITERATIONS (65535) iterations of its loops together: a vecadd
    // chunk of 2^19 floats came back half written.
    if (i.name.rfind("llvmpipe", 0) == 0)
        i.max_loop_iterations = 65535;
    i.vendor = query_string(d, CL_DEVICE_VENDOR);
    cl_device_type type = 0;
    query(d, CL_DEVICE_TYPE, type);
    i.device_type = device_type(type);
    i.type = device_type_name(i.device_type);
    describe_launch_facts(d, type, i);
    i.platform = platform.getInfo<CL_PLATFORM_NAME>();
    // Oclgrind simulates a device: every access checked, a thousand times slower than a CPU.
    i.caps.simulator = i.platform.find("Oclgrind") != std::string::npos;
    i.platform_version = platform.getInfo<CL_PLATFORM_VERSION>();
    i.driver_version = query_string(d, CL_DRIVER_VERSION);
    i.device_version = query_string(d, CL_DEVICE_VERSION);
    i.library = library;
    while (!i.platform.empty() && i.platform.back() == '\0')
        i.platform.pop_back();
    while (!i.platform_version.empty() && i.platform_version.back() == '\0')
        i.platform_version.pop_back();

    const std::string ext = query_string(d, CL_DEVICE_EXTENSIONS);
    auto has = [&](const char* e) {
        return (" " + ext + " ").find(std::string(" ") + e + " ") != std::string::npos;
    };

    cl_uint u = 0;
    cl_ulong ul = 0;
    std::size_t sz = 0;
    if (query(d, CL_DEVICE_MAX_COMPUTE_UNITS, u))
        i.compute_units = int(u);
    if (query(d, CL_DEVICE_MAX_CLOCK_FREQUENCY, u))
        i.clock_mhz = int(u);
    if (query(d, CL_DEVICE_GLOBAL_MEM_SIZE, ul))
        i.global_mem_bytes = ul;
    if (query(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, ul))
        i.max_alloc_bytes = ul;
    if (query(d, CL_DEVICE_LOCAL_MEM_SIZE, ul))
        i.local_mem_bytes = ul;
    if (query(d, CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, ul))
        i.constant_mem_bytes = ul;
    if (query(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, ul))
        i.global_mem_cache_bytes = ul;
    if (type & CL_DEVICE_TYPE_CPU) // a CPU device's last-level cache is the host's (L3, not L2)
        if (const auto llc = host_llc_bytes(); llc)
            i.global_mem_cache_bytes = llc;
    if (query(d, CL_DEVICE_MAX_WORK_GROUP_SIZE, sz))
        i.max_work_group_size = sz;
    cl_uint dims = 0;
    query(d, CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, dims);
    if (dims >= 1) {
        std::vector<std::size_t> sizes(dims);
        if (clGetDeviceInfo(d(), CL_DEVICE_MAX_WORK_ITEM_SIZES, dims * sizeof(std::size_t),
                            sizes.data(), nullptr) == CL_SUCCESS)
            for (cl_uint k = 0; k < std::min<cl_uint>(dims, 3); ++k)
                i.max_work_item_sizes[k] = sizes[k];
    }
    if (query(d, CL_DEVICE_MAX_PARAMETER_SIZE, sz))
        i.max_parameter_bytes = sz;
    cl_bool unified = CL_FALSE;
    if (query(d, CL_DEVICE_HOST_UNIFIED_MEMORY, unified))
        i.unified_memory = unified == CL_TRUE || (type & CL_DEVICE_TYPE_CPU);

    if (has("cl_khr_device_uuid")) {
        unsigned char uuid[16];
        if (clGetDeviceInfo(d(), device_uuid_khr, 16, uuid, nullptr) == CL_SUCCESS) {
            char hex[33];
            for (int k = 0; k < 16; ++k)
                std::snprintf(hex + 2 * k, 3, "%02x", uuid[k]);
            i.uuid = hex;
        }
    }
    if (has("cl_khr_pci_bus_info")) {
        struct {
            cl_uint domain, bus, device, function;
        } pci{};
        if (clGetDeviceInfo(d(), pci_bus_info_khr, sizeof pci, &pci, nullptr) == CL_SUCCESS)
            i.pci_bus_id = pci_label(pci.domain, pci.bus, pci.device, pci.function);
    }
    if (has("cl_nv_device_attribute_query")) {
        cl_uint major = 0, minor = 0, warp = 0, bus = 0, slot = 0, domain = 0;
        if (query(d, cc_major_nv, major) && query(d, cc_minor_nv, minor)) {
            i.details.emplace_back("Compute capability (NV)",
                                   std::to_string(major) + "." + std::to_string(minor));
            // NVIDIA's OpenCL compiler takes inline PTX (`asm`), which reaches the tensor cores
            // (Volta and later) and the device-scope fence (membar.gl) as CUDA does.
            i.caps.inline_asm = true;
            i.caps.matrix_units = major >= 7;
            i.caps.device_scope_fence = true;
            i.architecture = "sm_" + std::to_string(major * 10 + minor);
            // NVIDIA's features by name (docs/api/devices.md's table), sorted: mma.sync with
            // TF32 operands from 8.0; on Hopper (9.0) its compiler targets sm_90, where wgmma is
            // refused, but the driver builds its own PTX raised to sm_90a
            // (opencl_program_sm90a.cpp).
            if (major >= 8)
                i.extensions.push_back("nv.mma_sync");
            if (major == 9 && minor == 0)
                i.extensions.push_back(sm90a_extension);
        }
        if (query(d, warp_size_nv, warp)) {
            i.subgroup_width = int(warp);
            i.caps.subgroup_sizes = {int(warp)};
        }
        if (i.pci_bus_id.empty() && query(d, pci_bus_nv, bus) && query(d, pci_slot_nv, slot)) {
            query(d, pci_domain_nv, domain);
            // The slot id packs device (bits 3-7) and function (bits 0-2).
            i.pci_bus_id = pci_label(domain, bus, slot >> 3, slot & 7);
        }
    }
    if (has("cl_amd_device_attribute_query")) {
        cl_uint wave = 0;
        if (query(d, wavefront_amd, wave)) {
            i.subgroup_width = int(wave);
            i.caps.subgroup_sizes = {int(wave)};
        }
        std::string board = query_string(d, board_name_amd);
        if (!board.empty())
            i.details.emplace_back("Board name (AMD)", board);
        struct {
            cl_uint type;
            char unused[17];
            cl_char bus, device, function;
        } topo{};
        if (i.pci_bus_id.empty() &&
            clGetDeviceInfo(d(), topology_amd, sizeof topo, &topo, nullptr) == CL_SUCCESS &&
            topo.type == 1)
            i.pci_bus_id = pci_label(0, std::uint8_t(topo.bus), std::uint8_t(topo.device),
                                     std::uint8_t(topo.function));
    }
    if (has("cl_intel_subgroups") || has("cl_intel_required_subgroup_size")) {
        std::size_t n = 0;
        if (clGetDeviceInfo(d(), subgroup_sizes_intel, 0, nullptr, &n) == CL_SUCCESS && n) {
            std::vector<std::size_t> sizes(n / sizeof(std::size_t));
            clGetDeviceInfo(d(), subgroup_sizes_intel, n, sizes.data(), nullptr);
            std::string s;
            i.caps.subgroup_sizes.clear();
            for (auto v : sizes) {
                s += (s.empty() ? "" : ", ") + std::to_string(v);
                i.caps.subgroup_sizes.push_back(int(v));
            }
            i.details.emplace_back("Sub-group sizes (Intel)", s);
            if (!sizes.empty() && i.subgroup_width == 0)
                i.subgroup_width = int(*std::max_element(sizes.begin(), sizes.end()));
        }
    }
    if (i.is_cpu() && i.subgroup_width == 0)
        i.subgroup_width = 1; // work-items of a group run one after another
    i.preferred_work_group_multiple = i.subgroup_width;

    i.details.emplace_back("OpenCL C version", query_string(d, CL_DEVICE_OPENCL_C_VERSION));
    if (query(d, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, ul))
        i.details.emplace_back("Global memory cache", bytes_label(ul));
    if (query(d, CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, u))
        i.details.emplace_back("Cache line", std::to_string(u) + " bytes");
    cl_device_local_mem_type lt = 0;
    if (query(d, CL_DEVICE_LOCAL_MEM_TYPE, lt)) {
        i.details.emplace_back("Local memory type",
                               lt == CL_LOCAL ? "dedicated" : "global (emulated)");
        i.caps.local_memory = lt == CL_LOCAL ? LocalMemoryKind::dedicated : LocalMemoryKind::global;
    }
    if (query(d, CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT, u))
        i.details.emplace_back("Preferred float vector width", std::to_string(u));
    if (query(d, CL_DEVICE_NATIVE_VECTOR_WIDTH_FLOAT, u))
        i.details.emplace_back("Native float vector width", std::to_string(u));
    cl_device_fp_config fp = 0;
    // Fused multiply-add of floats in hardware (optional in a device's single-precision config
    // before OpenCL 2.0): the cpu steps use fma() only where it is (apps/framework/cpu_steps.cpp).
    if (query(d, CL_DEVICE_SINGLE_FP_CONFIG, fp))
        i.details.emplace_back("Float fused multiply-add", (fp & CL_FP_FMA) ? "yes" : "no");
    fp = 0;
    if (query(d, CL_DEVICE_DOUBLE_FP_CONFIG, fp))
        i.details.emplace_back("Double precision", fp ? "yes" : "no");
    i.caps.fp64 = fp != 0 || has("cl_khr_fp64");
    i.caps.fp16 = has("cl_khr_fp16");
    // Sub-group functions (sub_group_reduce_add, get_sub_group_id, ...) come with the Khronos
    // extension or Intel's (whose CPU runtime offers only cl_intel_subgroups).
    i.caps.subgroup_functions = has("cl_khr_subgroups") || has("cl_intel_subgroups");
    i.caps.int64_atomics = has("cl_khr_int64_base_atomics");
    cl_ulong fp_atomics = 0;
    i.caps.float_atomics = has("cl_ext_float_atomics") &&
                           query(d, single_fp_atomics_ext, fp_atomics) &&
                           (fp_atomics & global_fp_atomic_add_ext) != 0;
    // Every OpenCL device times profiling-enabled commands with its own clock.
    i.caps.device_timers = true;
    if (query(d, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sz)) {
        i.details.emplace_back("Timer resolution", std::to_string(sz) + " ns");
        i.caps.timer_resolution_ns = double(sz);
    }
    if (query(d, CL_DEVICE_MEM_BASE_ADDR_ALIGN, u))
        i.details.emplace_back("Base address alignment", std::to_string(u / 8) + " bytes");
    // device_addresses and its detail line: the OpenclDevice, which asks once (opencl_svm.cpp).
    i.details.emplace_back("Sub-groups (cl_khr_subgroups)", has("cl_khr_subgroups") ? "yes" : "no");
    i.details.emplace_back("Extensions", ext);
    return i;
}

} // namespace duet::opencl
