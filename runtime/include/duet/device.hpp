#pragma once
// The runtime API every backend implements: Device, Buffer, HostBuffer, Kernel, Queue.
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <duet/device_info.hpp>
#include <duet/dialect.hpp>
#include <duet/error.hpp>
#include <duet/event.hpp>
#include <duet/kernel_arg.hpp>
#include <duet/provenance.hpp>
#include <duet/range.hpp>

namespace duet {

// Device memory. Released when destroyed.
class Buffer {
  public:
    virtual ~Buffer() = default;
    // Size in bytes.
    virtual std::size_t size() const = 0;
    // The buffer's address in its device's address space, for structs and closures that hold
    // pointers (CUDA: the device pointer; OpenCL: the SVM pointer, on devices with coarse-grained
    // buffer SVM). A usage Error where the device gives none: ask DeviceInfo::device_addresses
    // first. Valid while the buffer lives.
    virtual std::uint64_t device_address() const {
        throw Error::usage("this device gives no device addresses of its buffers "
                           "(DeviceInfo::device_addresses is false): pass each buffer as a "
                           "kernel argument of its own instead of inside a struct or closure");
    }
    // device_address() as a pointer of the kernel's type, for a struct's or closure's field.
    template <class T> T* device_pointer() const {
        return reinterpret_cast<T*>(static_cast<std::uintptr_t>(device_address()));
    }
};

// Page-locked (pinned) host memory for fast, asynchronous transfers. Released when destroyed.
class HostBuffer {
  public:
    virtual ~HostBuffer() = default;
    // Host address of the memory, valid for the buffer's lifetime.
    virtual void* data() = 0;
    // Size in bytes.
    virtual std::size_t size() const = 0;
    // True when the memory really is page-locked (false: plain host memory as a fallback).
    virtual bool pinned() const = 0;
    // The same memory as a kernel argument that the device reads and writes directly (OpenCL:
    // the mapped CL_MEM_ALLOC_HOST_PTR buffer; CUDA: cudaHostAllocMapped's device pointer), or
    // nullptr where the device cannot reach it. Passing the HostBuffer to launch() passes this.
    virtual const Buffer* device_buffer() const { return {}; }
};

// One kernel text of one dialect, as the app gives it.
struct KernelText {
    std::string dialect; // a row of the dialect table (<duet/dialect.hpp>): "opencl-c", "cuda-c++"
    std::string text;    // the source (or PTX) text
    std::string kernel;  // the kernel's name in this text, where it differs from load_kernel's
    std::string origin;  // where the text came from, for messages ("my.cl", "<string>")
};

// A kernel's sources given by the app, keyed by dialect: each device builds the first text it
// has a route for (its own language first, then the table's translations; dialect.hpp).
struct KernelSources {
    std::vector<KernelText> texts; // any number of dialects, each at most once
    std::string opencl;            // deprecated: an "opencl-c" text (use add)
    std::string cuda;              // deprecated: a "cuda-c++" text (use add)
    std::string origin;            // where the texts came from, for messages ("my.cl", "<string>")
    // What a relative path of from_files is relative to.
    enum class Base {
        current_directory, // the process's, as fopen takes it
        executable         // the directory of the running program (an installed app's kernels)
    };
    // Adds a text of `dialect` (a usage Error when the table has no such row or the dialect is
    // there already), whose kernel is named `kernel` where that differs from load_kernel's name.
    KernelSources& add(const std::string& dialect, std::string text, std::string kernel = {},
                       std::string origin = {});
    // Reads `path` and adds it as a text of the dialect its extension names ("a.cu": cuda-c++).
    KernelSources& add_file(const std::string& path, std::string kernel = {},
                            Base base = Base::current_directory);
    // Every text, the deprecated fields included as their dialects' texts.
    std::vector<KernelText> all() const;
    // True when no text is given (the kernel is one of Duet's own).
    bool empty() const { return texts.empty() && opencl.empty() && cuda.empty(); }
    // Reads the files; a path that is empty is skipped, one that cannot be read is an Error.
    static KernelSources from_files(const std::string& cl_path, const std::string& cu_path,
                                    Base base = Base::current_directory);
};

// How to build a kernel. Defines mean the same on both backends.
struct BuildOptions {
    std::vector<std::pair<std::string, std::string>> defines; // -DNAME=VALUE
    bool fast_math = false; // off unless asked for, then on both backends
    KernelSources sources;  // empty: the kernel is looked up among Duet's own kernels
    // With `sources` empty: the dialect whose files of Duet's own kernels every device builds
    // ("opencl-c": kernels_cl/, on the CUDA backend through the dialect table's translation), so
    // one kernel text runs on both backends; empty: each device's own language (its twin file).
    std::string own_dialect;
    // Compiler options keyed by the dialect of the compiler that takes them ("opencl-c":
    // clBuildProgram, "cuda-c++": NVRTC, also when it builds a translated text), passed after
    // Duet's own (docs/api/reference.md lists both). Each is one token starting with '-' (a value
    // attached: "-std=c++20"); options that write files, choose the target or load plugins are
    // refused with a usage Error.
    std::map<std::string, std::vector<std::string>> compiler_options;
    std::vector<std::string> cuda_options;   // deprecated: compiler_options["cuda-c++"]
    std::vector<std::string> opencl_options; // deprecated: compiler_options["opencl-c"]
    // CUDA: kernels named by C++ name expressions ("dot<double>", "ns::scale<float, 256>")
    // compiled into the same program as the loaded one, so that one NVRTC build serves each.
    std::vector<std::string> instantiations;
    // The options for `dialect`'s compiler: compiler_options' entry, then the deprecated field.
    std::vector<std::string> options_for(const std::string& dialect) const;
};

// A compiled kernel ready to launch. One Kernel may be launched from several threads at once
// (on any queues): each launch carries all its arguments, which never carry over to another
// launch; the OpenCL backend sets them and enqueues under a per-kernel lock.
class Kernel {
  public:
    virtual ~Kernel() = default;
    // Kernel name.
    virtual const std::string& name() const = 0;
    // Largest work-group size this kernel can launch with on its device.
    virtual std::size_t max_work_group_size() const = 0;
    // Milliseconds spent building (0 when found in memory); includes cache lookups.
    virtual double build_ms() const = 0;
    // Where this load got its program: compiled now, or found in the process's memory, the
    // on-disk cache or the embedded binary (see provenance.hpp).
    virtual Provenance provenance() const = 0;
    // True when this load compiled nothing (provenance() is not Provenance::compiled).
    bool cache_hit() const { return provenance() != Provenance::compiled; }
    // Compiler options used, as the backend passed them.
    virtual const std::string& build_options() const = 0;
    // A 1-D work-group size for this kernel on its device with `dynamic_local_bytes` of
    // duet::local memory per group, within max_work_group_size(): CUDA's occupancy API
    // (cudaOccupancyMaxPotentialBlockSize); OpenCL: the largest multiple of the kernel's
    // CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE within its limits. Local memory beyond the
    // device's is a usage Error.
    virtual std::size_t suggested_group_size(std::size_t dynamic_local_bytes = 0) const {
        (void)dynamic_local_bytes;
        return max_work_group_size();
    }
    // The kernel as its source text declares it (parameter names and types, for
    // Queue::launch_named); no parameters where Duet did not read them (its own kernels).
    const KernelDecl& declaration() const { return declaration_; }

  private:
    friend class Device;
    KernelDecl declaration_;
};

// One argument bound by the name of the kernel parameter it is for (Queue::launch_named).
struct NamedArg {
    std::string name;
    KernelArg arg;
};
// Makes an argument for the parameter called `name`: a Buffer, a scalar, duet::local(bytes).
template <class T> NamedArg arg(std::string name, const T& value) {
    return NamedArg{std::move(name), KernelArg::from(value)};
}

class Device;
struct LaunchContract; // duet/backend/launch_checks.hpp, for backends

// An in-order command queue (a CUDA stream). Transfers and launches return timing Events.
// Non-blocking transfers (blocking = false) only start the copy: the host memory must stay
// alive and, for a write, unchanged until the transfer is done (Event::wait() or finish());
// freeing it earlier is a use-after-free. A Queue waits for its pending work when destroyed,
// so destroy the queue (or call finish()) before the host memory it reads into or writes from.
//
// Every operation is checked here, once for all backends, before the backend sees it (usage
// Errors naming the numbers): spans against their buffers, host pointers, fill patterns,
// launch ranges and arguments (runtime/src/queue.cpp). A backend implements the do_* hooks.
class Queue {
  public:
    virtual ~Queue() = default;
    // The device this queue runs on.
    virtual const Device& device() const = 0;
    // Copies `bytes` from host `src` into `dst` at byte `offset`. Blocking unless asked.
    Event write_bytes(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0,
                      bool blocking = true);
    // Copies `bytes` from `src` at byte `offset` into host `dst`. Blocking unless asked.
    Event read_bytes(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0,
                     bool blocking = true);
    // Device-to-device copy of `bytes`.
    Event copy(const Buffer& src, Buffer& dst, std::size_t bytes);
    // Fills `bytes` of `dst` with a repeated pattern of 1, 2, 4, 8 or 16 bytes.
    Event fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size, std::size_t bytes);
    // Launches `kernel` over `range` with already converted arguments. Checked first, the same
    // on every backend (usage Errors): the argument count against the kernel's (an unset
    // argument is named), each argument's kind (buffer, scalar, local) and scalar size against
    // its parameter, the range against the device's and the kernel's limits and size_t
    // overflow, local memory. Without a local size, it is chosen by one rule
    // (duet::default_local_size). CUDA: duet::local arguments the kernel has no parameter for
    // become its `extern __shared__` memory, laid out as cuda_launch.hpp says.
    Event launch_args(Kernel& kernel, const Range& range, KernelArgs args);
    // Launches with each argument bound to the parameter of its name, read from the kernel's
    // source (Kernel::declaration()), so kernels whose languages order their parameters
    // differently run from one call. A name the kernel lacks, a parameter left without an
    // argument, a name given twice, or a kernel whose parameter names are not known is a usage
    // Error naming the signature; then launch_args' checks apply.
    Event launch_named(Kernel& kernel, const Range& range, const std::vector<NamedArg>& args);
    // Waits until everything queued has finished.
    virtual void finish() = 0;

    // Launches with typed arguments: Buffers, scalars by value, duet::local(bytes).
    template <class... Args> Event launch(Kernel& kernel, const Range& range, const Args&... args) {
        const KernelArg converted[] = {KernelArg::from(args)..., KernelArg{}};
        return launch_args(kernel, range, KernelArgs(converted, sizeof...(Args)));
    }
    // Writes a whole host vector at the start of `dst`.
    template <class T> Event write(Buffer& dst, const std::vector<T>& src, bool blocking = true) {
        return write_bytes(dst, src.data(), src.size() * sizeof(T), 0, blocking);
    }
    // Reads `dst.size()` elements from the start of `src`.
    template <class T> Event read(const Buffer& src, std::vector<T>& dst, bool blocking = true) {
        return read_bytes(src, dst.data(), dst.size() * sizeof(T), 0, blocking);
    }
    // Fills `count` elements of type T with `value`; a count whose bytes overflow size_t is a
    // usage Error.
    template <class T> Event fill(Buffer& dst, const T& value, std::size_t count) {
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
            throw Error::usage("a fill of " + std::to_string(count) + " elements of " +
                               std::to_string(sizeof(T)) + " bytes overflows size_t");
        return fill_bytes(dst, &value, sizeof(T), count * sizeof(T));
    }

  protected:
    // The backend's side, called only after the checks above passed: spans fit their buffers,
    // host pointers are set where bytes move, fill patterns are valid.
    virtual Event do_write_bytes(Buffer& dst, const void* src, std::size_t bytes,
                                 std::size_t offset, bool blocking) = 0;
    virtual Event do_read_bytes(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset,
                                bool blocking) = 0;
    virtual Event do_copy(const Buffer& src, Buffer& dst, std::size_t bytes) = 0;
    virtual Event do_fill_bytes(Buffer& dst, const void* pattern, std::size_t pattern_size,
                                std::size_t bytes) = 0;
    // What a launch of `kernel` on this queue is checked against; a usage Error when this queue
    // cannot launch it (a kernel of another backend or device).
    virtual LaunchContract launch_contract(Kernel& kernel) const = 0;
    // Enqueues a checked launch; `local` is the range's local size or the one chosen for it.
    virtual Event do_launch(Kernel& kernel, const Range& range,
                            const std::array<std::size_t, 3>& local, KernelArgs args) = 0;
};

// How a queue records its operations.
struct QueueOptions {
    // Every operation's Event carries device start/end times. Off (the default): no timing
    // events are made, a launch costs what the raw API call costs, and Event::elapsed_ms() is
    // a usage Error; timing is paid for only where it is asked for.
    bool timing = false;
    // CUDA: a stream that does not wait for, nor is waited for by, the legacy default stream 0
    // (cudaStreamNonBlocking). OpenCL has no implicit default queue that others synchronise
    // with, so every OpenCL queue already behaves so and the option changes nothing there.
    bool non_blocking = false;
    // Options with timing on (C++17 has no designated initialisers).
    static QueueOptions timed() {
        QueueOptions o;
        o.timing = true;
        return o;
    }
};

// One device as seen by one backend.
class Device {
  public:
    virtual ~Device() = default;
    // What the device is.
    virtual const DeviceInfo& info() const = 0;
    // A new in-order queue, untimed unless the options ask for timing (QueueOptions::timed()).
    virtual std::unique_ptr<Queue> create_queue(const QueueOptions& options = {}) = 0;
    // Allocates `bytes` of device memory; over the device's limit is an Error naming the limit.
    virtual std::unique_ptr<Buffer> alloc_bytes(std::size_t bytes) = 0;
    // A buffer of `bytes` inside `parent` (a buffer of this device) from byte `offset`: kernels
    // and transfers see its first byte at 0. It must not outlive `parent`. `offset` must be a
    // multiple of view_alignment(); outside `parent` is a usage Error. The default: unsupported.
    virtual std::unique_ptr<Buffer> view(const Buffer& parent, std::size_t offset,
                                         std::size_t bytes);
    // The alignment, in bytes, of a view's offset on this device.
    virtual std::size_t view_alignment() const { return 4096; }
    // Errors and warnings that a checking device (a simulator that checks every access, such
    // as Oclgrind) has reported in this process so far; -1 when the device reports none this
    // way. A run during which it grew did something wrong, whatever its output.
    virtual long long checker_reports() const { return -1; }
    // Allocates page-locked host memory (falls back to plain memory, reported by pinned()).
    virtual std::unique_ptr<HostBuffer> alloc_host(std::size_t bytes) = 0;
    // A buffer that is the `bytes` of host memory at `data` itself, for kernels to read in place
    // (never to write), where the device works in host memory (a CPU device) and `data` is
    // aligned for it (page-aligned always is); null where it cannot, and the caller uploads a
    // copy instead. `keep` owns `data` and is held until the device is done with the buffer;
    // the contents must not change meanwhile. The default: null.
    virtual std::unique_ptr<Buffer> read_in_place(std::shared_ptr<const void> keep,
                                                  const void* data, std::size_t bytes);
    // Builds (or finds in the caches) and returns the named kernel. The defines are checked
    // here, the same for every backend (duet/backend/build_options.hpp's rule), before the
    // backend's do_load_kernel sees them. With sources, the text built is the first this device
    // has a route for (choose_text), under that text's own kernel name.
    std::unique_ptr<Kernel> load_kernel(const std::string& name, const BuildOptions& options = {});
    // How this device takes a text of `dialect` through `route` (a route of the dialect's row
    // for this backend): true, or false with `why` set. The default takes only the direct route
    // of the device's own language; a backend that implements a translation says so here.
    virtual bool takes(const Dialect& dialect, const DialectRoute& route, std::string& why) const;
    // The first route of `dialect` this device takes, or null with `why` naming each refusal
    // (or that the table has none for this backend).
    const DialectRoute* route_for(const Dialect& dialect, std::string& why) const;
    // The text of `sources` this device builds and the route it takes, or a usage Error naming
    // every text given and why the device takes none of them.
    std::pair<KernelText, DialectRoute> choose_text(const KernelSources& sources) const;
    // `options` with BuildOptions::own_dialect applied for kernel `name`: Duet's own file of it in
    // that dialect as the text, unless it is this device's own language (then as given).
    BuildOptions with_own_text(const std::string& name, const BuildOptions& options) const;

    // Allocates room for `count` elements of T.
    template <class T> std::unique_ptr<Buffer> alloc(std::size_t count) {
        if (count > std::numeric_limits<std::size_t>::max() / sizeof(T))
            throw Error::usage("allocation of " + std::to_string(count) +
                               " elements overflows size_t");
        return alloc_bytes(count * sizeof(T));
    }
    // "opencl:0 (NVIDIA H100 80GB HBM3)"
    std::string label() const { return info().id() + " (" + info().name + ")"; }

  protected:
    // The backend's build, called with checked options.
    virtual std::unique_ptr<Kernel> do_load_kernel(const std::string& name,
                                                   const BuildOptions& options) = 0;
};

} // namespace duet
