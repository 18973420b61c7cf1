// matmul's check (apps/ladders/matmul.cpp): every checked entry of C against a double-precision
// dot product on the CPU, within a bound of its own (entry_bound; tf32_entry_bound for the
// tensor-core step), and for the tf32 step's note the measured error of the GPU's C and of float32
// dot products beside it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "sum_check.hpp"

namespace duet::apps::matmul_ref {

// How far a float dot product of length K may lie from the exact value, with sum_k |a_ik b_kj| =
// abs_sum: the smaller of the worst case and Higham and Mary's probabilistic bound (the .cpp says
// why), plus K * FLT_MIN for devices that flush subnormals.
double entry_bound(double abs_sum, std::size_t K);
// The same where the inputs are rounded to TF32 (or, `truncated`, cut to it, as wgmma reads them).
double tf32_entry_bound(double abs_sum, std::size_t K, bool truncated = false);

// The sums of every row and every column of C = A B, from A (B 1) and (1 A) B in double
// precision (M K + K N multiply-adds), with the sums of |a||b| that bound each entry of the row or
// column: what a sampled check adds, whatever precision its bound is for. With them, for each of
// `weighted_sets` sets of random weights s (one per column) and r (one per row), seeded by
// `seed`: C s from A (B s) and r^T C from (r^T A) B, Freivalds' check (2 (M K + K N) each).
struct SumParts {
    std::size_t cols = 0;
    std::vector<double> row_ref, row_abs; // one per row
    std::vector<double> col_ref, col_abs; // one per column
    struct Weighted {
        std::vector<double> s, r;    // the weights
        std::vector<double> row_ref; // (A (B s))_i, one per row
        std::vector<double> col_ref; // ((r^T A) B)_j, one per column
    };
    std::vector<Weighted> weighted;
};
SumParts sum_parts(std::span<const float> a, std::span<const float> b, std::size_t M, std::size_t N,
                   std::size_t K, std::uint64_t seed = 0);

// The reference values and bounds of the checked entries of one problem.
struct Reference {
    std::vector<std::size_t> indices; // row-major indices into C
    std::vector<double> value, bound;
    std::vector<double> abs_sum; // sum_k |a_ik b_kj|, for bounds of other precisions (tf32)
    std::shared_ptr<const SumParts> sums; // where `indices` is a sample: every row's and column's
    // float32 dot products' error over the same entries (float32_error), made once when asked.
    mutable std::once_flag float32_once;
    mutable double float32_error = 0;
};

// Double-precision dot products for the entries in `indices` of C = A B (A M x K, B K x N), spread
// over the CPU's cores.
// A sample's sums (Reference::sums) take their random weights from `seed`.
std::shared_ptr<const Reference>
compute_reference(std::span<const float> a, std::span<const float> b, std::size_t M, std::size_t N,
                  std::size_t K, std::vector<std::size_t> indices, std::uint64_t seed = 0);

// The row and column sums of C (sum_parts), each within the tolerance of a sum of entries within
// their bounds (entry_bound, or tf32_entry_bound with `tf32`; `truncated` as there): what a
// sampled check adds so that a wrong entry outside the sample still fails. The first from sums
// made once per problem (Reference::sums), the second from the inputs.
SumCheck matmul_sums(const SumParts& parts, std::size_t K, bool tf32 = false,
                     bool truncated = false);
// The same with the bound of each entry given as a function of its sum_k |a_ik b_kj|.
SumCheck sums_within(const SumParts& parts, const std::function<double(double)>& entry_bound);
SumCheck matmul_sums(std::span<const float> a, std::span<const float> b, std::size_t M,
                     std::size_t N, std::size_t K, bool tf32 = false, bool truncated = false);

// The largest |c - ref| / sum|a b| over the checked entries of C (N columns, K deep): the GPU's
// C, or (float32 = true) float32 dot products of the same entries on the CPU in the kernels' order.
double relative_error(const Reference& ref, std::span<const float> c, std::span<const float> a,
                      std::span<const float> b, std::size_t N, std::size_t K, bool float32);
// relative_error of float32 dot products (the CPU's, beside a step's own): the same for every step
// of a problem, so made once (problem set-up) and kept in `ref`.
double float32_error(const Reference& ref, std::span<const float> a, std::span<const float> b,
                     std::size_t N, std::size_t K);

} // namespace duet::apps::matmul_ref
