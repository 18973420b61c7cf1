#pragma once
// Whole-output sums: where only a sample of an output is compared with the reference, the sums of
// every row and every column of the output are compared with the reference's sums (computed
// cheaply from the inputs), so a wrong element the sample did not look at still fails the run
// when its error is above its row's or column's tolerance. Beside the plain sums, sums with
// seeded random weights (Freivalds' check: C s against A (B s) for matmul): errors that cancel
// in a plain sum (a rectangle of +e, -e, -e, +e keeps every row and column sum) do not cancel
// in a weighted one.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "result.hpp"

namespace duet::apps {

// How many sets of random weights a sampled check adds (each: one weighted sum per row and one
// per column): a cancelling pattern must escape every one of them.
inline constexpr int weighted_sets = 1;

// Sums of an output with weights: row i's sum_j s[j] out[i][j], column j's sum_i r[i] out[i][j].
struct WeightedSums {
    std::vector<double> s, r;             // the weights: one per column, one per row (or none)
    std::vector<double> row_ref, row_tol; // one per row
    std::vector<double> col_ref, col_tol; // one per column, or none
};

// The reference's sums of an output seen as rows of `cols` elements (the last row may be
// shorter), each with the error its sum may have; column sums may be left empty.
struct SumCheck {
    std::size_t cols = 0;
    std::vector<double> row_ref, row_tol; // one per row
    std::vector<double> col_ref, col_tol; // one per column, or none
    std::vector<WeightedSums> weighted;   // the random-weighted sums (set `weighted_sets`)
};

// Fails r (with a note naming the row or column and how far its sum is off) when any row's or
// column's sum of `out`, plain or weighted, added in double precision, is further from the
// reference's than its tolerance. Does nothing to a result that already failed.
void check_sums(Result& r, std::span<const float> out, const SumCheck& sums);

// The tolerance of a sum of `count` outputs each within `each` of its reference, whose errors
// are independent and of zero mean (rounding errors): the worst case count * each, or, smaller
// for long rows, 10 standard deviations of the sum taking `each` itself as one (10 sqrt(count) *
// each), which is exceeded with a probability below 1e-22.
double sum_tolerance(std::size_t count, double each);
// The same for a weighted sum, sum_k w_k e_k, |e_k| <= each: the worst case sum|w| * each, or 10
// standard deviations, 10 sqrt(sum w^2) * each (sum_tolerance with every weight 1).
double weighted_tolerance(double sum_abs, double sum_squares, double each);
// sum |w| and sum w^2 of `w`.
std::pair<double, double> weight_norms(const std::vector<double>& w);

// `n` weights of set `set` for `seed`, uniform in [-1, 1] in steps of 2^-20 (`dir`: 'r' for
// rows, 's' for columns). A weight times a float is exact in double (21 + 24 bits), so a
// weighted sum of equal outputs, added in the same order, is equal however the compiler fuses
// its multiply-adds.
std::vector<double> check_weights(std::size_t n, std::uint64_t seed, int set, char dir);

// sum_k w[k] x[k] for k < n (w null: every weight 1), in double, in four interleaved partial sums
// (k mod 4) added as (p0 + p1) + (p2 + p3): independent chains a core overlaps. The check and a
// reference that must match it exactly (exact_block_sums) add in this one order.
template <class T> double lane_sum(const double* w, const T* x, std::size_t n) {
    double p0 = 0, p1 = 0, p2 = 0, p3 = 0;
    std::size_t k = 0;
    if (w) {
        for (; k + 4 <= n; k += 4) {
            p0 += w[k] * double(x[k]);
            p1 += w[k + 1] * double(x[k + 1]);
            p2 += w[k + 2] * double(x[k + 2]);
            p3 += w[k + 3] * double(x[k + 3]);
        }
    } else {
        for (; k + 4 <= n; k += 4) {
            p0 += double(x[k]);
            p1 += double(x[k + 1]);
            p2 += double(x[k + 2]);
            p3 += double(x[k + 3]);
        }
    }
    double* p[4] = {&p0, &p1, &p2, &p3};
    for (; k < n; ++k)
        *p[k % 4] += (w ? w[k] : 1.0) * double(x[k]);
    return (p0 + p1) + (p2 + p3);
}

// Sums of blocks of `cols` outputs, plain and with weights (one set), whose reference ref(i) is
// what each output must equal exactly (tolerance 0): vecadd's sampled check.
template <class Ref>
SumCheck exact_block_sums(std::size_t n, std::size_t cols, Ref ref, std::uint64_t seed) {
    SumCheck sums;
    sums.cols = cols;
    const std::size_t rows = (n + cols - 1) / cols;
    sums.row_ref.assign(rows, 0.0);
    sums.row_tol.assign(rows, 0.0);
    WeightedSums w;
    w.s = check_weights(cols, seed, 0, 's');
    w.row_ref.assign(rows, 0.0);
    w.row_tol.assign(rows, 0.0);
    std::vector<double> block(cols);
    for (std::size_t b = 0; b < rows; ++b) { // each block as check_sums adds the outputs
        const std::size_t len = std::min(cols, n - b * cols);
        for (std::size_t k = 0; k < len; ++k)
            block[k] = ref(b * cols + k);
        sums.row_ref[b] = lane_sum<double>(nullptr, block.data(), len);
        w.row_ref[b] = lane_sum(w.s.data(), block.data(), len);
    }
    sums.weighted.push_back(std::move(w));
    return sums;
}

} // namespace duet::apps
