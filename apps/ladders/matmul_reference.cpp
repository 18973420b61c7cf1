// matmul's check: the reference values of C's checked entries (double-precision dot products on
// the CPU) and the bound each is held to (matmul_reference.hpp).
#include "matmul_reference.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "inputs.hpp"
#include "setup_clock.hpp"

namespace duet::apps::matmul_ref {

// Per-entry tolerance. A float dot product of length K, summed in any order, with or without
// fused multiply-adds, is within gamma_K * sum_k |a_ik b_kj| of the exact value, where
// gamma_K = K u / (1 - K u) and u = FLT_EPSILON / 2 (Higham, Accuracy and Stability of Numerical
// Algorithms, 3.1). That worst case grows like K; at K = 8192 it would let a dropped term of the
// sum pass unseen. So the bound is the smaller of the worst case (with a margin of 2: K * eps) and
// the probabilistic bound of Higham and Mary (SIAM J. Sci. Comput. 2019), lambda sqrt(K) u
// sum|a b|, with lambda = 10 (5 sqrt(K) eps): rounding errors that behave as independent zero-mean
// variables exceed it with probability below 2K exp(-lambda^2 / 2) ~ 4e-22 K. In practice the
// partial sums of random +-1 data are far smaller than sum|a b|, so real errors use a few percent
// of the bound. K * FLT_MIN more covers devices that flush subnormal results to zero.
double entry_bound(double abs_sum, std::size_t K) {
    const double k = static_cast<double>(K);
    return std::min(k, 5.0 * std::sqrt(k)) * FLT_EPSILON * abs_sum + k * FLT_MIN;
}

// The same for the tf32 step, whose inputs are rounded to TF32 (10 stored mantissa bits, unit
// roundoff u = 2^-11) before the tensor cores multiply them: each product a*b is then off by at
// most (2u + u^2)|a b|, below 2^-10 |a b|, whatever K is; the sums that follow are float sums
// (entry_bound's part). TF32's own share is 8192 times float's unit roundoff: this is not a
// float32 result, and the run's note gives its measured error beside float32's.
// Truncated inputs (wgmma on Hopper reads the fp32 bits and drops the 13 low ones, matmul_tf32_
// wgmma): each input is off by less than 2^-10 of itself, each product by (2^-9 + 2^-20)|a b|.
double tf32_entry_bound(double abs_sum, std::size_t K, bool truncated) {
    const double product =
        truncated ? std::ldexp(1.0, -9) + std::ldexp(1.0, -20) : std::ldexp(1.0, -10);
    return product * abs_sum + entry_bound(abs_sum, K);
}

// Double-precision dot products for the entries in `indices`, spread over the CPU's cores.
std::shared_ptr<const Reference>
compute_reference(std::span<const float> a, std::span<const float> b, std::size_t M, std::size_t N,
                  std::size_t K, std::vector<std::size_t> indices, std::uint64_t seed) {
    // B transposed once (in cache-sized blocks), so each dot product reads both operands
    // contiguously.
    std::vector<float> bt(N * K);
    constexpr std::size_t blk = 64;
    for (std::size_t k0 = 0; k0 < K; k0 += blk)
        for (std::size_t j0 = 0; j0 < N; j0 += blk)
            for (std::size_t k = k0; k < std::min(K, k0 + blk); ++k)
                for (std::size_t j = j0; j < std::min(N, j0 + blk); ++j)
                    bt[j * K + k] = b[k * N + j];

    auto ref = std::make_shared<Reference>();
    ref->indices = std::move(indices);
    const std::size_t n = ref->indices.size();
    ref->value.resize(n);
    ref->bound.resize(n);
    ref->abs_sum.resize(n);
    auto work = [&](std::size_t begin, std::size_t end) {
        for (std::size_t t = begin; t < end; ++t) {
            const std::size_t i = ref->indices[t] / N, j = ref->indices[t] % N;
            const float* ar = &a[i * K];
            const float* br = &bt[j * K];
            // Four partial sums: independent chains the CPU can overlap (double is exact enough
            // that the order does not matter here).
            double s[4] = {0, 0, 0, 0}, m[4] = {0, 0, 0, 0};
            std::size_t k = 0;
            for (; k + 4 <= K; k += 4)
                for (int u = 0; u < 4; ++u) {
                    const double p = double(ar[k + u]) * double(br[k + u]);
                    s[u] += p;
                    m[u] += std::fabs(p);
                }
            for (; k < K; ++k) {
                const double p = double(ar[k]) * double(br[k]);
                s[0] += p;
                m[0] += std::fabs(p);
            }
            ref->value[t] = (s[0] + s[1]) + (s[2] + s[3]);
            ref->abs_sum[t] = (m[0] + m[1]) + (m[2] + m[3]);
            ref->bound[t] = entry_bound(ref->abs_sum[t], K);
        }
    };
    parallel_for(n, 256, work);
    if (n < M * N) // a sample: the row and column sums a sampled check adds, made once too
        ref->sums = std::make_shared<const SumParts>(sum_parts(a, b, M, N, K, seed));
    return ref;
}

// Row i's entries each have sum_k |a_ik b_kj| <= sum_k |a_ik| max_j |b_kj|, column j's
// <= sum_k max_i |a_ik| |b_kj|: their bounds hold every entry of the row or column.
// B's rows against each column weight vector (ones first): bw[w][k] = sum_j b_kj s_w[j]; and
// b_max[k] = max_j |b_kj|.
static void b_parts(std::span<const float> b, std::size_t N, std::size_t K,
                    const std::vector<const std::vector<double>*>& s,
                    std::vector<std::vector<double>>& bw, std::vector<double>& b_max) {
    parallel_for(K, 16, [&](std::size_t k0, std::size_t k1) {
        for (std::size_t k = k0; k < k1; ++k)
            for (std::size_t j = 0; j < N; ++j) {
                const double v = b[k * N + j];
                for (std::size_t w = 0; w < s.size(); ++w)
                    bw[w][k] += (s[w] ? (*s[w])[j] : 1.0) * v;
                b_max[k] = std::max(b_max[k], std::fabs(v));
            }
    });
}

// A's columns against each row weight vector (ones first): aw[w][k] = sum_i r_w[i] a_ik; and
// a_max[k] = max_i |a_ik|.
static void a_parts(std::span<const float> a, std::size_t M, std::size_t K,
                    const std::vector<const std::vector<double>*>& r,
                    std::vector<std::vector<double>>& aw, std::vector<double>& a_max) {
    parallel_for(K, 256, [&](std::size_t k0, std::size_t k1) { // A's columns, rows streamed
        for (std::size_t i = 0; i < M; ++i)
            for (std::size_t k = k0; k < k1; ++k) {
                const double v = a[i * K + k];
                for (std::size_t w = 0; w < r.size(); ++w)
                    aw[w][k] += (r[w] ? (*r[w])[i] : 1.0) * v;
                a_max[k] = std::max(a_max[k], std::fabs(v));
            }
    });
}

SumParts sum_parts(std::span<const float> a, std::span<const float> b, std::size_t M, std::size_t N,
                   std::size_t K, std::uint64_t seed) {
    // Each sum below adds in the same order as a loop on one core would (k, i or j ascending):
    // the cores split the independent sums, never one sum.
    SumParts s;
    s.cols = N;
    s.weighted.resize(weighted_sets);
    std::vector<const std::vector<double>*> by_col = {nullptr}, by_row = {nullptr}; // ones first
    for (int w = 0; w < weighted_sets; ++w) {
        s.weighted[w].s = check_weights(N, seed, w, 's');
        s.weighted[w].r = check_weights(M, seed, w, 'r');
        by_col.push_back(&s.weighted[w].s);
        by_row.push_back(&s.weighted[w].r);
    }
    const std::size_t sets = by_col.size();
    std::vector<std::vector<double>> bw(sets, std::vector<double>(K, 0.0)), aw = bw;
    std::vector<double> b_max(K, 0.0), a_max(K, 0.0);
    b_parts(b, N, K, by_col, bw, b_max);
    a_parts(a, M, K, by_row, aw, a_max);
    std::vector<std::vector<double>> rows(sets, std::vector<double>(M, 0.0));
    s.row_abs.resize(M);
    parallel_for(M, 64, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            double abs_bound = 0;
            for (std::size_t k = 0; k < K; ++k) {
                const double v = a[i * K + k];
                for (std::size_t w = 0; w < sets; ++w)
                    rows[w][i] += v * bw[w][k];
                abs_bound += std::fabs(v) * b_max[k];
            }
            s.row_abs[i] = abs_bound;
        }
    });
    std::vector<std::vector<double>> cols(sets, std::vector<double>(N, 0.0));
    s.col_abs.assign(N, 0.0);
    parallel_for(N, 256, [&](std::size_t j0, std::size_t j1) { // B's rows streamed
        for (std::size_t k = 0; k < K; ++k)
            for (std::size_t j = j0; j < j1; ++j) {
                const double v = b[k * N + j];
                for (std::size_t w = 0; w < sets; ++w)
                    cols[w][j] += aw[w][k] * v;
                s.col_abs[j] += a_max[k] * std::fabs(v);
            }
    });
    s.row_ref = std::move(rows[0]);
    s.col_ref = std::move(cols[0]);
    for (int w = 0; w < weighted_sets; ++w) {
        s.weighted[w].row_ref = std::move(rows[w + 1]);
        s.weighted[w].col_ref = std::move(cols[w + 1]);
    }
    return s;
}

SumCheck sums_within(const SumParts& parts, const std::function<double(double)>& entry_bound) {
    SumCheck s;
    s.cols = parts.cols;
    s.row_ref = parts.row_ref;
    s.col_ref = parts.col_ref;
    const std::size_t M = parts.row_ref.size();
    s.row_tol.resize(M);
    for (std::size_t i = 0; i < M; ++i)
        s.row_tol[i] = sum_tolerance(parts.cols, entry_bound(parts.row_abs[i]));
    s.col_tol.resize(parts.col_abs.size());
    for (std::size_t j = 0; j < s.col_tol.size(); ++j)
        s.col_tol[j] = sum_tolerance(M, entry_bound(parts.col_abs[j]));
    // Weighted: the same bound of each entry, the sum's tolerance from the weights' norms.
    for (const auto& pw : parts.weighted) {
        WeightedSums w{pw.s, pw.r, pw.row_ref, {}, pw.col_ref, {}};
        const auto [s_abs, s_sq] = weight_norms(pw.s);
        const auto [r_abs, r_sq] = weight_norms(pw.r);
        w.row_tol.resize(M);
        for (std::size_t i = 0; i < M; ++i)
            w.row_tol[i] = weighted_tolerance(s_abs, s_sq, entry_bound(parts.row_abs[i]));
        w.col_tol.resize(pw.col_ref.size());
        for (std::size_t j = 0; j < w.col_tol.size(); ++j)
            w.col_tol[j] = weighted_tolerance(r_abs, r_sq, entry_bound(parts.col_abs[j]));
        s.weighted.push_back(std::move(w));
    }
    return s;
}

SumCheck matmul_sums(const SumParts& parts, std::size_t K, bool tf32, bool truncated) {
    return sums_within(parts, [&](double abs_sum) {
        return tf32 ? tf32_entry_bound(abs_sum, K, truncated) : entry_bound(abs_sum, K);
    });
}

SumCheck matmul_sums(std::span<const float> a, std::span<const float> b, std::size_t M,
                     std::size_t N, std::size_t K, bool tf32, bool truncated) {
    return matmul_sums(sum_parts(a, b, M, N, K), K, tf32, truncated);
}

// The largest |c - ref| / sum|a b| over the checked entries: for the tf32 note, the measured
// error of the GPU's C, and (float32 = true) of float32 dot products of the same entries on the
// CPU, in the kernels' order (k ascending, one multiply-add after the other).
double relative_error(const Reference& ref, std::span<const float> c, std::span<const float> a,
                      std::span<const float> b, std::size_t N, std::size_t K, bool float32) {
    std::vector<double> err(ref.indices.size(), 0.0);
    parallel_for(err.size(), 64, [&](std::size_t begin, std::size_t end) {
        for (std::size_t t = begin; t < end; ++t) {
            const std::size_t i = ref.indices[t] / N, j = ref.indices[t] % N;
            double v = 0;
            if (float32) {
                float s = 0.0f;
                for (std::size_t k = 0; k < K; ++k)
                    s = std::fma(a[i * K + k], b[k * N + j], s);
                v = s;
            } else {
                v = c[ref.indices[t]];
            }
            err[t] = ref.abs_sum[t] > 0 ? std::fabs(v - ref.value[t]) / ref.abs_sum[t] : 0.0;
        }
    });
    double worst = 0.0;
    for (const double e : err)
        worst = std::max(worst, e);
    return worst;
}

double float32_error(const Reference& ref, std::span<const float> a, std::span<const float> b,
                     std::size_t N, std::size_t K) {
    std::call_once(ref.float32_once, [&] {
        const SetupTimer setup; // once per problem, for every step that reports it
        ref.float32_error = relative_error(ref, {}, a, b, N, K, true);
    });
    return ref.float32_error;
}

} // namespace duet::apps::matmul_ref
