#pragma once
// conv5x5's bounds (apps/ladders/conv5x5_sums.cpp): a pixel's tolerance, and the check beyond
// its sample.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "sum_check.hpp"

namespace duet::apps {

// The tolerance of one output pixel of `filter` (5x5) over an image in [-1, 1).
double conv5x5_tolerance(std::span<const float> filter);
// The sums of every row and column of the W x H output of `filter` (5x5) over `img` with
// clamped borders, from the image's row and column sums (25 shifted copies of each), each within
// the sum of its pixels' tolerance: what a sampled check adds (sum_check.hpp). With them, the
// random-weighted sums of every row and column (weights seeded by `seed`).
SumCheck conv5x5_sums(std::span<const float> img, std::span<const float> filter, std::size_t W,
                      std::size_t H, std::uint64_t seed = 0);

} // namespace duet::apps
