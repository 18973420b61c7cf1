#pragma once
// Typed kernel arguments: buffers, scalars by value, and dynamic local/shared memory.
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>

namespace duet {

class Buffer;

// A request for `bytes` of local (OpenCL) / dynamic shared (CUDA) memory as a kernel argument.
struct LocalMemory {
    std::size_t bytes;
};
// Makes a local-memory kernel argument of `bytes` bytes.
inline LocalMemory local(std::size_t bytes) { return LocalMemory{bytes}; }

// One kernel argument, as the backends receive it.
struct KernelArg {
    enum class Kind { buffer, scalar, local };
    Kind kind = Kind::scalar;
    const Buffer* buffer = nullptr;          // Kind::buffer
    std::array<unsigned char, 16> value{};   // Kind::scalar, first `size` bytes
    std::size_t size = 0;                    // scalar size, or local bytes

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

} // namespace duet
