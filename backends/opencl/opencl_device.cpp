// An OpenCL device: its context, memory and kernels (what it is: opencl_device_info.cpp).

#include <duet/backend/kernel_sources.hpp>
#include <duet/backend/log.hpp>
#include <duet/host_memory.hpp>

#include "opencl_check.hpp"
#include "opencl_clang.hpp"
#include "opencl_device.hpp"
#include "opencl_program.hpp"
#include "opencl_queue.hpp"
#include "opencl_routes.hpp"
#include "opencl_tile_map.hpp"

namespace duet::opencl {

OpenclHostBuffer::~OpenclHostBuffer() {
    try {
        if (last_())
            last_.finish(); // its map after the last launch
        queue_.enqueueUnmapMemObject(buffer_, ptr_);
        queue_.finish();
    } catch (const std::exception& e) {
        log().warn("unmapping pinned host memory failed: {}", e.what());
    }
}

OpenclDevice::OpenclDevice(cl::Platform platform, cl::Device device, DeviceInfo info)
    : platform_(std::move(platform)), device_(std::move(device)), info_(std::move(info)) {
    info_.device_addresses = opencl::offers_svm(device_, svm_lacks_); // buffers are SVM
    info_.details.emplace_back("Device addresses (Buffer::device_address)",
                               info_.device_addresses ? "yes: coarse-grained buffer SVM"
                                                      : "no: the device lacks " + svm_lacks_);
}

cl::Context& OpenclDevice::context() {
    std::call_once(context_once_, [this] {
        try {
            log().debug("clCreateContext({})", info_.name);
            context_ = cl::Context(device_);
        } catch (const cl::Error& e) {
            rethrow(e, "creating a context on " + where());
        }
    });
    return context_;
}

TileMapStore& OpenclDevice::tile_maps() {
    std::call_once(tile_maps_once_, [this] { tile_maps_ = std::make_shared<TileMapStore>(); });
    return *tile_maps_;
}

std::unique_ptr<Queue> OpenclDevice::create_queue(const QueueOptions& options) {
    return std::make_unique<OpenclQueue>(*this, options.timing);
}

std::unique_ptr<Buffer> OpenclDevice::alloc_bytes(std::size_t bytes) {
    if (bytes == 0)
        throw Error::usage("cannot allocate a buffer of 0 bytes on " + where());
    if (bytes > info_.max_alloc_bytes)
        throw Error(ErrorKind::runtime, "opencl", "clCreateBuffer", CL_INVALID_BUFFER_SIZE,
                    "CL_INVALID_BUFFER_SIZE",
                    "allocating " + std::to_string(bytes) + " bytes on " + where() +
                        ": over the device's largest allocation (CL_DEVICE_MAX_MEM_ALLOC_SIZE = " +
                        std::to_string(info_.max_alloc_bytes) + " bytes); use a smaller size");
    // A CPU device's buffers are host memory: past what the host has free, PoCL thrashes for
    // tens of seconds, then asserts. Refuse before the driver sees it.
    if (info_.is_cpu())
        if (const auto avail = host_memory_available(); avail && bytes > avail)
            throw Error(ErrorKind::runtime, "opencl", "clCreateBuffer",
                        CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE",
                        "allocating " + bytes_text(bytes) + " on " + where() +
                            ": the host has only " + bytes_text(avail) +
                            " available (MemAvailable); use a smaller size");
    // Where the device has SVM every buffer is SVM: its address may go inside a struct
    // (PoCL: a 64 MiB write or read takes as long either way).
    if (offers_svm())
        return alloc_svm_buffer(*this, bytes);
    try {
        log().debug("clCreateBuffer({} bytes)", bytes);
        return std::make_unique<OpenclBuffer>(cl::Buffer(context(), CL_MEM_READ_WRITE, bytes),
                                              bytes, this);
    } catch (const cl::Error& e) {
        rethrow(e, "allocating " + std::to_string(bytes) + " bytes on " + where());
    }
}

std::unique_ptr<Buffer> OpenclDevice::view(const Buffer& parent, std::size_t offset,
                                           std::size_t bytes) {
    const auto* ob = dynamic_cast<const OpenclBuffer*>(&parent);
    if (!ob || ob->owner() != this)
        throw Error::usage("a view's parent buffer belongs to another device or backend, not " +
                           where());
    // The host keeps a pinned buffer mapped; a launch unmaps the buffer it is given around the
    // kernel, but a sub-buffer's kernel would run on mapped memory (Oclgrind: invalid reads).
    if (ob->host())
        throw Error::usage("a view of a pinned HostBuffer's device_buffer() on " + where() +
                           ": its memory stays mapped for the host, and OpenCL allows a kernel no "
                           "mapped memory; pass the HostBuffer itself, or copy the part into a "
                           "device buffer");
    if (bytes == 0 || offset > parent.size() || bytes > parent.size() - offset ||
        offset % view_alignment() != 0)
        throw Error::usage("a view of " + std::to_string(bytes) + " bytes at offset " +
                           std::to_string(offset) + " does not fit a buffer of " +
                           std::to_string(parent.size()) + " bytes at an alignment of " +
                           std::to_string(view_alignment()) + " bytes on " + where());
    const cl_buffer_region region{offset, bytes};
    cl_int err = CL_SUCCESS;
    cl_mem sub = clCreateSubBuffer(ob->get()(), CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                   &region, &err);
    if (err != CL_SUCCESS)
        rethrow(cl::Error(err, "clCreateSubBuffer"),
                "making a view of " + std::to_string(bytes) + " bytes on " + where());
    SvmPlace place = ob->svm(); // a view of SVM has the address of its first byte
    place.offset += offset;
    return std::make_unique<OpenclBuffer>(cl::Buffer(sub), bytes, this, nullptr, place);
}

std::size_t OpenclDevice::view_alignment() const {
    cl_uint bits = 0;
    if (clGetDeviceInfo(device_(), CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, nullptr) !=
            CL_SUCCESS ||
        bits < 8)
        return 4096;
    return bits / 8;
}

void* OpenclHostBuffer::data() {
    if (!mapped_) { // a launch that failed between its unmap and its map
        if (last_())
            last_.finish();
        ptr_ = queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, size_);
        mapped_ = true;
        launching_ = false;
    }
    return ptr_;
}

void OpenclHostBuffer::unmap_before(cl::CommandQueue& q) {
    // Another queue's launch may still run on this memory, and its map may not have happened:
    // unmapping then is undefined (PoCL crashed). In use on one queue at a time.
    const std::lock_guard lock(mutex_);
    if (last_() && last_() != q()) {
        cl_int status = CL_COMPLETE;
        if (launching_ || (map_event_() && (map_event_.getInfo(CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                               &status) != CL_SUCCESS ||
                                            status != CL_COMPLETE)))
            throw Error::usage("a pinned HostBuffer passed to a launch on one queue while a "
                               "launch on another queue still uses it; finish() that queue "
                               "first (a HostBuffer is used from one queue at a time)");
    }
    if (mapped_)
        q.enqueueUnmapMemObject(buffer_, ptr_);
    mapped_ = false;
    launching_ = true;
    last_ = q;
}

void OpenclHostBuffer::map_after(cl::CommandQueue& q) {
    const std::lock_guard lock(mutex_);
    launching_ = false;
    if (!mapped_)
        ptr_ = q.enqueueMapBuffer(buffer_, CL_FALSE, CL_MAP_READ | CL_MAP_WRITE, 0, size_, nullptr,
                                  &map_event_);
    mapped_ = true;
}

std::unique_ptr<HostBuffer> OpenclDevice::alloc_host(std::size_t bytes) {
    if (bytes == 0)
        throw Error::usage("cannot allocate 0 bytes of pinned host memory");
    try {
        log().debug("clCreateBuffer(CL_MEM_ALLOC_HOST_PTR, {} bytes) + map", bytes);
        cl::Buffer b(context(), CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, bytes);
        cl::CommandQueue q(context(), device_);
        void* p = q.enqueueMapBuffer(b, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
        return std::make_unique<OpenclHostBuffer>(q, b, p, bytes, this);
    } catch (const cl::Error& e) {
        rethrow(e, "allocating " + std::to_string(bytes) + " bytes of pinned host memory for " +
                       where());
    }
}

std::unique_ptr<Buffer> OpenclDevice::read_in_place(std::shared_ptr<const void> keep,
                                                    const void* data, std::size_t bytes) {
    if (!info_.is_cpu() || info_.caps.simulator || bytes == 0 || bytes > info_.max_alloc_bytes ||
        reinterpret_cast<std::uintptr_t>(data) % view_alignment() != 0)
        return nullptr;
    cl_int err = CL_SUCCESS;
    cl_mem mem = clCreateBuffer(context()(), CL_MEM_READ_ONLY | CL_MEM_USE_HOST_PTR, bytes,
                                const_cast<void*>(data), &err);
    if (err != CL_SUCCESS) {
        log().debug("clCreateBuffer(CL_MEM_USE_HOST_PTR, {} bytes): {}; copying instead", bytes,
                    err);
        return nullptr;
    }
    // The implementation may hold the memory past the buffer's release (commands in flight):
    // `keep` goes when it says the object is gone.
    auto* held = new std::shared_ptr<const void>(std::move(keep));
    const auto release = [](cl_mem, void* p) {
        delete static_cast<std::shared_ptr<const void>*>(p);
    };
    if (clSetMemObjectDestructorCallback(mem, release, held) != CL_SUCCESS) {
        clReleaseMemObject(mem);
        delete held;
        return nullptr;
    }
    log().debug("clCreateBuffer(CL_MEM_USE_HOST_PTR, {} bytes): read in place", bytes);
    return std::make_unique<OpenclBuffer>(cl::Buffer(mem), bytes, this);
}

std::unique_ptr<Kernel> OpenclDevice::do_load_kernel(const std::string& name,
                                                     const BuildOptions& options) {
    std::string source, origin;
    if (!options.sources.empty()) {
        // The text the dialect table's routes give this device (OpenclDevice::takes).
        auto [chosen, route] = choose_text(options.sources);
        if (!route.translation.empty() || !dialect(chosen.dialect).language)
            return load_translated_kernel(name, options, chosen, route);
        source = std::move(chosen.text);
        origin = std::move(chosen.origin);
    } else {
        auto file = find_kernel_source(name, KernelLanguage::opencl_c);
        if (!file) {
            std::string some;
            for (const auto& n : kernel_names(KernelLanguage::opencl_c))
                some += (some.empty() ? "" : ", ") + n;
            throw Error::not_found("no OpenCL kernel named '" + name +
                                   "' in Duet's kernels; "
                                   "the kernels are: " +
                                   some);
        }
        source = std::move(file->text);
        origin = file->name;
    }
    const std::string opts = build_options(options);
    bool in_memory = false;
    // One build per (source, options) per device, even when several threads ask at once.
    auto entry = program_once(source + '\0' + opts, in_memory,
                              [&] { return build_program(*this, source, opts, origin); });
    return make_kernel(name, entry, in_memory, origin);
}

bool OpenclDevice::takes(const Dialect& dialect, const DialectRoute& route,
                         std::string& why) const {
    // SPIR-V where the device takes IL (Intel's CPU runtime), PTX on NVIDIA's OpenCL: the
    // table lists SPIR-V first, so a device that takes both builds IL.
    if (route.translation == cuda_via_spirv || dialect.name == "spir-v")
        return takes_il(device_, why);
    if (route.translation == cuda_via_ptx || dialect.name == "ptx")
        return takes_ptx(platform_, !route.translation.empty(), why);
    return Device::takes(dialect, route, why);
}

std::shared_ptr<ProgramEntry>
OpenclDevice::program_once(const std::string& key, bool& in_memory,
                           const std::function<std::shared_ptr<ProgramEntry>()>& build) {
    std::shared_ptr<ProgramSlot> slot;
    {
        std::lock_guard lock(programs_mutex_);
        auto& s = programs_[key];
        if (!s)
            s = std::make_shared<ProgramSlot>();
        slot = s;
    }
    // One build per (source, options) per device, even when several threads ask at once; other
    // programs build meanwhile (runapp builds a run's programs up front, in parallel). A build
    // that throws leaves the slot empty for the next ask.
    in_memory = true;
    std::call_once(slot->built, [&] {
        slot->entry = build();
        in_memory = false;
    });
    return slot->entry;
}

// A SPIR-V or PTX text, or CUDA C++ made SPIR-V by clang (opencl_clang.cpp; made PTX:
// opencl_device_ptx.cpp), built from IL or as a program binary. Not in the on-disk cache: clang's
// build is kept in memory for the process, under a key of the route, the text, the options and the
// tools.
std::unique_ptr<Kernel> OpenclDevice::load_translated_kernel(const std::string& name,
                                                             const BuildOptions& options,
                                                             const KernelText& text,
                                                             const DialectRoute& route) {
    if (route.translation == cuda_via_ptx)
        return load_cuda_ptx_kernel(name, options, text);
    const bool ptx = text.dialect == "ptx";
    const ClangTarget target = ptx ? ClangTarget::ptx : ClangTarget::spir_v;
    const std::string opts = "-cl-kernel-arg-info";
    std::string key = route.translation + '\0' + text.dialect + '\0' + text.text + '\0' + opts;
    for (const auto& [n, v] : options.defines)
        key += " -D" + n + "=" + v;
    key += options.fast_math ? " fast-math" : "";
    if (!route.translation.empty())
        key += '\0' + clang_tools(target).identity;
    bool in_memory = false;
    auto entry = program_once(key, in_memory, [&] {
        std::string flags = ptx ? "ptx" : "spir-v"; // what the device built
        std::vector<unsigned char> bytes(text.text.begin(), text.text.end());
        if (!route.translation.empty())
            bytes = cuda_through_clang(target, text.text, text.origin, options, flags);
        else if (ptx && (bytes.empty() || bytes.back() != '\0'))
            bytes.push_back('\0'); // NVIDIA's OpenCL reads a PTX binary as a C string
        auto built = build_program_from(*this, ptx ? ProgramForm::binary : ProgramForm::il, bytes,
                                        opts, text.origin);
        built->options = flags + " | " + opts;
        return built;
    });
    return make_kernel(name, entry, in_memory, text.origin);
}

std::unique_ptr<Kernel> OpenclDevice::make_kernel(const std::string& name,
                                                  const std::shared_ptr<ProgramEntry>& entry,
                                                  bool in_memory, const std::string& origin) {
    const double ms = in_memory ? 0.0 : entry->build_ms;
    const auto lowered = entry->entries.find(name);
    const std::string& entry_name = lowered == entry->entries.end() ? name : lowered->second;
    if (auto no = entry->refused.find(entry_name); no != entry->refused.end())
        throw Error(ErrorKind::unsupported, "opencl", "clCreateKernel", 0, "",
                    "kernel '" + name + "' of " + origin + " cannot run on " + where() + ": " +
                        no->second);
    try {
        cl::Kernel k(entry->program, entry_name.c_str());
        const auto max_wg = k.getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
        return std::make_unique<OpenclKernel>(std::move(k), name, entry, max_wg, ms,
                                              in_memory          ? Provenance::memory_cache
                                              : entry->cache_hit ? Provenance::disk_cache
                                                                 : Provenance::compiled,
                                              device_);
    } catch (const cl::Error& e) {
        if (e.err() == CL_INVALID_KERNEL_NAME) {
            std::string names;
            try {
                names = entry->program.getInfo<CL_PROGRAM_KERNEL_NAMES>();
                for (auto& c : names)
                    if (c == ';')
                        c = ' ';
            } catch (...) {
            }
            throw Error(ErrorKind::not_found, "opencl", "clCreateKernel", e.err(),
                        "CL_INVALID_KERNEL_NAME",
                        "there is no kernel '" + name + "' in " + origin +
                            (names.empty() ? std::string() : "; it defines: " + names));
        }
        rethrow(e, "creating kernel " + name + " from " + origin + " on " + where());
    }
}

} // namespace duet::opencl
