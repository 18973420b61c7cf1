// reduction's problem (reduction.hpp): the shared inputs and their exact sums, made once per
// (type, size, seed) for every step and device.
#include <cmath>
#include <mutex>

#include "problem.hpp"
#include "reduction.hpp"

namespace duet::apps {

namespace {

// The sums of `x` in fixed chunks added in order: the same bits on any number of cores.
template <class T> ReductionSums sums_of(const std::vector<T>& x) {
    constexpr std::size_t chunk = std::size_t{1} << 16;
    const std::size_t parts = (x.size() + chunk - 1) / chunk;
    std::vector<ReductionSums> part(parts);
    parallel_for(parts, 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t p = begin; p < end; ++p) {
            ReductionSums s;
            for (std::size_t i = p * chunk; i < std::min(x.size(), (p + 1) * chunk); ++i) {
                if constexpr (std::is_same_v<T, int>)
                    s.exact += x[i];
                s.ref += double(x[i]);
                s.abs_sum += std::fabs(double(x[i]));
            }
            part[p] = s;
        }
    });
    ReductionSums total;
    for (const auto& s : part) {
        total.exact += s.exact;
        total.ref += s.ref;
        total.abs_sum += s.abs_sum;
    }
    return total;
}

// The sums of the last problem asked for, per type: every step of a ladder asks the same.
template <class T> struct SumsCache {
    std::mutex mutex;
    std::shared_ptr<const std::vector<T>> input;
    ReductionSums sums;
};

template <class T> ReductionProblem<T> problem_of(std::shared_ptr<const std::vector<T>> input) {
    static SumsCache<T> cache;
    std::lock_guard lock(cache.mutex);
    if (cache.input != input) {
        cache.sums = sums_of(*input);
        cache.input = input;
    }
    return {input, cache.sums};
}

} // namespace

int reduction_int_range(std::size_t n) {
    return static_cast<int>(std::min<std::size_t>(1000, INT32_MAX / std::max<std::size_t>(n, 1)));
}

template <> ReductionProblem<int> reduction_problem<int>(std::size_t n, std::uint64_t seed) {
    const int hi = reduction_int_range(n);
    return problem_of(shared_ints(n, seed, -hi, hi));
}

template <> ReductionProblem<float> reduction_problem<float>(std::size_t n, std::uint64_t seed) {
    return problem_of(shared_floats(n, seed, -1.f, 1.f));
}

} // namespace duet::apps
