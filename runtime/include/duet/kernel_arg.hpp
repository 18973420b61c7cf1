#pragma once
// Typed kernel arguments: buffers, scalars by value, and dynamic local/shared memory.
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#if __cplusplus >= 202002L && __has_include(<span>)
#include <span>
#endif

namespace duet {

class Buffer;

// A request for `bytes` of local (OpenCL) / dynamic shared (CUDA) memory as a kernel argument.
struct LocalMemory {
    std::size_t bytes;
};
// Makes a local-memory kernel argument of `bytes` bytes.
inline LocalMemory local(std::size_t bytes) {
    return LocalMemory{bytes};
}

// One kernel argument, as the backends receive it.
struct KernelArg {
    enum class Kind { buffer, scalar, local };
    Kind kind = Kind::scalar;
    const Buffer* buffer = nullptr;        // Kind::buffer
    std::array<unsigned char, 16> value{}; // Kind::scalar, first `size` bytes
    std::size_t size = 0;                  // scalar size, or local bytes

    // Converts one C++ value into an argument; unsupported types fail to compile.
    template <class T> static KernelArg from(const T& v) {
        KernelArg a;
        if constexpr (std::is_base_of_v<Buffer, T>) {
            a.kind = Kind::buffer;
            a.buffer = &v;
        } else if constexpr (std::is_same_v<T, LocalMemory>) {
            a.kind = Kind::local;
            a.size = v.bytes;
        } else {
            static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= 16 &&
                              !std::is_pointer_v<T>,
                          "kernel scalar arguments must be trivially copyable values of at most "
                          "16 bytes; pass device memory as a duet::Buffer");
            a.kind = Kind::scalar;
            a.size = sizeof(T);
            std::memcpy(a.value.data(), &v, sizeof(T));
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
