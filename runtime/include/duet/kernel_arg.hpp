#pragma once
// Typed kernel arguments: buffers, scalars by value, dynamic local/shared memory, and tile maps.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
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

// A 2-D view of a buffer of floats for a device's tile copy engine (Hopper's TMA): a row-major
// matrix of `rows` x `cols` floats (rows `cols` floats apart), copied into shared memory as
// boxes of box_rows x box_cols, each row of a box 128-byte swizzled (16-byte chunk c of box row
// r at c ^ (r % 8), what wgmma's 128-byte swizzle mode reads), zeros where a box leaves the
// matrix. The kernel receives the backend's descriptor of it (CUDA: a 128-byte CUtensorMap
// parameter, `const __grid_constant__`). Limits (checked at launch): box_cols * 4 <= 128 bytes,
// box_rows <= 256, cols * 4 a multiple of 16 bytes, the matrix inside the buffer. A backend
// without a tile copy engine refuses it.
struct TileMap {
    const Buffer* buffer = nullptr;
    std::uint64_t rows = 0, cols = 0;
    std::uint32_t box_rows = 0, box_cols = 0;
};
// Makes a tile-map kernel argument over `b` (see TileMap).
inline TileMap tile_map(const Buffer& b, std::uint64_t rows, std::uint64_t cols,
                        std::uint32_t box_rows, std::uint32_t box_cols) {
    return TileMap{&b, rows, cols, box_rows, box_cols};
}
// The size of a tile-map parameter in a CUDA kernel (CUtensorMap).
inline constexpr std::size_t tile_map_param_size = 128;

// One kernel argument, as the backends receive it.
struct KernelArg {
    enum class Kind { buffer, scalar, local, tile_map };
    Kind kind = Kind::scalar;
    const Buffer* buffer = nullptr;        // Kind::buffer, Kind::tile_map
    std::array<unsigned char, 16> value{}; // Kind::scalar, first `size` bytes
    std::size_t size = 0;                  // scalar size, or local bytes
    TileMap tile{};                        // Kind::tile_map

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
        } else if constexpr (std::is_same_v<T, TileMap>) {
            a.kind = Kind::tile_map;
            a.buffer = v.buffer;
            a.tile = v;
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
