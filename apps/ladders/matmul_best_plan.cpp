// How matmul's `best` step covers C on a device: its blocks over all of C, or over a split of K
// (grid z; matmul_split_sum adds the slices), or its blocks over the whole blocks of C only and
// matmul_best_edge over the thin strips left; on copies of the operands with aligned rows where
// theirs are not (kernels_cl/matmul_best_odd.cl); best's blocks in waves, or spread over the
// compute units by matmul_best_stream (stream-K). The choice is a model of waves of blocks on
// the device's compute units, in units of one block's time.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <optional>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "device_kind.hpp"
#include "device_profile.hpp"
#include "inputs.hpp"
#include "matmul.hpp"

namespace duet::apps {

std::size_t best_stream_rounds(std::size_t blocks, std::size_t groups) {
    const std::size_t whole = blocks / groups;
    return blocks % groups ? std::max<std::size_t>(whole, 1) - 1 : whole;
}

std::pair<int, int> best_divisor(std::size_t d) {
    int l = 0;
    while ((std::uint64_t{1} << l) < d)
        ++l;
    const std::uint64_t m = (std::uint64_t{1} << 32) * ((std::uint64_t{1} << l) - d) / d + 1;
    return {static_cast<int>(static_cast<std::uint32_t>(m)), l};
}

bool best_all_inside(std::size_t Mi, std::size_t Ni, std::size_t Np, std::size_t Kp, std::size_t bm,
                     std::size_t bn, std::size_t bk) {
    return bm > 0 && bn > 0 && bk > 0 && bk % 4 == 0 && Mi > 0 && Ni > 0 && Ni <= Np &&
           Mi % bm == 0 && Ni % bn == 0 && Kp >= bk && Kp % bk == 0 && Np % 4 == 0;
}

std::size_t best_tile_depth(const Defines& defines, bool deep) {
    std::size_t bk = deep ? 16 : 8;
    for (const auto& [name, value] : defines)
        if (name == "BEST_BK") {
            char* end = nullptr;
            const unsigned long v = std::strtoul(value.c_str(), &end, 10);
            bk = end && *end == '\0' && v > 0 ? v : 0; // 0: not a depth (the build fails)
        }
    return bk;
}

namespace {

// The plan's costs and speeds are the device profile's (BestProfile, device_profile.hpp; the
// measured rows of apps/profiles/device_profiles.json say where each came from). matmul_best_edge
// works in tiles of 32x32 by 256 work-items.
constexpr std::size_t edge_tile = 32, edge_items = 256;

double ceil_div(double a, double b) {
    return std::ceil(a / b);
}

// Whether best's last row (or column) of blocks of b reaches past C's n rows (columns): where n is
// not a whole number of blocks and the rest is not left to matmul_best_edge (`edge`).
bool reaches_past(std::size_t n, std::size_t b, bool edge) {
    return !edge && n % b != 0;
}

// Whether best is built with clamped loads (BEST_CLAMP) for an M x N C in blocks of bm x bn, the
// edges' rows (`edge_rows`) or columns (`edge_cols`) left to matmul_best_edge: where B's rows are
// aligned and best's own blocks reach past C's last rows or columns.
bool clamps(std::size_t M, std::size_t N, std::size_t bm, std::size_t bn, bool edge_rows,
            bool edge_cols) {
    return N % 4 == 0 && (reaches_past(M, bm, edge_rows) || reaches_past(N, bn, edge_cols));
}

// A launch's time over its time unclamped, where its blocks are clamped (`clamped`).
double clamp_factor(const BestProfile& p, bool clamped) {
    return clamped ? 1 + p.clamp_cost : 1.0;
}

// A split of K in `s` slices, in block times: the waves of its blocks, and writing and reading
// s partial products, taken as (2s+1) M N floats against 2 M N K flops at the profile's flops per
// byte, times its split_cost for what else shorter blocks cost (each writes a whole block of C).
double split_time(const BestProfile& p, double blocks, double cu, double s, double K) {
    const double cost =
        s == 1 ? 0.0 : p.split_cost * (2 * s + 1) * 4.0 * p.flops_per_byte / (2.0 * K);
    return ceil_div(blocks * s, cu) / s * (1 + cost);
}

// matmul_best_stream's speed over best's (its rounds of whole blocks; the rest shared out in
// tiles of K, whose pieces restart the tiles' pipeline and go through memory): the profile's,
// over blocks all inside C with K whole tiles (`inside`, where the OpenCL kernel builds without
// its checked loop) or otherwise.
StreamSpeed stream_speed(const BestProfile& p, bool inside) {
    return inside ? p.stream_inside : p.stream_outside;
}

// best over `blocks` blocks of C on `cu` compute units: its time in block times, and whether
// matmul_best_stream gives it (`may`: the device may run it; `forced`: the user's BEST_STREAM=1).
struct MainTime {
    double time;
    bool stream;
};
MainTime main_time(double blocks, double cu, StreamSpeed speed, bool may, bool forced) {
    const double waves = ceil_div(blocks, cu);
    const double rounds = double(best_stream_rounds(std::size_t(blocks), std::size_t(cu)));
    const double spread = rounds / speed.whole + (blocks - rounds * cu) / cu / speed.shared;
    if (forced || (may && blocks > cu && spread < waves))
        return {std::min(waves, spread), true};
    return {waves, false};
}

} // namespace

double best_waves_slow_edges(std::size_t rows, std::size_t cols, bool last_row, bool last_col,
                             std::size_t cu, double slow) {
    std::priority_queue<double, std::vector<double>, std::greater<>> free_at;
    for (std::size_t u = 0; u < std::max<std::size_t>(cu, 1); ++u)
        free_at.push(0.0);
    double end = 0.0;
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) {
            const bool edge = (last_row && r + 1 == rows) || (last_col && c + 1 == cols);
            const double done = free_at.top() + 1.0 + (edge ? slow : 0.0);
            free_at.pop();
            free_at.push(done);
            end = std::max(end, done);
        }
    return end;
}

std::size_t best_covered(std::size_t n, std::size_t b, bool edge) {
    return edge ? n / b * b : n;
}

std::size_t best_edge_tiles(std::size_t M, std::size_t N, std::size_t Mi, std::size_t Ni) {
    const auto up = [](std::size_t a) { return (a + edge_tile - 1) / edge_tile; };
    return up(M) * up(N - Ni) + up(M - Mi) * up(Ni);
}

namespace {

// A user's 0 .. most for `name` (nullopt: not given); a usage Error naming `what` for anything
// else.
std::optional<int> user_choice(const RunConfig& cfg, const char* name, int most, const char* what) {
    for (const auto& [n, value] : cfg.defines)
        if (n == name) {
            if (value.size() != 1 || value[0] < '0' || value[0] > '0' + most)
                throw Error::usage(std::string("matmul: ") + name + "=" + value + " is " + what);
            return value[0] - '0';
        }
    return std::nullopt;
}

// The split of K, stream-K or the edges, for an M x N x K problem in blocks of bm x bn. Without
// a user's BEST_SPLITK, BEST_STREAM or BEST_EDGES, a GPU gets the cheapest of:
//  - best over all of C in waves, K split in s = 1..4 where that fills the last wave (a split
//    must win by 3%, and needs K >= 2048 so each slice keeps 512+ of K): with one block of
//    128x256 per SM (the default tile's registers allow no more), C of 4097^2 is 561 blocks,
//    4.25 waves of 132 on an H100, run as 5; split in 3 it is 1683 blocks, 13 waves, with partial
//    products to add.
//  - the same blocks spread evenly over the compute units by matmul_best_stream, where its
//    kernel's fence reaches other groups (CUDA and NVIDIA's OpenCL): 4224^2's 561 blocks as 3
//    rounds and the last 165 shared, 4.4 block times at its speeds (stream_speed), not 5.
//  - best over C's whole blocks in M, in N or both (in waves or spread), and matmul_best_edge over
//    the rest: 4097^2's 33x16 blocks of whole columns are 4 full waves (its last row of blocks
//    computes one row of C in time paid anyway), and the last column 129 edge tiles of 32x32.
// Elsewhere (CPUs, small tiles) best covers C in one launch, spread only at the user's
// BEST_STREAM=1 (over BEST_GROUPS groups, one per compute unit by default).
BestPlan cover(const RunConfig& cfg, const DeviceInfo& info, std::size_t M, std::size_t N,
               std::size_t K, std::size_t bm, std::size_t bn) {
    BestPlan plan;
    const std::size_t user_split = define_or(cfg, "matmul", "BEST_SPLITK", 0);
    const auto user_edges = user_choice(cfg, "BEST_EDGES", 1,
                                        "0 (best's blocks cover C) or 1 (C's last rows and "
                                        "columns that fill no block go to matmul_best_edge)");
    const auto user_stream = user_choice(cfg, "BEST_STREAM", 1,
                                         "0 (best's blocks in waves) or 1 (spread over the "
                                         "compute units by matmul_best_stream)");
    const bool edges = user_edges.value_or(0) == 1, forced = user_stream.value_or(0) == 1;
    const std::size_t cu = std::max<std::size_t>(1, info.compute_units);
    const BestProfile prof = profile_of(info).best;
    plan.groups = define_or(cfg, "matmul", "BEST_GROUPS", cu);
    if (user_sets(cfg, {"BEST_GROUPS"}) && (!forced || plan.groups < 1 || plan.groups > 65535))
        throw Error::usage("matmul: BEST_GROUPS=" + std::to_string(plan.groups) +
                           " is matmul_best_stream's number of groups: 1 to 65535, with "
                           "BEST_STREAM=1");
    if (user_split > 64)
        throw Error::usage("matmul: BEST_SPLITK=" + std::to_string(user_split) +
                           " is over 64 slices");
    if (user_split > 1 && (edges || forced))
        throw Error::usage(std::string("matmul: BEST_SPLITK splits best's launch over all of C; "
                                       "it does not combine with ") +
                           (edges ? "BEST_EDGES=1" : "BEST_STREAM=1"));
    plan.stream = forced;
    // Where the stream's pieces are added (kernels_cl/matmul_best_stream.cl): in its own launch
    // where its fence reaches other groups (device_scope_fence), else by a launch of its own.
    const auto user_sum = user_choice(cfg, "BEST_STREAM_SUM", 1,
                                      "0 (matmul_best_stream adds its pieces itself, where its "
                                      "fence reaches other groups) or 1 (matmul_best_stream_sum "
                                      "adds them, in a launch of its own)");
    plan.stream_sum = user_sum ? *user_sum == 1 : !info.caps.device_scope_fence;
    if (edges) {
        plan.edge_rows = M % bm != 0;
        plan.edge_cols = N % bn != 0;
        return plan;
    }
    if (user_split) {
        plan.splits = user_split;
        return plan;
    }
    const double blocks = ceil_div(double(M), double(bm)) * ceil_div(double(N), double(bn));
    if (!is_gpu(info) || info.compute_units <= 0 || bm * bn < 128 * 256)
        return plan;
    // Stream-K where the user asks, or by default where its kernel's fence reaches other groups
    // (kernels_cl/matmul_best_stream.cl): device_scope_fence.
    const bool may = user_stream ? forced : info.caps.device_scope_fence;
    // (BEST_ALL_INSIDE's rule, with 16-deep tiles: a whole number of them is one of 8 or 4 too.)
    const MainTime whole =
        main_time(blocks, double(cu), stream_speed(prof, best_all_inside(M, N, N, K, bm, bn, 16)),
                  may, forced);
    // What clamped blocks cost, with the edges' rows or columns or neither left to matmul_best_edge
    // (best_plan clamps as `clamps` says).
    const auto clamped = [&](bool rows, bool cols) {
        return clamp_factor(prof, clamps(M, N, bm, bn, rows, cols));
    };
    const double whole_time = whole.time * clamped(false, false);
    double best_time = whole_time;
    plan.stream = whole.stream;
    if (K >= 2048 && !forced)
        for (std::size_t s = 2; s <= 4; ++s) {
            const double t =
                split_time(prof, blocks, double(cu), double(s), double(K)) * clamped(false, false);
            if (double(s) * double(M) * double(N) <= double(INT32_MAX) && // the partial products
                t < best_time && t * 1.03 < whole_time) {
                best_time = t;
                plan.splits = s;
                plan.stream = false;
            }
        }
    if (user_edges || info.max_work_group_size < edge_items) // the user's BEST_EDGES=0
        return plan;
    for (const bool rows : {false, true})
        for (const bool cols : {false, true}) {
            if ((!rows && !cols) || (rows && M % bm == 0) || (cols && N % bn == 0))
                continue;
            const std::size_t Mi = best_covered(M, bm, rows), Ni = best_covered(N, bn, cols);
            const MainTime main = main_time(
                ceil_div(double(Mi), double(bm)) * ceil_div(double(Ni), double(bn)), double(cu),
                stream_speed(prof, best_all_inside(Mi, Ni, N, K, bm, bn, 16)), may, forced);
            const double tiles = double(best_edge_tiles(M, N, Mi, Ni));
            const double t = main.time * clamped(rows, cols) +
                             tiles * double(edge_tile * edge_tile) / double(bm * bn) /
                                 prof.edge_speed / double(cu);
            if (t < best_time) {
                best_time = t;
                plan.splits = 1;
                plan.stream = main.stream;
                plan.edge_rows = rows;
                plan.edge_cols = cols;
            }
        }
    return plan;
}

} // namespace

Defines best_stream_defines(const BestPlan& plan, const DeviceInfo& info, bool all_inside) {
    if (!plan.stream)
        return {};
    const BestProfile prof = profile_of(info).best;
    if (plan.clamp)
        return prof.stream_clamped_defines;
    return all_inside ? prof.stream_inside_defines : Defines{};
}

bool best_host_define(const std::string& name) {
    for (const char* host : {"BEST_SPLITK", "BEST_EDGES", "BEST_ALIGN", "BEST_STREAM",
                             "BEST_GROUPS", "BEST_STREAM_SUM"})
        if (name == host)
            return true;
    return false;
}

BestPlan best_plan(const RunConfig& cfg, const DeviceInfo& info, std::size_t M, std::size_t N,
                   std::size_t K, std::size_t bm, std::size_t bn) {
    // Aligned copies where rows are not, on GPUs from 2048^3 up: best reads rows by float where
    // they are not 16-byte aligned, and on the H100 that took longer than copies to rows of whole
    // 16 bytes (each under 2% of 4097^3) and best on them, in CUDA and in NVIDIA's OpenCL alike
    // (docs/design/sgemm.md; other GPUs unmeasured). So every unaligned operand is copied:
    // A to M x Kp, and then B to Kp x Np. BEST_ALIGN=2 copies only B (where N % 4 != 0).
    const auto user_align =
        user_choice(cfg, "BEST_ALIGN", 2,
                    "0 (best reads the operands as they are), 1 (copies of A and B with rows of "
                    "whole 16 bytes where theirs are not) or 2 (of B only)");
    const std::size_t Np = (N + 3) / 4 * 4, Kp = (K + 3) / 4 * 4;
    const int mode = user_align.value_or(
        is_gpu(info) && double(M) * double(N) * double(K) >= 8589934592.0 ? 1 : 0);
    bool copy_a = mode == 1 && K % 4 != 0;
    bool copy_b = mode >= 1 && (N % 4 != 0 || copy_a);
    const double copies = // the most elements of one copy: the kernels index with int
        std::max(copy_a ? double(M) * double(Kp) : 0.0,
                 copy_b ? double(copy_a ? Kp : K) * double(Np) : 0.0);
    if (copies > double(INT32_MAX)) {
        if (user_align)
            throw Error::usage("matmul: BEST_ALIGN's copies for " + std::to_string(M) + "x" +
                               std::to_string(N) + "x" + std::to_string(K) +
                               " would hold over 2^31-1 elements (the kernels index with int); "
                               "use BEST_ALIGN=0");
        copy_a = copy_b = false;
    }
    // The rest of the plan is for the copies' sizes.
    const std::size_t Nc = N; // C's row length: C is written in place
    N = copy_b ? Np : N;
    K = copy_a ? Kp : K;
    BestPlan plan = cover(cfg, info, M, N, K, bm, bn);
    plan.n = N;
    plan.k = K;
    plan.copy_a = copy_a;
    plan.copy_b = copy_b;
    // C's rows out through local memory in slices where they are not 16-byte aligned
    // (BEST_ROWS_OUT, kernels_cl/matmul_best_write.clh), by best's blocks in waves: on the H100
    // 4097^3 1.7% faster in CUDA, 3% in NVIDIA's OpenCL. Not in matmul_best_stream, whose builds
    // stay as they are (CUDA at 8191^3, spread, ran 1.1% slower with it).
    plan.rows_out = Nc % 4 != 0 && !plan.stream;
    // Clamped loads (BEST_CLAMP) where B's rows are aligned and best's launch has blocks at C's
    // edges: in M where the edges do not take the last rows, in N likewise.
    plan.clamp = clamps(M, N, bm, bn, plan.edge_rows, plan.edge_cols);
    // Where the profile says a clamped build costs every block (waves_clamp_cost) and the
    // unclamped build's checked loop costs the edge blocks (checked_edge_cost), best in waves:
    // the edge blocks come last in the launch's order (the last row) or one a row (the last
    // column), so the checked loop costs only where they end the run. Clamped where the launch in
    // waves of clamped blocks ends before the one whose edge blocks run checked. Elsewhere the
    // clamp stays where it applies.
    const BestProfile prof = profile_of(info).best;
    if (plan.clamp && !plan.stream && plan.splits == 1 && prof.waves_clamp_cost > 0 &&
        info.compute_units > 0) {
        const std::size_t Mi = best_covered(M, bm, plan.edge_rows),
                          Ni = best_covered(N, bn, plan.edge_cols);
        const std::size_t rows = (Mi + bm - 1) / bm, cols = (Ni + bn - 1) / bn;
        const std::size_t cu = std::size_t(info.compute_units);
        const bool last_row = reaches_past(M, bm, plan.edge_rows),
                   last_col = reaches_past(N, bn, plan.edge_cols);
        const double clamped =
            ceil_div(double(rows * cols), double(cu)) * (1 + prof.waves_clamp_cost);
        plan.clamp = best_waves_slow_edges(rows, cols, last_row, last_col, cu,
                                           prof.checked_edge_cost) >= clamped;
    }
    return plan;
}

} // namespace duet::apps
