// Queue operations. Sizes, offsets, ranges and argument kinds were checked by the runtime
// (runtime/src/queue.cpp) before these hooks run; what is left is OpenCL's own.
#include <algorithm>
#include <cstring>

#include <duet/backend/log.hpp>

#include "opencl_check.hpp"
#include "opencl_device.hpp"
#include "opencl_program.hpp"
#include "opencl_queue.hpp"
#include "opencl_tile_map.hpp"

namespace duet::opencl {

namespace {

// OpenCL refuses 0 bytes (clEnqueue*Buffer's CL_INVALID_VALUE): said here with the operation's
// name (the span itself was checked by the runtime).
void refuse_empty(const char* op, std::size_t bytes, const std::string& where) {
    if (bytes == 0)
        throw Error::usage(std::string(op) + " of 0 bytes on " + where);
}

// A by-value argument clSetKernelArg refused. A size the parameter does not have (a struct the
// runtime could not size from its type name) is the app's mistake, said as one.
[[noreturn]] void value_arg_failed(const OpenclKernel& k, cl_int code, std::size_t i,
                                   std::size_t size, const std::function<std::string()>& doing) {
    const std::string which = doing() + ": argument " + std::to_string(i) + " (a " +
                              std::to_string(size) + "-byte value) of " + k.name() +
                              k.signature().to_string();
    if (code == CL_INVALID_ARG_SIZE)
        throw Error::usage(which + " does not have the parameter's size (clSetKernelArg: "
                                   "CL_INVALID_ARG_SIZE); pass a host type laid out as the "
                                   "kernel's (int vs long, float vs double, padding)");
    fail(code, "clSetKernelArg", which);
}

} // namespace

void OpenclEvent::wait() {
    try {
        event_.wait();
    } catch (const cl::Error& e) {
        rethrow(e, "waiting for an operation (it failed on the device)");
    }
}

cl_ulong OpenclEvent::profile(cl_profiling_info what) {
    wait();
    cl_ulong t = 0;
    check(clGetEventProfilingInfo(event_(), what, sizeof t, &t, nullptr), "clGetEventProfilingInfo",
          "reading an event's device timestamps");
    return t;
}

double OpenclEvent::elapsed_ms() {
    return double(profile(CL_PROFILING_COMMAND_END) - profile(CL_PROFILING_COMMAND_START)) * 1e-6;
}

double OpenclEvent::elapsed_ms_until(EventImpl& last) {
    auto* other = dynamic_cast<OpenclEvent*>(&last);
    if (!other)
        throw Error::usage("timing between events of different backends");
    const cl_ulong start = profile(CL_PROFILING_COMMAND_START);
    const cl_ulong end = other->profile(CL_PROFILING_COMMAND_END);
    return end >= start ? double(end - start) * 1e-6 : 0.0;
}

Event OpenclQueue::wrap(const cl::Event& e) {
    if (timing_)
        return Event(std::make_shared<OpenclEvent>(e));
    return untimed_;
}

OpenclQueue::OpenclQueue(OpenclDevice& dev, bool timing) : timing_(timing), dev_(dev) {
    try {
        log().debug("clCreateCommandQueue({}, {})", timing ? "profiling" : "no profiling",
                    dev.info().name);
        queue_ = cl::CommandQueue(dev.context(), dev.cl_device(),
                                  timing ? CL_QUEUE_PROFILING_ENABLE : 0);
    } catch (const cl::Error& e) {
        rethrow(e, "creating a queue on " + dev.where());
    }
    if (!timing)
        untimed_ = untimed_event([q = queue_]() mutable {
            try {
                q.finish();
            } catch (const cl::Error& err) {
                rethrow(err, "waiting for a queue (an operation failed)");
            }
        });
}

OpenclQueue::~OpenclQueue() {
    try {
        queue_.finish();
    } catch (...) {
        // An operation failed: nothing is left running, and a destructor does not throw.
    }
}

const cl::Buffer& OpenclQueue::buffer_of(const Buffer& b, const char* role) const {
    auto* ob = dynamic_cast<const OpenclBuffer*>(&b);
    if (!ob || ob->owner() != &dev_)
        throw Error::usage(std::string(role) +
                           " buffer belongs to another device or backend, not " + dev_.where());
    return ob->get();
}

const Device& OpenclQueue::device() const {
    return dev_;
}

Event OpenclQueue::do_write_bytes(Buffer& dst, const void* src, std::size_t bytes,
                                  std::size_t offset, bool blocking) {
    refuse_empty("a write", bytes, dev_.where());
    const auto& b = buffer_of(dst, "destination");
    cl::Event e;
    try {
        log().debug("clEnqueueWriteBuffer({} bytes)", bytes);
        queue_.enqueueWriteBuffer(b, blocking ? CL_TRUE : CL_FALSE, offset, bytes, src, nullptr,
                                  event_slot(e));
    } catch (const cl::Error& err) {
        rethrow(err, "writing " + std::to_string(bytes) + " bytes to " + dev_.where());
    }
    return wrap(e);
}

Event OpenclQueue::do_read_bytes(const Buffer& src, void* dst, std::size_t bytes,
                                 std::size_t offset, bool blocking) {
    refuse_empty("a read", bytes, dev_.where());
    const auto& b = buffer_of(src, "source");
    cl::Event e;
    try {
        log().debug("clEnqueueReadBuffer({} bytes)", bytes);
        queue_.enqueueReadBuffer(b, blocking ? CL_TRUE : CL_FALSE, offset, bytes, dst, nullptr,
                                 event_slot(e));
    } catch (const cl::Error& err) {
        rethrow(err, "reading " + std::to_string(bytes) + " bytes from " + dev_.where());
    }
    return wrap(e);
}

Event OpenclQueue::do_copy(const Buffer& src, Buffer& dst, std::size_t bytes) {
    refuse_empty("a copy from the source", bytes, dev_.where());
    cl::Event e;
    try {
        log().debug("clEnqueueCopyBuffer({} bytes)", bytes);
        queue_.enqueueCopyBuffer(buffer_of(src, "source"), buffer_of(dst, "destination"), 0, 0,
                                 bytes, nullptr, event_slot(e));
    } catch (const cl::Error& err) {
        rethrow(err, "copying " + std::to_string(bytes) + " bytes on " + dev_.where());
    }
    return wrap(e);
}

Event OpenclQueue::do_fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size,
                                 std::size_t bytes) {
    refuse_empty("a fill", bytes, dev_.where());
    // The same bytes as a longer pattern where the length allows it (OpenCL takes up to 128):
    // CPU drivers copy the pattern once per repeat, so a 1-byte pattern fills 4-5x slower
    // (PoCL: 9.6 ms against 2.0 ms for 64 MiB).
    unsigned char wide[128];
    if (pattern_size < sizeof wide && bytes % (2 * pattern_size) == 0) {
        std::memcpy(wide, pattern, pattern_size);
        while (2 * pattern_size <= sizeof wide && bytes % (2 * pattern_size) == 0) {
            std::memcpy(wide + pattern_size, wide, pattern_size);
            pattern_size *= 2;
        }
        pattern = wide;
    }
    cl::Event e;
    try {
        log().debug("clEnqueueFillBuffer({} bytes, a {}-byte pattern)", bytes, pattern_size);
        cl_int err =
            clEnqueueFillBuffer(queue_(), buffer_of(dst, "destination")(), pattern, pattern_size, 0,
                                bytes, 0, nullptr, timing_ ? &e() : nullptr);
        check(err, "clEnqueueFillBuffer",
              "filling " + std::to_string(bytes) + " bytes on " + dev_.where());
    } catch (const cl::Error& err) {
        rethrow(err, "filling a buffer on " + dev_.where());
    }
    return wrap(e);
}

OpenclKernel& OpenclQueue::own(Kernel& kernel) const {
    auto* k = dynamic_cast<OpenclKernel*>(&kernel);
    if (!k)
        throw Error::usage("kernel " + kernel.name() + " was not built for " + dev_.where());
    return *k;
}

LaunchContract OpenclQueue::launch_contract(Kernel& kernel) const {
    const OpenclKernel& k = own(kernel);
    const auto& info = dev_.info();
    LaunchContract c;
    c.signature = &k.signature();
    c.limits.max_local = info.max_work_item_sizes;
    c.limits.max_group_items = std::min(k.max_work_group_size(), info.max_work_group_size);
    c.limits.max_local_bytes = info.local_mem_bytes;
    c.limits.max_parameter_bytes = info.max_parameter_bytes;
    // Sizes OpenCL allows (size_t) but implementations do not handle: PoCL aborts, faults or
    // executes an illegal instruction on 2^33 work-items in one dimension, 2^40, 2^62, or
    // 2^31 x 2^31. Each dimension below 2^32 (what a uint holds) and 2^40 in all: more than
    // any device runs in one launch of minutes.
    c.limits.max_global = 0xFFFFFFFFu;
    c.limits.max_total = std::size_t{1} << 40;
    c.limits.local_name = "CL_DEVICE_MAX_WORK_ITEM_SIZES";
    c.limits.group_items_name = "CL_KERNEL_WORK_GROUP_SIZE";
    return c;
}

// The device buffer an extension argument becomes: a duet::tile_map's encoded map.
cl::Buffer OpenclQueue::extension_buffer(const OpenclKernel& k, const KernelArg& a, std::size_t i,
                                         const std::function<std::string()>& doing) {
    const auto where = [&] { return doing() + ": argument " + std::to_string(i); };
    const TileMap* map = as_tile_map(*a.extension);
    if (!map)
        throw Error::usage(where() + " is a " + a.extension->name() + ", an extension of the " +
                           a.extension->backend() +
                           " backend; an OpenCL kernel takes buffers, scalars, duet::local and "
                           "duet::tile_map (pass the buffer itself)");
    auto* buf = dynamic_cast<const OpenclBuffer*>(a.buffer);
    if (!buf || buf->owner() != &dev_)
        throw Error::usage(where() + " is a tile map over a buffer that is not OpenCL memory of " +
                           dev_.where());
    const auto& sig = k.signature();
    const KernelParam* param = sig.known && i < sig.params.size() ? &sig.params[i] : nullptr;
    return dev_.tile_maps().map_buffer(dev_, queue_, *map, *buf, param, where);
}

Event OpenclQueue::do_launch(Kernel& kernel, const Range& range,
                             const std::array<std::size_t, 3>& l, KernelArgs args) {
    // launch_contract() has made sure the kernel is one of ours.
    auto* k = static_cast<OpenclKernel*>(&kernel);
    // Built only when something fails: a launch is a hot path.
    auto doing = [&] {
        return "launching " + k->name() + " over " + range.to_string() +
               (range.has_local() ? ""
                                  : " (local size chosen: " + std::to_string(l[0]) + "x" +
                                        std::to_string(l[1]) + "x" + std::to_string(l[2]) + ")") +
               " on " + dev_.where();
    };
    const auto& g = range.global();
    cl::NDRange global = range.dims() == 1   ? cl::NDRange(g[0])
                         : range.dims() == 2 ? cl::NDRange(g[0], g[1])
                                             : cl::NDRange(g[0], g[1], g[2]);
    // A zero local size is the driver's choice (Range::driver_local): a NULL local size.
    cl::NDRange local = l[0] == 0           ? cl::NullRange
                        : range.dims() == 1 ? cl::NDRange(l[0])
                        : range.dims() == 2 ? cl::NDRange(l[0], l[1])
                                            : cl::NDRange(l[0], l[1], l[2]);
    // Arguments belong to one launch: set and enqueued under the kernel's lock, so another
    // thread's launch cannot change them in between (clSetKernelArg mutates the cl_kernel).
    std::lock_guard lock(k->launch_mutex());
    try {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const auto& a = args[i];
            const cl_uint idx = static_cast<cl_uint>(i);
            switch (a.kind) {
            case KernelArg::Kind::buffer:
                k->get().setArg(idx, buffer_of(*a.buffer, "argument"));
                break;
            case KernelArg::Kind::scalar:
                if (cl_int e = clSetKernelArg(k->get()(), idx, a.size, a.bytes()); e != CL_SUCCESS)
                    value_arg_failed(*k, e, i, a.size, doing);
                break;
            case KernelArg::Kind::local:
                if (cl_int e = clSetKernelArg(k->get()(), idx, a.size, nullptr); e != CL_SUCCESS)
                    fail(e, "clSetKernelArg",
                         doing() + ": argument " + std::to_string(i) + " (local memory) of " +
                             k->name() + k->signature().to_string());
                break;
            case KernelArg::Kind::extension:
                k->get().setArg(idx, extension_buffer(*k, a, i, doing));
                break;
            }
        }
        // The SVM allocations an address inside a by-value argument may reach, where that list
        // changed since the kernel's last launch (opencl_svm.cpp).
        if (const cl_int e = dev_.svm_registry().give(*k); e != CL_SUCCESS)
            fail(e, "clSetKernelExecInfo",
                 doing() + ": listing the buffers whose device_address() was asked "
                           "(CL_KERNEL_EXEC_INFO_SVM_PTRS)");
        // Pinned host buffers taken as arguments: unmapped for the kernel, mapped again after.
        for (const auto& a : args)
            if (a.kind == KernelArg::Kind::buffer)
                if (auto* host = static_cast<const OpenclBuffer*>(a.buffer)->host())
                    host->unmap_before(queue_);
        cl::Event e;
        if (log().should_log(spdlog::level::debug))
            log().debug("clEnqueueNDRangeKernel({}, global {}, local {})", k->name(),
                        range.to_string(),
                        l[0] == 0 ? std::string("NULL")
                                  : std::to_string(l[0]) + "x" + std::to_string(l[1]) + "x" +
                                        std::to_string(l[2]));
        queue_.enqueueNDRangeKernel(k->get(), cl::NullRange, global, local, nullptr, event_slot(e));
        for (const auto& a : args)
            if (a.kind == KernelArg::Kind::buffer)
                if (auto* host = static_cast<const OpenclBuffer*>(a.buffer)->host())
                    host->map_after(queue_);
        return wrap(e);
    } catch (const cl::Error& err) {
        if (err.err() == CL_INVALID_KERNEL_ARGS)
            rethrow(err, doing() + ": an argument is not set; the kernel's parameters are " +
                             k->signature().to_string());
        rethrow(err, doing());
    }
}

void OpenclQueue::finish() {
    try {
        queue_.finish();
    } catch (const cl::Error& e) {
        rethrow(e, "waiting for the queue on " + dev_.where() + " (an operation failed)");
    }
}

} // namespace duet::opencl
