#pragma once
// Typed kernel arguments: buffers, values (scalars, structs, closures) by value, dynamic
// local/shared memory, and arguments a backend extension defines (ExtensionArg).
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
#endif

namespace duet {

class Buffer;
class HostBuffer;

// A request for `bytes` of local (OpenCL) / dynamic shared (CUDA) memory as a kernel argument.
struct LocalMemory {
    std::size_t bytes;
};
// Makes a local-memory kernel argument of `bytes` bytes.
inline LocalMemory local(std::size_t bytes) {
    return LocalMemory{bytes};
}

// An argument that some backends define, an extension of the API (the tile map of NVIDIA's
// tile copy engine, duet::tile_map in <duet/tile_map.hpp>). The runtime checks what it can without
// knowing that backend: the buffer it views is set, `problem()` is empty, the parameter is a
// buffer parameter (OpenCL: the backend passes the extension's bytes in device memory) or, where
// a kernel's parameters are known only by size, `param_size()` is that size. The backends it is
// for encode it; every other backend refuses it, by name. A launch holds it by reference: it must
// live until the launch call returns (a temporary in the launch's arguments does).
class ExtensionArg {
  public:
    virtual ~ExtensionArg() = default;
    // The backends that take it ("cuda and opencl"), for messages.
    virtual const char* backend() const = 0;
    // How messages name it ("duet::tile_map"); a backend recognises it by this name.
    virtual const char* name() const = 0;
    // The buffer it views; null when none was set (a usage Error at launch).
    virtual const Buffer* buffer() const = 0;
    // Bytes of the kernel parameter it becomes.
    virtual std::size_t param_size() const = 0;
    // Why it cannot be passed as it is ("" when it can), checked before any backend sees it.
    virtual std::string problem() const = 0;
};

// The most bytes one by-value argument may have on any backend (CUDA's 32764-byte parameter
// space on Volta and newer); a device's own limit is DeviceInfo::max_parameter_bytes.
inline constexpr std::size_t max_value_arg_bytes = 32764;

// One kernel argument, as the backends receive it. A value of at most 16 bytes is copied into
// the argument; a larger one (a struct, a closure) is held by address, so it must live until the
// launch call returns (a launch's own arguments do: the backends copy them during the call).
struct KernelArg {
    enum class Kind { buffer, scalar, local, extension };
    Kind kind = Kind::scalar;
    const Buffer* buffer = nullptr;          // Kind::buffer, Kind::extension (the one it views)
    std::array<unsigned char, 16> value{};   // Kind::scalar of at most 16 bytes
    std::size_t size = 0;                    // value size, or local bytes
    const ExtensionArg* extension = nullptr; // Kind::extension
    const void* large = nullptr;             // Kind::scalar over 16 bytes: the caller's value

    // The bytes of a Kind::scalar argument (`size` of them).
    const void* bytes() const { return size <= value.size() ? value.data() : large; }

    // Converts one C++ value into an argument; unsupported types fail to compile.
    template <class T> static KernelArg from(const T& v) {
        KernelArg a;
        if constexpr (std::is_base_of_v<Buffer, T>) {
            a.kind = Kind::buffer;
            a.buffer = &v;
        } else if constexpr (std::is_base_of_v<HostBuffer, T>) {
            a.kind = Kind::buffer; // host memory the device reaches: its device_buffer()
            a.buffer = v.device_buffer();
        } else if constexpr (std::is_same_v<T, LocalMemory>) {
            a.kind = Kind::local;
            a.size = v.bytes;
        } else if constexpr (std::is_base_of_v<ExtensionArg, T>) {
            a.kind = Kind::extension;
            a.buffer = v.buffer();
            a.extension = &v;
        } else {
            static_assert(std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> &&
                              !std::is_array_v<T> && sizeof(T) <= max_value_arg_bytes,
                          "kernel value arguments must be trivially copyable, at most 32764 "
                          "bytes, and neither pointers nor C arrays (pass device memory as a "
                          "duet::Buffer, or its Buffer::device_address() inside a struct; wrap "
                          "an array in a struct or std::array)");
            a.kind = Kind::scalar;
            a.size = sizeof(T);
            if constexpr (sizeof(T) <= sizeof(a.value))
                std::memcpy(a.value.data(), &v, sizeof(T));
            else
                a.large = &v;
        }
        return a;
    }
    template <class T> static KernelArg from(const std::unique_ptr<T>& p) { return from(*p); }
};

// The arguments of one launch: a read-only view of contiguous KernelArgs (std::span's role,
// kept C++17-clean; converts to and from std::span<const KernelArg> under C++20).
class KernelArgs {
  public:
    constexpr KernelArgs() = default;
    constexpr KernelArgs(const KernelArg* data, std::size_t size) : data_(data), size_(size) {}
#if __cplusplus >= 202002L && __has_include(<span>)
    constexpr KernelArgs(std::span<const KernelArg> s) : data_(s.data()), size_(s.size()) {}
    constexpr operator std::span<const KernelArg>() const {
        return {data_, size_};
    }
#endif
    constexpr const KernelArg* data() const {
        return data_;
    }
    constexpr std::size_t size() const {
        return size_;
    }
    constexpr bool empty() const {
        return size_ == 0;
    }
    constexpr const KernelArg* begin() const {
        return data_;
    }
    constexpr const KernelArg* end() const {
        return data_ + size_;
    }
    constexpr const KernelArg& operator[](std::size_t i) const {
        return data_[i];
    }

  private:
    const KernelArg* data_ = nullptr;
    std::size_t size_ = 0;
};

} // namespace duet
