#pragma once
// Summary statistics of repeated timings.
#include <cstddef>
#include <vector>

namespace duet {

// Median, min, max and mean of a set of samples.
struct Stats {
    double median = 0, min = 0, max = 0, mean = 0;
    std::size_t count = 0;
};
// Summarises samples (an empty set gives all zeros).
Stats summarize(std::vector<double> samples);

} // namespace duet
