#pragma once
// What conv5x5's host code (conv5x5.cpp), its step records (conv5x5_steps.cpp) and its bounds
// (conv5x5_sums.cpp: a pixel's tolerance, and the check beyond its sample) share.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "step.hpp"
#include "sum_check.hpp"

namespace duet::apps {

// conv5x5's ladder, in order: one record per step (conv5x5_steps.cpp).
const std::vector<Step>& conv5x5_steps();

// How a step covers the image in the shape the user pins (--local, a tile --define): each
// work-item computes `cols` x `rows` adjacent outputs, a work-group is `local` work-items. Where
// the tile macros fix the work-group (tiled, best), a --local becomes those macros (`defines`).
struct ConvGeometry {
    std::size_t cols = 1, rows = 1;
    std::array<std::size_t, 2> local{16, 16};
    bool free_local = true;
    std::vector<std::pair<std::string, std::string>> defines; // added to the build
    // Every tile macro the kernel reads, at this geometry's values: a shape the user pins
    // builds with them (the kernels have no defaults).
    std::vector<std::pair<std::string, std::string>> macros;
    std::vector<std::string> pins; // the tile macros whose --define makes the shape the user's
};

// conv5x5's hooks on a step record (step.hpp): its geometry for a run (empty: one output per
// work-item in a free 16x16 group, ConvGeometry's defaults).
struct ConvHooks : StepHooks {
    std::function<ConvGeometry(const RunConfig&)> geometry{};
};

// The tolerance of one output pixel of `filter` (5x5) over an image in [-1, 1).
double conv5x5_tolerance(std::span<const float> filter);
// The sums of every row and column of the W x H output of `filter` (5x5) over `img` with
// clamped borders, from the image's row and column sums (25 shifted copies of each), each within
// the sum of its pixels' tolerance: what a sampled check adds (sum_check.hpp). With them, the
// random-weighted sums of every row and column (weights seeded by `seed`).
SumCheck conv5x5_sums(std::span<const float> img, std::span<const float> filter, std::size_t W,
                      std::size_t H, std::uint64_t seed = 0);

} // namespace duet::apps
