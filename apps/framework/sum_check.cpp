// Whole-output sums for sampled checks, plain and random-weighted (sum_check.hpp).
#include "sum_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "inputs.hpp"
#include "problem.hpp"

namespace duet::apps {

double sum_tolerance(std::size_t count, double each) {
    const double n = static_cast<double>(count);
    return weighted_tolerance(n, n, each);
}

double weighted_tolerance(double sum_abs, double sum_squares, double each) {
    return std::min(sum_abs, 10.0 * std::sqrt(sum_squares)) * each;
}

std::pair<double, double> weight_norms(const std::vector<double>& w) {
    double abs = 0, squares = 0;
    for (const double v : w) {
        abs += std::fabs(v);
        squares += v * v;
    }
    return {abs, squares};
}

std::vector<double> check_weights(std::size_t n, std::uint64_t seed, int set, char dir) {
    const std::uint64_t stream = mix64(seed ^ 0x3e1a7ull) + std::uint64_t(set) * 2 + (dir == 'r');
    std::vector<double> w(n);
    for (std::size_t i = 0; i < n; ++i) // k / 2^20, k uniform in [-2^20, 2^20]
        w[i] = std::ldexp(double(uniform_int(counter_random(stream, i), -(1 << 20), 1 << 20)), -20);
    return w;
}

namespace {

// The first line of `ref` (rows or columns) whose sum in `got` is off by more than `tol`, as
// "row 12's sum is off by ..."; empty when none is.
std::string first_off(const std::string& what, const std::vector<double>& got,
                      const std::vector<double>& ref, const std::vector<double>& tol) {
    for (std::size_t i = 0; i < ref.size(); ++i) {
        const double off = std::fabs(got[i] - ref[i]);
        if (!(off <= tol[i])) {
            char buf[240];
            std::snprintf(buf, sizeof buf, "%s %zu's sum is off by %.3g (tolerance %.3g)",
                          what.c_str(), i, off, tol[i]);
            return buf;
        }
    }
    return {};
}

// Every row's and (with `cols_too`) every column's sum of `out` with each set of weights (the
// first all ones), in one pass over the output: rows[w][i] added in column order (lane_sum),
// cols[w][j] by blocks of rows, each block in row order and the blocks in order (the same sums
// whatever the number of cores).
// Row i (`x`, `len` outputs) into the column sums of every set, acc[w * cols + j], with row
// weight w's i-th (the first set all ones); a set's sums in one loop over the row.
void add_row(double* acc, std::size_t cols, const std::vector<const std::vector<double>*>& by_row,
             std::size_t i, const float* x, std::size_t len) {
    for (std::size_t j = 0; j < len; ++j)
        acc[j] += double(x[j]);
    for (std::size_t w = 1; w < by_row.size(); ++w) {
        const double rw = by_row[w]->empty() ? 1.0 : (*by_row[w])[i];
        double* a = acc + w * cols;
        for (std::size_t j = 0; j < len; ++j)
            a[j] += rw * double(x[j]);
    }
}

struct Sums {
    std::vector<std::vector<double>> rows, cols;
};
Sums all_sums(std::span<const float> out, std::size_t cols, std::size_t rows,
              const std::vector<const std::vector<double>*>& by_col,
              const std::vector<const std::vector<double>*>& by_row, bool cols_too) {
    const std::size_t sets = by_col.size();
    const std::size_t block = std::max<std::size_t>(32, (rows + 63) / 64);
    const std::size_t blocks = (rows + block - 1) / block;
    Sums s{std::vector<std::vector<double>>(sets, std::vector<double>(rows, 0.0)), {}};
    std::vector<double> part(cols_too ? blocks * sets * cols : 0, 0.0); // [block][set][col]
    parallel_for(blocks, 1, [&](std::size_t b0, std::size_t b1) {
        for (std::size_t i = b0 * block; i < std::min(rows, b1 * block); ++i) {
            const float* x = out.data() + i * cols;
            const std::size_t len = std::min(cols, out.size() - i * cols);
            for (std::size_t w = 0; w < sets; ++w)
                s.rows[w][i] = lane_sum(by_col[w]->empty() ? nullptr : by_col[w]->data(), x, len);
            if (cols_too)
                add_row(&part[(i / block) * sets * cols], cols, by_row, i, x, len);
        }
    });
    s.cols.assign(cols_too ? sets : 0, std::vector<double>(cols, 0.0));
    for (std::size_t b = 0; b < (cols_too ? blocks : 0); ++b)
        for (std::size_t w = 0; w < sets; ++w)
            for (std::size_t j = 0; j < cols; ++j)
                s.cols[w][j] += part[(b * sets + w) * cols + j];
    return s;
}

} // namespace

void check_sums(Result& r, std::span<const float> out, const SumCheck& s) {
    if (!r.pass || s.cols == 0 || s.row_ref.empty())
        return;
    static const std::vector<double> ones;
    std::vector<const std::vector<double>*> by_col = {&ones}, by_row = {&ones};
    for (const auto& w : s.weighted) {
        by_col.push_back(&w.s);
        by_row.push_back(&w.r);
    }
    const bool cols_too = !s.col_ref.empty();
    const Sums got = all_sums(out, s.cols, s.row_ref.size(), by_col, by_row, cols_too);
    std::string off = first_off("row", got.rows[0], s.row_ref, s.row_tol);
    for (std::size_t w = 0; off.empty() && w < s.weighted.size(); ++w)
        off = first_off("random-weighted row", got.rows[w + 1], s.weighted[w].row_ref,
                        s.weighted[w].row_tol);
    if (off.empty() && cols_too)
        off = first_off("column", got.cols[0], s.col_ref, s.col_tol);
    for (std::size_t w = 0; off.empty() && cols_too && w < s.weighted.size(); ++w)
        if (!s.weighted[w].col_ref.empty())
            off = first_off("random-weighted column", got.cols[w + 1], s.weighted[w].col_ref,
                            s.weighted[w].col_tol);
    if (off.empty())
        return;
    r.pass = false;
    r.note += std::string(r.note.empty() ? "" : "; ") + "FAIL: " + off +
              ": an output the sample did not compare is wrong";
}

} // namespace duet::apps
