#pragma once
// In-order profiling queues and their events.
#include <functional>
#include <string>

#include <duet/backend/launch_checks.hpp>
#include <duet/device.hpp>

#include "opencl_common.hpp"

namespace duet::opencl {

class OpenclDevice;
class OpenclKernel;

// An event with device timestamps (CL_QUEUE_PROFILING_ENABLE).
class OpenclEvent final : public EventImpl {
  public:
    explicit OpenclEvent(cl::Event e) : event_(std::move(e)) {}
    void wait() override;
    double elapsed_ms() override;
    double elapsed_ms_until(EventImpl& last) override;

  private:
    cl_ulong profile(cl_profiling_info what);
    cl::Event event_;
};

// An in-order queue on one device.
class OpenclQueue final : public Queue {
  public:
    OpenclQueue(OpenclDevice& dev, bool timing);
    // Waits for what is queued: a pending non-blocking transfer never outlives its queue.
    ~OpenclQueue() override;
    const Device& device() const override;
    void finish() override;

  protected:
    Event do_write_bytes(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset,
                         bool blocking) override;
    Event do_read_bytes(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset,
                        bool blocking) override;
    Event do_copy(const Buffer& src, Buffer& dst, std::size_t bytes) override;
    Event do_fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size,
                        std::size_t bytes) override;
    LaunchContract launch_contract(Kernel& kernel) const override;
    Event do_launch(Kernel& kernel, const Range& range, const std::array<std::size_t, 3>& local,
                    KernelArgs args) override;

  private:
    // The kernel as one of this backend's, else a usage Error.
    OpenclKernel& own(Kernel& kernel) const;
    const cl::Buffer& buffer_of(const Buffer& b, const char* role) const;
    // The device buffer argument `i`, an extension (a duet::tile_map), becomes; else a usage
    // Error naming it (`doing` names the launch).
    cl::Buffer extension_buffer(const OpenclKernel& k, const KernelArg& a, std::size_t i,
                                const std::function<std::string()>& doing);
    // The event to ask the driver for: none when the queue has timing off.
    cl::Event* event_slot(cl::Event& e) { return timing_ ? &e : nullptr; }
    // The Event handed back for an operation.
    Event wrap(const cl::Event& e);
    bool timing_ = true;
    OpenclDevice& dev_;
    cl::CommandQueue queue_;
    // With timing off, the one Event every operation returns (it waits for the whole queue):
    // made once, so a launch costs a reference count rather than an allocation and a
    // clRetainCommandQueue.
    Event untimed_;
};

} // namespace duet::opencl
