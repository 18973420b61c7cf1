// conv5x5's bounds: the tolerance of one output pixel, and the sums of every row and column of
// the output that a sampled check adds (conv5x5.hpp).
#include <algorithm>
#include <cfloat>
#include <cmath>

#include "conv5x5.hpp"
#include "inputs.hpp"

namespace duet::apps {

// Tolerance. Each output is a sum of 25 float products, computed in an order and with fused
// multiply-adds as the compiler likes; such a sum is within gamma_25 * sum_k |w_k x_k| of the
// exact value, gamma_25 = 25u / (1 - 25u), u = FLT_EPSILON / 2 (Higham, Accuracy and Stability
// of Numerical Algorithms, 3.1). The pixels are in [-1, 1), so sum_k |w_k x_k| <= sum_k |w_k|,
// one bound for every pixel: 25 * FLT_EPSILON * sum|w| (a margin of 2 over gamma_25), plus
// 25 * FLT_MIN for devices that flush subnormal products to zero. The double reference is exact
// enough to count as exact. A wrong or missing tap moves a pixel by about |w x| ~ 0.25,
// thousands of times the bound (about 4e-5 for a typical filter).
double conv5x5_tolerance(std::span<const float> filter) {
    double abs_sum = 0;
    for (float w : filter)
        abs_sum += std::fabs(double(w));
    return 25.0 * FLT_EPSILON * abs_sum + 25.0 * FLT_MIN;
}

// sum over x < len of get(clamp(x + s, 0, len - 1)), from `total` (the sum of all len values):
// a shift drops |s| values at one end and repeats the value at the other end |s| times.
template <class Get>
static double shifted_sum(std::size_t len, long long s, double total, Get get) {
    const std::size_t k = std::min<std::size_t>(static_cast<std::size_t>(s < 0 ? -s : s), len);
    for (std::size_t j = 0; j < k; ++j)
        total += s > 0 ? get(len - 1) - get(j) : get(0) - get(len - 1 - j);
    return total;
}

namespace {

std::size_t clamped(long long v, std::size_t len) {
    return static_cast<std::size_t>(std::clamp(v, 0LL, static_cast<long long>(len) - 1));
}

// For weights w over one axis of length `len`: taps[d * len + i] = sum over the 5 taps t of the
// other axis' filter row or column d (tap(d, t)) of the weights of the outputs whose clamped
// tap t reads input i. An output line's weighted sum is then one dot product per input line.
template <class Tap>
std::vector<double> weights_through_taps(const std::vector<double>& w, std::size_t len, Tap tap) {
    std::vector<double> taps(5 * len, 0.0);
    for (long long d = 0; d < 5; ++d)
        for (long long t = 0; t < 5; ++t)
            for (std::size_t x = 0; x < len; ++x)
                taps[d * len + clamped(static_cast<long long>(x) + t - 2, len)] += tap(d, t) * w[x];
    return taps;
}

// One set of random-weighted sums: row y's sum_x s[x] out[y][x] and column x's sum_y r[y]
// out[y][x] of the reference, 10 W H multiply-adds.
WeightedSums weighted_sums(std::span<const float> img, std::span<const float> f, std::size_t W,
                           std::size_t H, std::uint64_t seed, int set) {
    WeightedSums ws;
    ws.s = check_weights(W, seed, set, 's');
    ws.r = check_weights(H, seed, set, 'r');
    // Rows: S[dy][x'] holds filter row dy's taps; P[g][dy] is input row g against them.
    const auto S = weights_through_taps(
        ws.s, W, [&](long long dy, long long dx) { return double(f[dy * 5 + dx]); });
    std::vector<double> P(H * 5, 0.0);
    parallel_for(H, 16, [&](std::size_t g0, std::size_t g1) {
        for (std::size_t g = g0; g < g1; ++g)
            for (std::size_t dy = 0; dy < 5; ++dy) {
                double sum = 0;
                for (std::size_t x = 0; x < W; ++x)
                    sum += double(img[g * W + x]) * S[dy * W + x];
                P[g * 5 + dy] = sum;
            }
    });
    ws.row_ref.assign(H, 0.0);
    for (std::size_t y = 0; y < H; ++y)
        for (long long dy = 0; dy < 5; ++dy)
            ws.row_ref[y] += P[clamped(static_cast<long long>(y) + dy - 2, H) * 5 + dy];
    // Columns: R[dx][y'] holds filter column dx's taps; Q[g][dx] is input column g against them.
    const auto R = weights_through_taps(
        ws.r, H, [&](long long dx, long long dy) { return double(f[dy * 5 + dx]); });
    std::vector<double> Q(W * 5, 0.0);
    parallel_for(W, 1024, [&](std::size_t x0, std::size_t x1) {
        for (std::size_t y = 0; y < H; ++y)
            for (std::size_t x = x0; x < x1; ++x)
                for (std::size_t dx = 0; dx < 5; ++dx)
                    Q[x * 5 + dx] += double(img[y * W + x]) * R[dx * H + y];
    });
    ws.col_ref.assign(W, 0.0);
    for (std::size_t x = 0; x < W; ++x)
        for (long long dx = 0; dx < 5; ++dx)
            ws.col_ref[x] += Q[clamped(static_cast<long long>(x) + dx - 2, W) * 5 + dx];
    // Each pixel within conv5x5_tolerance; the sum's tolerance from the weights' norms.
    const double each = conv5x5_tolerance(f);
    const auto [s_abs, s_sq] = weight_norms(ws.s);
    const auto [r_abs, r_sq] = weight_norms(ws.r);
    ws.row_tol.assign(H, weighted_tolerance(s_abs, s_sq, each));
    ws.col_tol.assign(W, weighted_tolerance(r_abs, r_sq, each));
    return ws;
}

} // namespace

SumCheck conv5x5_sums(std::span<const float> img, std::span<const float> filter, std::size_t W,
                      std::size_t H, std::uint64_t seed) {
    // Every core takes rows (for their totals) and then columns (streaming the rows over its
    // own strip); each total adds in the order of a loop on one core.
    std::vector<double> row_total(H, 0.0), col_total(W, 0.0);
    parallel_for(H, 16, [&](std::size_t y0, std::size_t y1) {
        for (std::size_t y = y0; y < y1; ++y)
            for (std::size_t x = 0; x < W; ++x)
                row_total[y] += img[y * W + x];
    });
    parallel_for(W, 1024, [&](std::size_t x0, std::size_t x1) {
        for (std::size_t y = 0; y < H; ++y)
            for (std::size_t x = x0; x < x1; ++x)
                col_total[x] += img[y * W + x];
    });
    SumCheck s;
    s.cols = W;
    s.row_ref.assign(H, 0.0);
    s.col_ref.assign(W, 0.0);
    for (long long dy = 0; dy < 5; ++dy)
        for (long long dx = 0; dx < 5; ++dx) {
            const double f = filter[dy * 5 + dx];
            for (std::size_t y = 0; y < H; ++y) {
                const std::size_t gy = clamped(static_cast<long long>(y) + dy - 2, H);
                s.row_ref[y] += f * shifted_sum(W, dx - 2, row_total[gy],
                                                [&](std::size_t x) { return img[gy * W + x]; });
            }
            for (std::size_t x = 0; x < W; ++x) {
                const std::size_t gx = clamped(static_cast<long long>(x) + dx - 2, W);
                s.col_ref[x] += f * shifted_sum(H, dy - 2, col_total[gx],
                                                [&](std::size_t y) { return img[y * W + gx]; });
            }
        }
    s.row_tol.assign(H, sum_tolerance(W, conv5x5_tolerance(filter)));
    s.col_tol.assign(W, sum_tolerance(H, conv5x5_tolerance(filter)));
    for (int set = 0; set < weighted_sets; ++set)
        s.weighted.push_back(weighted_sums(img, filter, W, H, seed, set));
    return s;
}

} // namespace duet::apps
