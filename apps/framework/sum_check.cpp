// Whole-output sums for sampled checks (sum_check.hpp).
#include "sum_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "inputs.hpp"

namespace duet::apps {

double sum_tolerance(std::size_t count, double each) {
    const double n = static_cast<double>(count);
    return std::min(n, 10.0 * std::sqrt(n)) * each;
}

namespace {

// The first line of `ref` (rows or columns) whose sum in `got` is off by more than `tol`, as
// "row 12's sum is off by ..."; empty when none is.
std::string first_off(const char* what, const std::vector<double>& got,
                      const std::vector<double>& ref, const std::vector<double>& tol) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double off = std::fabs(got[i] - ref[i]);
        if (!(off <= tol[i])) {
            char buf[200];
            std::snprintf(buf, sizeof buf, "%s %zu's sum is off by %.3g (tolerance %.3g)", what, i,
                          off, tol[i]);
            return buf;
        }
    }
    return {};
}

} // namespace

void check_sums(Result& r, std::span<const float> out, const SumCheck& s) {
    if (!r.pass || s.cols == 0 || s.row_ref.empty())
        return;
    const std::size_t rows = s.row_ref.size();
    std::vector<double> row(rows, 0.0);
    parallel_for(rows, 64, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            double sum = 0;
            for (std::size_t j = i * s.cols; j < std::min(out.size(), (i + 1) * s.cols); ++j)
                sum += out[j];
            row[i] = sum;
        }
    });
    std::string off = first_off("row", row, s.row_ref, s.row_tol);
    if (off.empty() && !s.col_ref.empty()) {
        std::vector<double> col(s.cols, 0.0);
        for (std::size_t i = 0; i < out.size(); i += s.cols)
            for (std::size_t j = 0; j < std::min(s.cols, out.size() - i); ++j)
                col[j] += out[i + j];
        off = first_off("column", col, s.col_ref, s.col_tol);
    }
    if (off.empty())
        return;
    r.pass = false;
    r.note += std::string(r.note.empty() ? "" : "; ") + "FAIL: " + off +
              ": an output the sample did not compare is wrong";
}

} // namespace duet::apps
