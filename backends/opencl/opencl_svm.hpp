#pragma once
// Shared virtual memory (OpenCL 2.0's coarse-grained buffer SVM): device buffers whose address a
// struct or closure may hold (Buffer::device_address), and the list of those a launch gives the
// kernel (CL_KERNEL_EXEC_INFO_SVM_PTRS).
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "opencl_common.hpp"

namespace duet::opencl {

class OpenclBuffer;
class OpenclDevice;
class OpenclKernel;

// Whether `d` offers coarse-grained buffer SVM (an OpenCL 2.0+ device whose
// CL_DEVICE_SVM_CAPABILITIES has CL_DEVICE_SVM_COARSE_GRAIN_BUFFER); where not, `lacks` says what
// the device lacks, for the Error device_address() throws there.
bool offers_svm(const cl::Device& d, std::string& lacks);

// The SVM allocations of one context whose device_address() was asked for and whose buffers are
// alive: what a kernel may reach through an address inside a by-value argument. Thread-safe.
class SvmRegistry {
  public:
    SvmRegistry() = default;
    SvmRegistry(const SvmRegistry&) = delete;
    SvmRegistry& operator=(const SvmRegistry&) = delete;
    ~SvmRegistry();
    // A buffer over the allocation at `base` gave its address (a view and its parent are two).
    void add(cl_context context, void* base);
    // That buffer is being destroyed: the allocation is no longer listed once none is left.
    void remove(void* base);
    // Gives `k` the list of allocations (CL_KERNEL_EXEC_INFO_SVM_PTRS) where it changed since
    // the kernel's last launch (an atomic load on a launch where it did not). Call under the
    // kernel's launch lock. The driver's code: CL_SUCCESS, else what clSetKernelExecInfo said.
    cl_int give(OpenclKernel& k);

  private:
    std::mutex mutex_;
    std::map<void*, int> live_; // allocation -> how many live buffers over it gave its address
    // Bumped on every change; a kernel keeps the value it was last given (0: never given one).
    std::atomic<std::uint64_t> generation_{0};
    cl_context context_ = nullptr;
    // A small allocation always first in the list, so that the list a kernel is given is never
    // empty once one was (OpenCL calls an empty one CL_INVALID_VALUE): freed with the registry.
    void* sentinel_ = nullptr;
};

// `bytes` of coarse-grained SVM on `dev` as a buffer: a cl_mem over a clSVMAlloc allocation
// (CL_MEM_USE_HOST_PTR: the cl_mem aliases it, so transfers, fills, copies and buffer arguments
// work as on any buffer), freed by clSVMFree once the driver deletes the cl_mem (after the
// commands that use it and the views over it).
std::unique_ptr<OpenclBuffer> alloc_svm_buffer(OpenclDevice& dev, std::size_t bytes);

} // namespace duet::opencl
