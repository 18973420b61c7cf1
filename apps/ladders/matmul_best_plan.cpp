// How matmul's `best` step covers C on a device: its blocks over all of C, or over a split of K
// (grid z; matmul_split_sum adds the slices), or its blocks over the whole blocks of C only and
// matmul_best_edge over the thin strips left (kernels_cl/matmul_best_edge.cl). The choice is a
// model of waves of blocks on the device's compute units, in units of one block's time.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "device_kind.hpp"
#include "inputs.hpp"
#include "matmul.hpp"

namespace duet::apps {

namespace {

// The edge kernel's multiply-adds per second over best's, on one compute unit, counting every
// output of its 32x32 tiles (also those outside C, which it skips). Its tiles are small and its
// arithmetic is bound by local memory; a conservative guess for the H100, which the bench's
// BEST_EDGES runs check (docs/PERFORMANCE-SGEMM.md).
constexpr double edge_speed = 0.25;
constexpr std::size_t edge_tile = 32, edge_items = 256;

double ceil_div(double a, double b) {
    return std::ceil(a / b);
}

// A split of K in `s` slices, in block times: the waves of its blocks, and writing and reading
// s partial products, taken as (2s+1) M N floats against 2 M N K flops at ~16 flops per byte (the
// H100's FP32 rate over its memory bandwidth).
double split_time(double blocks, double cu, double s, double K) {
    const double cost = s == 1 ? 0.0 : (2 * s + 1) * 4.0 * 16.0 / (2.0 * K);
    return ceil_div(blocks * s, cu) / s * (1 + cost);
}

} // namespace

std::size_t best_edge_tiles(std::size_t M, std::size_t N, std::size_t Mi, std::size_t Ni) {
    const auto up = [](std::size_t a) { return (a + edge_tile - 1) / edge_tile; };
    return up(M) * up(N - Ni) + up(M - Mi) * up(Ni);
}

// Without a user's BEST_SPLITK or BEST_EDGES, a GPU gets the cheapest of:
//  - best over all of C, K split in s = 1..4 where that fills the last wave (a split must win by
//    3%, and needs K >= 2048 so each slice keeps 512+ of K): with one block of 128x256 per SM (the
//    default tile's registers allow no more), C of 4097^2 is 561 blocks, 4.25 waves of 132 on an
//    H100, run as 5; split in 4 it is 2244 blocks, 17 full waves, but 49 of every 561 blocks
//    compute a row or a column of C.
//  - best over C's whole blocks in M, in N or both, and matmul_best_edge over the rest: 4097^2 is
//    then 512 blocks (4 waves) and 257 edge tiles of 32x32.
// Elsewhere (CPUs, small tiles, small problems) best covers C in one launch.
BestPlan best_plan(const RunConfig& cfg, const DeviceInfo& info, std::size_t M, std::size_t N,
                   std::size_t K, std::size_t bm, std::size_t bn) {
    BestPlan plan;
    const std::size_t user_split = define_or(cfg, "matmul", "BEST_SPLITK", 0);
    bool user_edges = false, edges = false;
    for (const auto& [name, value] : cfg.defines)
        if (name == "BEST_EDGES") {
            if (value != "0" && value != "1")
                throw Error::usage("matmul: BEST_EDGES=" + value +
                                   " is 0 (best's blocks cover C) or 1 (C's last rows and "
                                   "columns that fill no block go to matmul_best_edge)");
            user_edges = true;
            edges = value == "1";
        }
    if (user_split > 64)
        throw Error::usage("matmul: BEST_SPLITK=" + std::to_string(user_split) +
                           " is over 64 slices");
    if (user_split > 1 && edges)
        throw Error::usage("matmul: BEST_SPLITK splits best's launch over all of C; it does not "
                           "combine with BEST_EDGES=1");
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
    const double cu = info.compute_units;
    if (!is_gpu(info) || cu <= 0 || bm * bn < 128 * 256)
        return plan;
    double best_time = split_time(blocks, cu, 1, double(K));
    if (K >= 2048)
        for (std::size_t s = 2; s <= 4; ++s) {
            const double t = split_time(blocks, cu, double(s), double(K));
            if (double(s) * double(M) * double(N) <= double(INT32_MAX) && // the partial products
                t < best_time && t * 1.03 < split_time(blocks, cu, 1, double(K))) {
                best_time = t;
                plan.splits = s;
            }
        }
    if (user_edges || info.max_work_group_size < edge_items) // the user's BEST_EDGES=0
        return plan;
    for (const bool rows : {false, true})
        for (const bool cols : {false, true}) {
            if ((!rows && !cols) || (rows && M % bm == 0) || (cols && N % bn == 0))
                continue;
            const std::size_t Mi = rows ? M / bm * bm : M, Ni = cols ? N / bn * bn : N;
            const double main_blocks =
                ceil_div(double(Mi), double(bm)) * ceil_div(double(Ni), double(bn));
            const double tiles = double(best_edge_tiles(M, N, Mi, Ni));
            const double t = ceil_div(main_blocks, cu) + tiles * double(edge_tile * edge_tile) /
                                                             double(bm * bn) / edge_speed / cu;
            if (t < best_time) {
                best_time = t;
                plan = BestPlan{.splits = 1, .edge_rows = rows, .edge_cols = cols};
            }
        }
    return plan;
}

} // namespace duet::apps
