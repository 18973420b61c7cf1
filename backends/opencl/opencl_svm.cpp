// Coarse-grained buffer SVM: buffers with device addresses, and the list a launch gives a kernel.
#include <cstdlib>
#include <string>
#include <vector>

#include <duet/backend/log.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"
#include "opencl_program.hpp"
#include "opencl_svm.hpp"

namespace duet::opencl {

namespace {

// What a destructor callback frees once the driver deletes the cl_mem over the allocation.
struct SvmAllocation {
    cl_context context;
    void* base;
};

void CL_CALLBACK free_allocation(cl_mem, void* user) {
    auto* a = static_cast<SvmAllocation*>(user);
    clSVMFree(a->context, a->base);
    delete a;
}

} // namespace

bool offers_svm(const cl::Device& d, std::string& lacks) {
    // Every buffer of an SVM device is an SVM allocation. Measured on CPU devices (PoCL: 64 MiB
    // transfers as fast as plain buffers); on a GPU an SVM allocation may be placed apart from
    // ordinary device memory, so there it waits for DUET_OPENCL_SVM=1 until measured.
    const char* env = std::getenv("DUET_OPENCL_SVM");
    const std::string choice = env ? env : "";
    if (choice == "0") {
        lacks = "shared virtual memory: DUET_OPENCL_SVM=0 keeps every buffer a plain cl_mem";
        return false;
    }
    cl_device_type type = 0;
    clGetDeviceInfo(d(), CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    if (choice != "1" && (type & CL_DEVICE_TYPE_CPU) == 0) {
        lacks = "shared virtual memory on by default (Duet makes buffers SVM by default only on "
                "CPU devices; DUET_OPENCL_SVM=1 makes them SVM here too, where the device offers "
                "coarse-grained SVM)";
        return false;
    }
    // "OpenCL <major>.<minor> <vendor text>"
    std::string version;
    try {
        version = d.getInfo<CL_DEVICE_VERSION>();
    } catch (const cl::Error&) {
    }
    const int major = version.rfind("OpenCL ", 0) == 0 ? std::atoi(version.c_str() + 7) : 0;
    if (major < 2) {
        lacks = "shared virtual memory (SVM came with OpenCL 2.0; the device is " +
                (version.empty() ? std::string("of an unknown version") : version.substr(0, 10)) +
                ")";
        return false;
    }
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(d(), CL_DEVICE_SVM_CAPABILITIES, sizeof caps, &caps, nullptr) !=
            CL_SUCCESS ||
        (caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) == 0) {
        lacks = "coarse-grained buffer SVM (its CL_DEVICE_SVM_CAPABILITIES has no "
                "CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)";
        return false;
    }
    lacks.clear();
    return true;
}

SvmRegistry::~SvmRegistry() {
    if (sentinel_)
        clSVMFree(context_, sentinel_);
}

void SvmRegistry::add(cl_context context, void* base) {
    const std::lock_guard lock(mutex_);
    if (!sentinel_) {
        context_ = context;
        sentinel_ = clSVMAlloc(context, CL_MEM_READ_WRITE, 64, 0);
    }
    if (++live_[base] == 1)
        generation_.fetch_add(1, std::memory_order_acq_rel);
}

void SvmRegistry::remove(void* base) {
    const std::lock_guard lock(mutex_);
    const auto it = live_.find(base);
    if (it == live_.end() || --it->second > 0)
        return;
    live_.erase(it);
    generation_.fetch_add(1, std::memory_order_acq_rel);
}

cl_int SvmRegistry::give(OpenclKernel& k) {
    if (generation_.load(std::memory_order_acquire) == k.svm_generation)
        return CL_SUCCESS; // the common launch: nothing changed since this kernel's last one
    std::vector<void*> list;
    std::uint64_t generation = 0;
    {
        const std::lock_guard lock(mutex_);
        generation = generation_.load(std::memory_order_relaxed);
        list.reserve(live_.size() + 1);
        if (sentinel_)
            list.push_back(sentinel_);
        for (const auto& [base, count] : live_)
            list.push_back(base);
    }
    if (!list.empty()) {
        log().debug("clSetKernelExecInfo({}, CL_KERNEL_EXEC_INFO_SVM_PTRS, {} allocations)",
                    k.name(), list.size());
        if (const cl_int e = clSetKernelExecInfo(k.get()(), CL_KERNEL_EXEC_INFO_SVM_PTRS,
                                                 list.size() * sizeof(void*), list.data());
            e != CL_SUCCESS)
            return e;
    }
    k.svm_generation = generation;
    return CL_SUCCESS;
}

std::unique_ptr<OpenclBuffer> alloc_svm_buffer(OpenclDevice& dev, std::size_t bytes) {
    const auto doing = [&] {
        return "allocating " + std::to_string(bytes) + " bytes of shared virtual memory on " +
               dev.where();
    };
    const cl_context context = dev.context()();
    log().debug("clSVMAlloc({} bytes) + clCreateBuffer(CL_MEM_USE_HOST_PTR)", bytes);
    void* base = clSVMAlloc(context, CL_MEM_READ_WRITE, bytes, 0);
    if (!base) { // clSVMAlloc gives no code
        // Seen on NVIDIA's OpenCL (driver 580, H100): coarse-grained buffer SVM advertised,
        // every clSVMAlloc NULL.
        const char* env = std::getenv("DUET_OPENCL_SVM");
        const bool asked = env && std::string(env) == "1";
        throw Error(ErrorKind::runtime, "opencl", "clSVMAlloc", CL_MEM_OBJECT_ALLOCATION_FAILURE,
                    "CL_MEM_OBJECT_ALLOCATION_FAILURE",
                    doing() + ": the driver returned NULL" +
                        (asked ? std::string("; DUET_OPENCL_SVM=1 asked for SVM buffers, which "
                                             "this driver advertises but does not give: unset "
                                             "it (or set 0) to use plain buffers")
                               : std::string()));
    }
    cl_int err = CL_SUCCESS;
    cl_mem mem =
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, base, &err);
    if (err != CL_SUCCESS) {
        clSVMFree(context, base);
        fail(err, "clCreateBuffer", doing());
    }
    // Freed when the driver deletes the cl_mem: after the commands that use it and the views
    // (sub-buffers) over it, as a buffer without SVM is.
    auto* held = new SvmAllocation{context, base};
    err = clSetMemObjectDestructorCallback(mem, free_allocation, held);
    if (err != CL_SUCCESS) {
        clReleaseMemObject(mem);
        clSVMFree(context, base);
        delete held;
        fail(err, "clSetMemObjectDestructorCallback", doing());
    }
    return std::make_unique<OpenclBuffer>(cl::Buffer(mem), bytes, &dev, nullptr,
                                          SvmPlace{base, 0, &dev.svm_registry()});
}

OpenclBuffer::~OpenclBuffer() {
    if (listed_.load(std::memory_order_relaxed))
        svm_.registry->remove(svm_.base);
}

std::uint64_t OpenclBuffer::device_address() const {
    const auto* dev = static_cast<const OpenclDevice*>(owner_);
    if (!svm_.base && !dev->offers_svm())
        throw Error::usage(dev->where() +
                           " gives no device addresses of its buffers "
                           "(DeviceInfo::device_addresses is false): the device lacks " +
                           dev->svm_lacks() +
                           "; pass each buffer as a kernel argument of its own instead of "
                           "inside a struct or closure");
    if (!svm_.base)
        throw Error::usage(std::string("this buffer of ") + dev->where() +
                           " has no device address: it is " +
                           (host_ ? "pinned host memory (a HostBuffer's device_buffer())"
                                  : "host memory read in place") +
                           ", not shared virtual memory; copy it into a buffer from "
                           "Device::alloc, or pass it as a kernel argument of its own");
    if (!listed_.exchange(true))
        svm_.registry->add(buffer_.getInfo<CL_MEM_CONTEXT>()(), svm_.base);
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(svm_.base)) + svm_.offset;
}

} // namespace duet::opencl
