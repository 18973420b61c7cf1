#pragma once
// Launch shapes that fit the device. Each variant lists the shapes it can run in, its textbook
// shape first and then smaller ones of the same algorithm (a smaller tile, fewer work-items doing
// more outputs each); the first that the compiled kernel and the device allow is the one used.
// A kernel's limit (CL_KERNEL_WORK_GROUP_SIZE, a CUDA function's maxThreadsPerBlock) is only known
// once it is built, so build_fitting builds, reads the limit and rebuilds smaller when needed.
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

namespace duet::apps {

struct RunConfig;

// One way to launch a variant.
struct Shape {
    std::array<std::size_t, 2> local{1, 1}; // work-items per group
    std::size_t rows = 0, cols = 0;         // what the app's geometry needs (app-specific)
    std::size_t local_bytes = 0;            // local memory the kernel declares in this shape
    // local_bytes come as the launch's duet::local argument, which may take the device's opt-in
    // limit (DeviceInfo::local_mem_optin_bytes) where it has one, not only local_mem_bytes.
    bool local_by_argument = false;
    std::vector<std::pair<std::string, std::string>> defines; // build defines of this shape
    std::string kernel; // a kernel of its own for this shape ("": the step's kernel)
    // The step's host code launches this shape its own way (tf32's and tc3's wgmma kernels: tile
    // maps, clusters), not as the step's other shapes.
    bool own_launch = false;
    std::string label; // how a note names it: "32x8 items, 4 rows each"
    std::size_t items() const { return local[0] * local[1]; }
};

// What the device and the compiled kernel allow (0: unknown, not checked).
struct ShapeLimits {
    std::size_t max_items = 0;                 // the kernel's work-group limit
    std::array<std::size_t, 2> max_dims{0, 0}; // the device's limit per dimension
    std::uint64_t local_bytes = 0;             // local memory per group
    std::uint64_t optin_local_bytes = 0;       // by duet::local arguments, by opt-in (0: none)
};

// Why `s` cannot run within `lim`, or "" when it can.
std::string shape_misfit(const Shape& s, const ShapeLimits& lim);
// The index of the first of `shapes`, from `from` on, that fits `lim`; shapes.size() when none.
std::size_t first_fitting(const std::vector<Shape>& shapes, const ShapeLimits& lim,
                          std::size_t from = 0);
// The device's limits (the kernel's work-group limit is filled in by build_fitting).
ShapeLimits device_limits(const DeviceInfo& info);

// The kernel built in the shape it runs in.
struct Fitted {
    std::unique_ptr<Kernel> kernel;
    Shape shape;
    std::size_t index = 0; // 0: the textbook shape
    ShapeLimits limits;    // what the kernel and the device allowed
    std::string reason;    // why the textbook shape did not fit ("" when it did)
};

// Builds `kernel` (or the shape's own, Shape::kernel) with `base` plus the defines of the first
// of `shapes` the device can run: the
// textbook shape first, then, when the built kernel's limit or the device's local memory is too
// small for it, the next shape that fits, rebuilt, until one fits. When none does it throws
// ErrorKind::unsupported naming the variant and the limits.
Fitted build_fitting(Device& dev, const std::string& kernel, const BuildOptions& base,
                     const std::vector<Shape>& shapes, const std::string& variant);
// The note of a variant run in a smaller shape than its textbook one ("" when not):
// "tiled32 as 32x32 tile, 32x8 items, 4 rows each (its textbook 32x32 is 1024 work-items, over
// the limit of 256)".
std::string shape_note(const std::string& variant, const Fitted& f);
// Adds to `to` the defines of `from` whose names `to` does not set yet: a shape's tile macros
// under the user's and the device profile's defines, which stand.
void add_unset(std::vector<std::pair<std::string, std::string>>& to,
               const std::vector<std::pair<std::string, std::string>>& from);
// The build of `shape`: `base` and the shape's tile macros, those `base` sets left to it (the
// user's and the device profile's defines stand). What build_fitting builds, and what a step's
// other kernels in the same file are built with.
BuildOptions shape_build(const BuildOptions& base, const Shape& shape);
// True when the user's --define sets any of `names`: the shape is then the user's, not adapted.
bool user_sets(const RunConfig& cfg, const std::vector<std::string>& names);
// Work-group shapes halving from `start` down to 1x1, the larger dimension first (y on ties, so
// rows stay wide for coalescing): 16x16, 16x8, 8x8, 8x4, ...; for kernels whose group is free.
std::vector<Shape> halving_shapes(std::array<std::size_t, 2> start);

} // namespace duet::apps
