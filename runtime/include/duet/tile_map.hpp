#pragma once
// duet::tile_map: a kernel argument that hands a kernel a 2-D view of a buffer of floats for
// the tile copy engine of NVIDIA's Hopper GPUs (TMA), on the CUDA backend and on NVIDIA's OpenCL
// where the device has the nv.sm90a_ptx extension. An ExtensionArg: the runtime checks its shape
// without knowing what a backend makes of it, and a backend or device that has no tile copy
// engine refuses it at launch, by name.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <duet/device.hpp>

namespace duet {

// The size of a tile-map parameter: the driver's tensor map (CUDA's CUtensorMap).
inline constexpr std::size_t tile_map_param_size = 128;

// A row-major matrix of `rows` x `cols` floats (rows `cols` floats apart) in `view`, copied into
// local (shared) memory as boxes of box_rows x box_cols, each row of a box 128-byte swizzled
// (16-byte chunk c of box row r at c ^ (r % 8), what wgmma's 128-byte swizzle mode reads), zeros
// where a box leaves the matrix. A CUDA kernel receives the 128-byte tensor map as a parameter
// declared `const __grid_constant__`; an OpenCL kernel as a `global const DuetTileMap*` parameter
// (the map in device memory). Limits (checked at launch): box_cols * 4 <= 128 bytes,
// box_rows <= 256, cols * 4 a multiple of 16 bytes, the matrix inside the buffer.
struct TileMap final : ExtensionArg {
    const Buffer* view = nullptr;
    std::uint64_t rows = 0, cols = 0;
    std::uint32_t box_rows = 0, box_cols = 0;

    TileMap() = default;
    TileMap(const Buffer* b, std::uint64_t r, std::uint64_t c, std::uint32_t br, std::uint32_t bc)
        : view(b), rows(r), cols(c), box_rows(br), box_cols(bc) {}

    // The name the backends recognise it by.
    static constexpr const char* kind_name = "duet::tile_map";
    const char* backend() const override { return "cuda and opencl"; }
    const char* name() const override { return kind_name; }
    const Buffer* buffer() const override { return view; }
    std::size_t param_size() const override { return tile_map_param_size; }
    std::string problem() const override {
        const auto n = [](std::uint64_t v) { return std::to_string(v); };
        if (rows == 0 || cols == 0)
            return "a tile map of " + n(rows) + " x " + n(cols) + " floats (empty)";
        if (box_rows == 0 || box_rows > 256 || box_cols == 0 || box_cols * 4 > 128)
            return "a tile map's box of " + n(box_rows) + " x " + n(box_cols) +
                   " floats: 1 to 256 rows of 1 to 32 floats (a 128-byte swizzled row)";
        if (cols * 4 % 16 != 0)
            return "a tile map of rows of " + n(cols) +
                   " floats: the tile copier needs rows a multiple of 16 bytes apart (4 floats); "
                   "pad the rows";
        if (view && (rows >= (std::uint64_t(1) << 32) || cols >= (std::uint64_t(1) << 32) ||
                     rows * cols > view->size() / 4))
            return "a tile map of " + n(rows) + " x " + n(cols) + " floats over a buffer of " +
                   n(view->size()) + " bytes";
        return {};
    }
};

// Makes a tile-map kernel argument over `b` (see TileMap).
inline TileMap tile_map(const Buffer& b, std::uint64_t rows, std::uint64_t cols,
                        std::uint32_t box_rows, std::uint32_t box_cols) {
    return TileMap(&b, rows, cols, box_rows, box_cols);
}

// The tile map an extension argument is (recognised by its name, TileMap::kind_name), or null
// when it is another extension: how a backend finds a duet::tile_map among a launch's arguments.
inline const TileMap* as_tile_map(const ExtensionArg& e) {
    return std::string_view{e.name()} == TileMap::kind_name ? static_cast<const TileMap*>(&e)
                                                            : nullptr;
}

} // namespace duet
