#pragma once
// Whole-output sums: where only a sample of an output is compared with the reference, the sums of
// every row and every column of the output are compared with the reference's sums (computed
// cheaply from the inputs), so a wrong element the sample did not look at still fails the run
// when its error is above its row's or column's tolerance.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "result.hpp"

namespace duet::apps {

// The reference's sums of an output seen as rows of `cols` elements (the last row may be
// shorter), each with the error its sum may have; column sums may be left empty.
struct SumCheck {
    std::size_t cols = 0;
    std::vector<double> row_ref, row_tol; // one per row
    std::vector<double> col_ref, col_tol; // one per column, or none
};

// Fails r (with a note naming the row or column and how far its sum is off) when any row's or
// column's sum of `out`, added in double precision, is further from the reference's than its
// tolerance. Does nothing to a result that already failed.
void check_sums(Result& r, std::span<const float> out, const SumCheck& sums);

// The tolerance of a sum of `count` outputs each within `each` of its reference, whose errors
// are independent and of zero mean (rounding errors): the worst case count * each, or, smaller
// for long rows, 10 standard deviations of the sum taking `each` itself as one (10 sqrt(count) *
// each), which is exceeded with a probability below 1e-22.
double sum_tolerance(std::size_t count, double each);

} // namespace duet::apps
