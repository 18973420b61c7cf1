// The launches of matmul's `best` step for one problem, as its plan (matmul_best_plan.cpp) says:
// best's kernel over C or over C's whole blocks, in waves or spread over the compute units by
// matmul_best_stream (kernels_cl/matmul_best_stream.cl), a split of K and matmul_split_sum, the
// thin edges by matmul_best_edge, and aligned copies of unaligned operands by matmul_best_copy
// (kernels_cl/matmul_best_odd.cl).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "checks.hpp"
#include "device_kind.hpp"
#include "device_profile.hpp"
#include "matmul.hpp"
#include "shape.hpp"

namespace duet::apps {

namespace {

std::string count_of(std::size_t n, const char* what) {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

int as_int(std::size_t v) {
    return static_cast<int>(v);
}

} // namespace

BestLaunch::BestLaunch(Device& dev, Queue& q, const RunConfig& cfg, const BuildOptions& opts,
                       Kernel& kernel, const Shape& g, const BestPlan& plan, std::size_t M,
                       std::size_t N, std::size_t K, const Note& note)
    : q_(q), kernel_(kernel), local_(g.local), M_(M), N_(N), K_(K), splits_(plan.splits) {
    Np_ = plan.n;
    Kp_ = plan.k;
    rows_ = g.rows;
    cols_ = g.cols;
    edges(dev, cfg, opts, plan, note);
    stream(dev, cfg, opts, g, plan, note);
    copies(dev, opts, plan, note);
    // matmul_split_sum lives in best's file (kernels_c?/matmul_best.c?), whose tile macros come
    // with the shape: the same build as best's own.
    split(dev, shape_build(opts, g), note);
}

void BestLaunch::edges(Device& dev, const RunConfig& cfg, const BuildOptions& opts,
                       const BestPlan& plan, const Note& note) {
    const std::size_t M = M_, N = N_;
    // best's blocks cover C's rows [0, Mi) and columns [0, Ni); matmul_best_edge the rest. (With
    // copies, B's rows hold Np >= N floats; best's blocks then reach the same block columns by
    // Ni = N, and plan.edge_cols says that Np is not a whole number of them either.)
    Mi_ = best_covered(M, rows_, plan.edge_rows);
    Ni_ = best_covered(N, cols_, plan.edge_cols);
    if (Mi_ < M || Ni_ < N) {
        // The deepest tiles of A and B whose local memory the device has (EDGE_BK floats deep:
        // 32 x 33 of A and 32 x 32 of B per float of depth), 128 at most.
        const auto edge_bytes = [](std::size_t depth) { return depth * 65 * 4; };
        std::size_t depth = 128;
        while (depth >= 16 && edge_bytes(depth) > dev.info().local_mem_bytes)
            depth /= 2;
        const bool user_depth = user_sets(cfg, {"EDGE_BK"});
        std::string misfit; // why the edge kernel cannot run here ("" when it can)
        if (!user_depth && depth < 16)
            misfit = "needs " + std::to_string(edge_bytes(16)) + " bytes of local memory; " +
                     dev.label() + " has " + std::to_string(dev.info().local_mem_bytes);
        if (misfit.empty()) {
            BuildOptions edge_opts = opts;
            if (!user_depth)
                edge_opts.defines.emplace_back("EDGE_BK", std::to_string(depth));
            edge_ = dev.load_kernel("matmul_best_edge", edge_opts);
            if (edge_->max_work_group_size() < 256)
                misfit = "needs groups of 256 work-items; " + dev.label() + " allows it " +
                         std::to_string(edge_->max_work_group_size());
        }
        if (!misfit.empty()) {
            if (user_sets(cfg, {"BEST_EDGES"}))
                throw Error::usage("matmul: BEST_EDGES=1: matmul_best_edge " + misfit);
            edge_.reset(); // best's blocks take the edges, as without the plan
            Mi_ = M;
            Ni_ = N;
        } else {
            note("C's last " + (Mi_ < M ? count_of(M - Mi_, "row") : std::string()) +
                 (Mi_ < M && Ni_ < N ? " and " : "") +
                 (Ni_ < N ? count_of(N - Ni_, "column") : std::string()) + " by matmul_best_edge");
        }
    }
}

// best's blocks spread over the compute units by matmul_best_stream, where the plan says so.
void BestLaunch::stream(Device& dev, const RunConfig& cfg, const BuildOptions& opts, const Shape& g,
                        const BestPlan& plan, const Note& note) {
    const std::size_t M = M_, N = N_, K = K_;
    Queue& q = q_;
    // best's build: opts and its shape's defines. A user's BEST_ALL_INSIDE=1 (the kernels' checked
    // loop left out) where a block reaches past C or K ends inside a tile would leave entries
    // wrong: refused.
    const Defines build = shape_build(opts, g).defines;
    const std::size_t bk = std::max<std::size_t>(
        1, best_tile_depth(build, profile_of(dev.info()).best.tile_depth == 16));
    const bool all_inside = best_all_inside(Mi_, Ni_, Np_, Kp_, rows_, cols_, bk) && !plan.clamp;
    for (const auto& [name, value] : cfg.defines)
        if (name == "BEST_ALL_INSIDE" && value != "0" && !all_inside)
            throw Error::usage("matmul: BEST_ALL_INSIDE=" + value +
                               " says that every block of C (" + std::to_string(rows_) + "x" +
                               std::to_string(cols_) + ") lies inside it and K is whole tiles of " +
                               std::to_string(bk) + "; " + std::to_string(M) + "x" +
                               std::to_string(N) + "x" + std::to_string(K) +
                               " is not so: leave it out (the host sets it "
                               "where it holds)");
    // best's blocks over C's rows [0, Mi) and columns [0, Ni), in waves or spread.
    blocks_m_ = (Mi_ + rows_ - 1) / rows_;
    blocks_n_ = (Ni_ + cols_ - 1) / cols_;
    const std::size_t tiles = blocks_m_ * blocks_n_;
    // matmul_best_stream counts its work in K's tiles with int: blocks x (K / BK) below 2^31,
    // taken with tiles 4 deep (the shallowest best builds).
    const bool countable = double(tiles) * double((Kp_ + 3) / 4) <= double(INT32_MAX);
    if (plan.stream && tiles > 0 && !countable) {
        if (user_sets(cfg, {"BEST_STREAM"}))
            throw Error::usage("matmul: BEST_STREAM=1: " + count_of(tiles, "block") + " of C " +
                               "over K = " + std::to_string(Kp_) + " are over 2^31 tiles of " +
                               "work (matmul_best_stream counts with int); use BEST_STREAM=0");
        note("stream-K left out: its count of work would pass 2^31");
    }
    if (plan.stream && tiles > 0 && countable) {
        // The same blocks and build as best's (its shape's defines), spread over the groups.
        BuildOptions stream_opts = opts;
        stream_opts.defines = build;
        stream_opts.defines.emplace_back("BEST_STREAM_INLINE", plan.stream_sum ? "0" : "1");
        // Every block inside C and K whole tiles: the OpenCL kernel leaves its checked loop out
        // (BEST_ALL_INSIDE, kernels_cl/matmul_best.clh), which NVIDIA's compiler runs faster.
        // (The CUDA twin has no such build: NVRTC held nothing of that loop through its own.)
        if (all_inside && profile_of(dev.info()).takes_define("BEST_ALL_INSIDE") &&
            !user_sets(cfg, {"BEST_ALL_INSIDE"}))
            stream_opts.defines.emplace_back("BEST_ALL_INSIDE", "1");
        // The stream build's own tuning where it ran faster (best_stream_defines), over best's
        // value of the same define, never over the user's.
        for (auto& [name, value] : best_stream_defines(plan, dev.info(), all_inside))
            if (!user_sets(cfg, {name})) {
                std::erase_if(stream_opts.defines, [&](const auto& d) { return d.first == name; });
                stream_opts.defines.emplace_back(name, value);
            }
        stream_ = dev.load_kernel("matmul_best_stream", stream_opts);
        if (plan.stream_sum)
            stream_sum_ = dev.load_kernel("matmul_best_stream_sum", stream_opts);
        if (stream_->max_work_group_size() < local_[0] * local_[1]) {
            const std::string why = "matmul_best_stream allows " +
                                    std::to_string(stream_->max_work_group_size()) +
                                    " work-items a group on " + dev.label() + ", best's block " +
                                    std::to_string(local_[0] * local_[1]);
            if (user_sets(cfg, {"BEST_STREAM"}))
                throw Error::usage("matmul: BEST_STREAM=1: " + why);
            note(why + ": best's blocks in waves");
            stream_.reset();
            stream_sum_.reset();
        } else {
            groups_ = std::min(plan.groups, tiles);
            // Its schedule (kernels_cl/matmul_best_stream.cl): the rounds of whole blocks, then
            // the rest's tiles of K in shares of `per` and one more for the first `extra` groups;
            // and the multipliers by which it divides by K's tiles and by the blocks in a row.
            const std::size_t kt = (Kp_ + bk - 1) / bk, rounds = best_stream_rounds(tiles, groups_);
            const std::size_t work = (tiles - rounds * groups_) * kt;
            const auto [kt_m, kt_l] = best_divisor(kt);
            const auto [tn_m, tn_l] = best_divisor(blocks_n_);
            schedule_ = {as_int(rounds),
                         as_int(work / groups_),
                         as_int(work % groups_),
                         as_int(kt),
                         kt_m,
                         kt_l,
                         tn_m,
                         tn_l};
            // Two pieces of a block of C per group, poisoned (NaN) as the partial products
            // below: a piece read before it was written shows in C. The counts start at 0 and
            // every launch leaves them so.
            pieces_ = dev.alloc<float>(2 * groups_ * rows_ * cols_);
            poison(q, *pieces_);
            counts_ = dev.alloc<int>(groups_);
            q.write(*counts_, std::vector<int>(groups_, 0));
            note("stream-K: " + count_of(tiles, "block") + " of C spread over " +
                 count_of(groups_, "group") + " by matmul_best_stream (" +
                 (rounds ? count_of(rounds, "round") + " of whole blocks, then " : "") +
                 "the last " + std::to_string(tiles - rounds * groups_) + " shared in tiles of K" +
                 (stream_sum_ ? ", their pieces added by matmul_best_stream_sum)" : ")"));
        }
    }
}

// The aligned copies of the operands, where the plan makes them.
void BestLaunch::copies(Device& dev, const BuildOptions& opts, const BestPlan& plan,
                        const Note& note) {
    const std::size_t M = M_;
    Queue& q = q_;
    if (plan.copy_b) {
        copy_ = dev.load_kernel("matmul_best_copy", opts);
        // Poisoned (NaN), so that an element no copy writes shows in C; as the partial products
        // below, by poison(), whose host write Oclgrind does not take for uninitialised memory.
        const auto poisoned = [&](std::size_t count) {
            auto buf = dev.alloc<float>(count);
            poison(q, *buf);
            return buf;
        };
        if (plan.copy_a)
            ap_ = poisoned(M * Kp_);
        bp_ = poisoned(Kp_ * Np_);
        note(std::string("operands copied to rows of whole 16 bytes by matmul_best_copy (") +
             (plan.copy_a ? "A " + std::to_string(M) + "x" + std::to_string(Kp_) + ", " : "") +
             "B " + std::to_string(Kp_) + "x" + std::to_string(Np_) + "; timed with it)");
    }
}

// The split of K's partial sums and matmul_split_sum, where the plan splits K.
void BestLaunch::split(Device& dev, const BuildOptions& opts, const Note& note) {
    const std::size_t M = M_, N = N_;
    Queue& q = q_;
    if (splits_ > 1) {
        if (double(splits_) * double(M) * double(N) > double(INT32_MAX))
            throw Error::usage("matmul: " + std::to_string(splits_) + " slices of K need " +
                               "over 2^31 partial sums; use a smaller BEST_SPLITK");
        // Poisoned, as the reduction's partial sums: a slice left unwritten shows in C.
        partial_ = dev.alloc<float>(splits_ * M * N);
        poison(q, *partial_);
        sum_ = dev.load_kernel("matmul_split_sum", opts);
        note("K split in " + std::to_string(splits_) + " (matmul_split_sum adds them)");
    }
}

Event BestLaunch::copy(const Buffer& src, Buffer& dst, std::size_t rows, std::size_t cols,
                       std::size_t src_rows, std::size_t src_cols) {
    // dst (rows x cols, cols a multiple of 4) from src (src_rows x src_cols), zeros beyond it, 16
    // floats a work-item (the kernel's columns: 16 per work-item of dimension 0 must cover them);
    // the rows in a grid-stride loop (CUDA's grid y stops at 65535).
    const Range range =
        Range((cols + 16 * 256 - 1) / (16 * 256) * 256, std::min<std::size_t>(rows, 65535))
            .local(256, 1);
    return q_.launch(*copy_, range, src, dst, as_int(rows), as_int(cols), as_int(src_rows),
                     as_int(src_cols));
}

std::pair<Event, Event> BestLaunch::operator()(const Buffer& a, const Buffer& b, Buffer& c) {
    // best and matmul_best_edge read B's rows of Np floats and write C's of N (Nc) in place.
    const int m = as_int(M_), n = as_int(Np_), k = as_int(Kp_), nc = as_int(N_);
    std::vector<Event> events;
    const Buffer* A = &a;
    const Buffer* B = &b;
    if (copy_) {
        if (ap_) {
            events.push_back(copy(a, *ap_, M_, Kp_, M_, K_));
            A = ap_.get();
        }
        events.push_back(copy(b, *bp_, Kp_, Np_, K_, N_));
        B = bp_.get();
    }
    if (Mi_ > 0 && Ni_ > 0) {
        const Range range = Range(blocks_n_ * local_[0], blocks_m_ * local_[1], splits_)
                                .local(local_[0], local_[1], 1);
        if (stream_) {
            const Range groups = Range(groups_ * local_[0], local_[1]).local(local_[0], local_[1]);
            const int tm = as_int(blocks_m_), tn = as_int(blocks_n_);
            const auto& s = schedule_;
            events.push_back(q_.launch(*stream_, groups, *A, *B, c, m, n, k, nc, tm, tn, *pieces_,
                                       *counts_, s.rounds, s.per, s.extra, s.kt, s.kt_m, s.kt_l,
                                       s.tn_m, s.tn_l));
            if (stream_sum_ && groups_ > 1) // group g adds the pieces where g's share ends
                events.push_back(q_.launch(
                    *stream_sum_,
                    Range((groups_ - 1) * local_[0], local_[1]).local(local_[0], local_[1]),
                    *pieces_, c, m, k, nc, tn, as_int(groups_), s.rounds, s.per, s.extra));
        } else if (splits_ == 1) {
            events.push_back(q_.launch(kernel_, range, *A, *B, c, m, n, k, nc));
        } else {
            events.push_back(q_.launch(kernel_, range, *A, *B, *partial_, m, n, k, nc));
            const Range sum_range = Range((M_ * N_ + 255) / 256 * 256).local(256);
            events.push_back(
                q_.launch(*sum_, sum_range, *partial_, c, as_int(M_ * N_), as_int(splits_)));
        }
    }
    if (edge_) {
        const Range edge_range = Range(best_edge_tiles(M_, N_, Mi_, Ni_) * 256).local(256);
        events.push_back(
            q_.launch(*edge_, edge_range, *A, *B, c, m, n, k, as_int(Mi_), as_int(Ni_), nc));
    }
    return {events.front(), events.back()};
}

} // namespace duet::apps
