#pragma once
// The OpenCL device, its buffers and pinned host memory.
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>

#include <duet/device.hpp>

#include "opencl_common.hpp"
#include "opencl_svm.hpp"

namespace duet::opencl {

struct ProgramEntry;
class OpenclHostBuffer;
class TileMapStore;

// The extension (DeviceInfo::extensions) of NVIDIA's OpenCL on Hopper: kernels built at run time
// may hold sm_90a-only PTX lines (opencl_program_sm90a.cpp), and the device takes tile maps.
inline constexpr const char* sm90a_extension = "nv.sm90a_ptx";

// Where a buffer lies in shared virtual memory (opencl_svm.hpp): its allocation, its offset in it
// (a view's), and the registry that lists the allocation to kernels once its address is asked.
struct SvmPlace {
    void* base = nullptr; // the clSVMAlloc allocation (null: not SVM)
    std::size_t offset = 0;
    SvmRegistry* registry = nullptr;
};

// Device memory: a cl::Buffer of the device's own context (over SVM where the device has it).
class OpenclBuffer final : public Buffer {
  public:
    // `host`: the pinned host buffer this is the kernel-argument view of (else null).
    OpenclBuffer(cl::Buffer b, std::size_t size, const void* owner,
                 OpenclHostBuffer* host = nullptr, SvmPlace svm = {})
        : buffer_(std::move(b)), size_(size), owner_(owner), host_(host), svm_(svm) {}
    // Takes the allocation off the registry's list (if its address was asked) before the cl_mem
    // goes, and with it (once the driver deletes it) the allocation.
    ~OpenclBuffer() override;
    std::size_t size() const override { return size_; }
    // The SVM address (opencl_svm.cpp), listed from then on to every kernel of the device; a
    // usage Error saying what is missing where the buffer is not SVM.
    std::uint64_t device_address() const override;
    const cl::Buffer& get() const { return buffer_; }
    const void* owner() const { return owner_; }
    const SvmPlace& svm() const { return svm_; }
    // The mapped host buffer behind this view, which a launch unmaps around the kernel.
    OpenclHostBuffer* host() const { return host_; }
    // The buffer's device address once a tile map over it has asked for it (0: not yet).
    mutable std::atomic<std::uint64_t> queried_address{0};

  private:
    cl::Buffer buffer_;
    std::size_t size_;
    const void* owner_; // the OpenclDevice that made it, to catch cross-device use
    OpenclHostBuffer* host_;
    SvmPlace svm_;
    mutable std::atomic<bool> listed_{false}; // device_address() added it to the registry
};

// Pinned host memory: a CL_MEM_ALLOC_HOST_PTR buffer kept mapped for its lifetime.
class OpenclHostBuffer final : public HostBuffer {
  public:
    // `owner`: the device the buffer was made on (its kernels may take it as an argument).
    OpenclHostBuffer(cl::CommandQueue q, cl::Buffer b, void* ptr, std::size_t size,
                     const void* owner)
        : queue_(std::move(q)), buffer_(b), ptr_(ptr), size_(size), view_(b, size, owner, this) {}
    ~OpenclHostBuffer() override;
    void* data() override;
    std::size_t size() const override { return size_; }
    bool pinned() const override { return true; }
    // The CL_MEM_ALLOC_HOST_PTR buffer itself: a launch that takes it unmaps it before the
    // kernel and maps it again after (OpenCL forbids a kernel a mapped buffer), so data() is
    // the kernel's result once the launch is done.
    const Buffer* device_buffer() const override { return &view_; }
    // Around a kernel that takes the buffer, on the launching queue (in order with it).
    // (Once per launch, however many of its arguments name this buffer.) A launch on another
    // queue while the last one's may still run is a usage Error, before anything is unmapped.
    void unmap_before(cl::CommandQueue& q);
    void map_after(cl::CommandQueue& q);

  private:
    cl::CommandQueue queue_;
    cl::Buffer buffer_;
    void* ptr_;
    std::size_t size_;
    OpenclBuffer view_;
    bool mapped_ = true;
    cl::CommandQueue last_;  // the queue of the last launch that took the buffer
    cl::Event map_event_;    // its map after that launch
    bool launching_ = false; // between a launch's unmap and its map
    std::mutex mutex_;
};

// One OpenCL device with its own context (created on first use).
class OpenclDevice final : public Device {
  public:
    OpenclDevice(cl::Platform platform, cl::Device device, DeviceInfo info);
    const DeviceInfo& info() const override { return info_; }
    std::unique_ptr<Queue> create_queue(const QueueOptions& options) override;
    // Also CUDA C++ and SPIR-V where the device takes IL, CUDA C++ and PTX on NVIDIA's OpenCL
    // (opencl_routes.cpp).
    bool takes(const Dialect& dialect, const DialectRoute& route, std::string& why) const override;
    std::unique_ptr<Buffer> alloc_bytes(std::size_t bytes) override;
    std::unique_ptr<HostBuffer> alloc_host(std::size_t bytes) override;
    // CL_MEM_USE_HOST_PTR on a CPU device (not a simulator, which copies anyway).
    std::unique_ptr<Buffer> read_in_place(std::shared_ptr<const void> keep, const void* data,
                                          std::size_t bytes) override;
    // A sub-buffer (clCreateSubBuffer) of one of this device's buffers.
    std::unique_ptr<Buffer> view(const Buffer& parent, std::size_t offset,
                                 std::size_t bytes) override;
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN, in bytes: a sub-buffer's origin must be a multiple of it.
    std::size_t view_alignment() const override;
    // Oclgrind's count of the errors and warnings it printed (opencl_checker.cpp); -1 elsewhere.
    long long checker_reports() const override;

    const cl::Device& cl_device() const { return device_; }
    cl::Context& context();
    // "opencl:0 (name)" for messages.
    std::string where() const { return label(); }
    // Whether programs made from this driver's binaries keep their kernels' argument information
    // (-1: not known yet; build_program finds out once, on the first program it caches).
    std::atomic<int> binaries_keep_arg_info{-1};
    // The device's duet::tile_map encodings (opencl_tile_map.cpp), made on first use.
    TileMapStore& tile_maps();
    // The SVM allocations whose addresses were asked (opencl_svm.hpp); a launch gives them to
    // the kernel. Used only where the device offers SVM.
    SvmRegistry& svm_registry() { return svm_registry_; }
    // Whether buffers are SVM (coarse-grained buffer SVM); else what the device lacks for it.
    bool offers_svm() const { return svm_lacks_.empty(); }
    const std::string& svm_lacks() const { return svm_lacks_; }

  protected:
    std::unique_ptr<Kernel> do_load_kernel(const std::string& name,
                                           const BuildOptions& options) override;

  private:
    cl::Platform platform_;
    cl::Device device_;
    DeviceInfo info_;
    std::once_flag context_once_;
    cl::Context context_;
    std::string svm_lacks_;    // empty: the device offers coarse-grained buffer SVM
    SvmRegistry svm_registry_; // after context_: its allocation is freed before the context goes
    // The program built under `key`, built by `build` once per device.
    std::shared_ptr<ProgramEntry>
    program_once(const std::string& key, bool& in_memory,
                 const std::function<std::shared_ptr<ProgramEntry>()>& build);
    // Kernel `name` of a built program.
    std::unique_ptr<Kernel> make_kernel(const std::string& name,
                                        const std::shared_ptr<ProgramEntry>& entry, bool in_memory,
                                        const std::string& origin);
    // A kernel from SPIR-V or PTX: such a text, or a text taken through a route to either.
    std::unique_ptr<Kernel> load_translated_kernel(const std::string& name,
                                                   const BuildOptions& options,
                                                   const KernelText& text,
                                                   const DialectRoute& route);
    // A kernel of CUDA C++ `text` through the cuda-c++-via-ptx route (opencl_device_ptx.cpp).
    std::unique_ptr<Kernel> load_cuda_ptx_kernel(const std::string& name,
                                                 const BuildOptions& options,
                                                 const KernelText& text);
    // One slot per (source, options): its build runs once, outside programs_mutex_, so builds of
    // different programs proceed at once (runapp builds a run's programs up front, in parallel).
    struct ProgramSlot {
        std::once_flag built;
        std::shared_ptr<ProgramEntry> entry;
    };
    std::mutex programs_mutex_;
    std::map<std::string, std::shared_ptr<ProgramSlot>> programs_; // by cache key
    std::once_flag tile_maps_once_;
    std::shared_ptr<TileMapStore> tile_maps_;
};

// Reads everything runapp info shows about a device.
DeviceInfo describe_device(const cl::Platform& platform, const cl::Device& device, int index,
                           const std::string& library);
// Fills DeviceInfo's launch facts: every device-type bit of `type`, and the native and
// preferred vector widths (opencl_launch_facts.cpp).
void describe_launch_facts(const cl::Device& device, cl_device_type type, DeviceInfo& info);

} // namespace duet::opencl
