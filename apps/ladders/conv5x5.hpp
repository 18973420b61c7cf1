#pragma once
// conv5x5's check beyond its sample (apps/ladders/conv5x5.cpp).
#include <cstddef>
#include <vector>

#include "sum_check.hpp"

namespace duet::apps {

// The sums of every row and column of the W x H output of `filter` (5x5) over `img` with
// clamped borders, from the image's row and column sums (25 shifted copies of each), each within
// the sum of its pixels' tolerance: what a sampled check adds (sum_check.hpp).
SumCheck conv5x5_sums(std::span<const float> img, std::span<const float> filter, std::size_t W,
                      std::size_t H);

} // namespace duet::apps
