// reduction's problem (reduction.hpp): the shared inputs and their exact sums, made once per
// (type, size, seed) for every step and device.
#include <algorithm>
#include <bit>
#include <cmath>
#include <mutex>

#include "problem.hpp"
#include "reduction.hpp"
#include "setup_clock.hpp"

namespace duet::apps {

namespace {

// The sums of `x` in fixed chunks added in order: the same bits on any number of cores.
template <class T> ReductionSums sums_of(const HostVector<T>& x) {
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
    std::shared_ptr<const HostVector<T>> input;
    ReductionSums sums;
};

template <class T> ReductionProblem<T> problem_of(std::shared_ptr<const HostVector<T>> input) {
    static SumsCache<T> cache;
    std::lock_guard lock(cache.mutex);
    if (cache.input != input) {
        const SetupTimer setup; // made once for every step of the problem
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

// Float inputs in which every element counts: odd multiples of 2^-s in (-1, 1), up to `top` in
// magnitude, with n * top < 2^24 where n allows. Every partial sum of such values, of any
// subset in any order, is then a multiple of 2^-s below 2^24 * 2^-s: exact in float, so the
// device's sum must equal the exact one whatever its tree, and dropping any one value (at least
// 2^-s) changes it. Past 2^24 values the top is 1 (values +-1/2): a partial sum could then only
// lose exactness by reaching 2^23, which a sum of random signs does not (hundreds of standard
// deviations away), and the check allows half a value (`slack`).
template <> ReductionProblem<float> reduction_problem<float>(std::size_t n, std::uint64_t seed) {
    const std::size_t limit = std::size_t{1} << 24;
    const int half = static_cast<int>(std::max<std::size_t>(1, ((limit - 1) / n + 1) / 2));
    const int h = std::min(half, 1 << 20);
    const int top = 2 * h - 1; // odd values in [-top, top]
    const double scale = std::ldexp(1.0, -std::bit_width(static_cast<unsigned>(top)));
    const auto input = shared_input<float>('r', n, seed, h, 0, [&] {
        const auto k = shared_ints(n, seed, -h, h - 1);
        HostVector<float> v(n);
        parallel_for(n, std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i)
                v[i] = static_cast<float>((2.0 * (*k)[i] + 1) * scale);
        });
        return v;
    });
    auto problem = problem_of(input);
    problem.slack = double(n) * top < double(limit) ? 0.0 : scale / 2;
    return problem;
}

} // namespace duet::apps
