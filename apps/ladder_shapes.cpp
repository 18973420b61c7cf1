// The launch shapes of each ladder step (ladder_shapes.hpp). The defaults here must match the
// #ifndef defaults in kernels_cl/ and kernels_cu/; a shape other than the first is passed to the
// kernel as build defines.
#include "ladder_shapes.hpp"

#include <bit>

namespace duet::apps {
namespace {

using Defines = std::vector<std::pair<std::string, std::string>>;

std::string num(std::size_t v) { return std::to_string(v); }
std::string by(std::size_t a, std::size_t b) { return num(a) + "x" + num(b); }

Shape make(std::array<std::size_t, 2> local, std::size_t rows, std::size_t cols,
           std::size_t bytes, Defines defines, std::string label) {
    Shape s;
    s.local = local;
    s.rows = rows;
    s.cols = cols;
    s.local_bytes = bytes;
    s.defines = std::move(defines);
    s.label = std::move(label);
    return s;
}

std::size_t def(const RunConfig& cfg, const char* app, const std::string& name, std::size_t fb) {
    return define_or(cfg, app, name, fb);
}

// tiled16 / tiled32: a TS x TS tile by TS x TS/RPI work-items, each computing RPI rows.
std::vector<Shape> matmul_tiled(std::size_t textbook, const std::string& p, const RunConfig& cfg) {
    const std::string ts_name = p + "_TS", rpi_name = p + "_RPI";
    auto one = [&](std::size_t ts, std::size_t rpi, bool textbook_shape) {
        Defines d;
        if (!textbook_shape)
            d = {{ts_name, num(ts)}, {rpi_name, num(rpi)}};
        std::string label = by(ts, ts) + " tile, " + by(ts, ts / rpi) + " items";
        if (rpi > 1)
            label += ", " + num(rpi) + " rows each";
        return make({ts, ts / rpi}, ts, ts, 2 * ts * ts * sizeof(float), d, label);
    };
    if (user_sets(cfg, {ts_name, rpi_name})) {
        const auto ts = def(cfg, "matmul", ts_name, textbook), rpi = def(cfg, "matmul", rpi_name, 1);
        if (ts % rpi)
            throw Error::usage("matmul: " + rpi_name + "=" + num(rpi) + " must divide " + ts_name +
                               "=" + num(ts));
        return {one(ts, rpi, true)};
    }
    std::vector<Shape> out;
    for (std::size_t ts = textbook; ts >= 2; ts /= 2)
        for (std::size_t rpi = 1; rpi <= ts; rpi *= 2)
            out.push_back(one(ts, rpi, ts == textbook && rpi == 1));
    return out;
}

// wpt2 / btrans: a TS x TS tile by TS x TS/2 work-items, two rows each; smaller tiles after.
std::vector<Shape> matmul_wpt2(const std::string& macro, bool padded, const RunConfig& cfg) {
    auto one = [&](std::size_t ts, bool textbook_shape) {
        const std::size_t bytes = (ts * ts + ts * (ts + (padded ? 1 : 0))) * sizeof(float);
        return make({ts, ts / 2}, ts, ts, bytes, textbook_shape ? Defines{} : Defines{{macro, num(ts)}},
                    by(ts, ts) + " tile, " + by(ts, ts / 2) + " items");
    };
    if (user_sets(cfg, {macro}))
        return {one(def(cfg, "matmul", macro, 32), true)};
    std::vector<Shape> out;
    for (std::size_t ts = 32; ts >= 2; ts /= 2)
        out.push_back(one(ts, ts == 32));
    return out;
}

// reg4x4 / reg8x8 / best: a BM x BN block by (BN/TN) x (BM/TM) work-items, TM x TN outputs each
// in registers; smaller blocks keep the register block (the step's point) and shrink the group.
struct RegBlock {
    std::string bm, bn; // macro names
    std::size_t tm, tn, bk;
    bool double_buffered;
};

std::size_t reg_bytes(const RegBlock& r, std::size_t bm, std::size_t bn) {
    if (!r.double_buffered)
        return r.bk * (bm + bn) * sizeof(float);
    // best: two copies of the tiles, A's rows padded by 4 floats where 48 KiB leave room
    // (BEST_PAD's default in the kernels).
    const std::size_t pad = 8 * r.bk * (bm + 4 + bn) <= 49152 ? 4 : 0;
    return 2 * r.bk * (bm + pad + bn) * sizeof(float);
}

std::vector<Shape> matmul_reg(const RegBlock& r, std::vector<std::array<std::size_t, 2>> blocks,
                              const RunConfig& cfg) {
    auto one = [&](std::size_t bm, std::size_t bn, bool textbook_shape) {
        return make({bn / r.tn, bm / r.tm}, bm, bn, reg_bytes(r, bm, bn),
                    textbook_shape ? Defines{} : Defines{{r.bm, num(bm)}, {r.bn, num(bn)}},
                    by(bm, bn) + " block, " + by(bn / r.tn, bm / r.tm) + " items of " +
                        by(r.tm, r.tn));
    };
    if (user_sets(cfg, {r.bm, r.bn}))
        return {one(def(cfg, "matmul", r.bm, blocks[0][0]), def(cfg, "matmul", r.bn, blocks[0][1]),
                    true)};
    std::vector<Shape> out;
    for (std::size_t i = 0; i < blocks.size(); ++i)
        out.push_back(one(blocks[i][0], blocks[i][1], i == 0));
    return out;
}

// tf32: a BM x BN block by TF_WM x TF_WN warps of 32 (the group is 32 x WM*WN work-items),
// TF_STAGES copies of the tiles (CUDA; OpenCL keeps 2), A's rows padded by 4 floats and B's by 8
// (the #ifndef defaults of kernels_c?/matmul_tf32.c?); smaller blocks of fewer warps after, down
// to one warp (the small devices of the tests, which run the emulated mma: 192 floats per warp).
std::vector<Shape> matmul_tf32(const RunConfig& cfg) {
    const std::size_t bk = def(cfg, "matmul", "TF_BK", 16), stages = def(cfg, "matmul", "TF_STAGES", 2);
    const std::size_t scratch = def(cfg, "matmul", "DUET_TF32_EMULATE", 0) ? 192 : 0;
    auto one = [&](std::size_t bm, std::size_t bn, std::size_t wm, std::size_t wn, bool textbook) {
        const std::size_t floats = stages * (bm * (bk + 4) + bk * (bn + 8)) + wm * wn * scratch;
        return make({32, wm * wn}, bm, bn, floats * sizeof(float),
                    textbook ? Defines{}
                             : Defines{{"TF_BM", num(bm)}, {"TF_BN", num(bn)}, {"TF_WM", num(wm)},
                                       {"TF_WN", num(wn)}},
                    by(bm, bn) + " block, " + by(wm, wn) + " warps of 32");
    };
    if (user_sets(cfg, {"TF_BM", "TF_BN", "TF_WM", "TF_WN"}))
        return {one(def(cfg, "matmul", "TF_BM", 128), def(cfg, "matmul", "TF_BN", 128),
                    def(cfg, "matmul", "TF_WM", 2), def(cfg, "matmul", "TF_WN", 4), true)};
    return {one(128, 128, 2, 4, true), one(64, 64, 2, 2, false), one(32, 32, 1, 1, false)};
}

} // namespace

std::vector<Shape> matmul_shapes(const std::string& variant, const RunConfig& cfg) {
    if (variant == "naive")
        return halving_shapes({16, 16});
    if (variant == "tiled16")
        return matmul_tiled(16, "T16", cfg);
    if (variant == "tiled32")
        return matmul_tiled(32, "T32", cfg);
    if (variant == "wpt2")
        return matmul_wpt2("WPT2_TS", false, cfg);
    if (variant == "btrans")
        return matmul_wpt2("BT_TS", true, cfg);
    // Every block below keeps each tile whole float4 loads per work-item (the kernels' #error).
    if (variant == "reg4x4")
        return matmul_reg({"R4_BM", "R4_BN", 4, 4, def(cfg, "matmul", "R4_BK", 16), false},
                          {{64, 64}, {64, 32}, {32, 32}, {32, 16}, {16, 16}}, cfg);
    if (variant == "reg8x8")
        return matmul_reg({"R8_BM", "R8_BN", 8, 8, def(cfg, "matmul", "R8_BK", 8), false},
                          {{128, 128}, {128, 64}, {64, 64}, {64, 32}, {32, 32}}, cfg);
    if (variant == "tf32")
        return matmul_tf32(cfg);
    // best: the register block is BEST_TM x BEST_TN (8x16 unless defined)
    const auto tm = def(cfg, "matmul", "BEST_TM", 8), tn = def(cfg, "matmul", "BEST_TN", 16);
    const RegBlock best{"BEST_BM", "BEST_BN", tm, tn, def(cfg, "matmul", "BEST_BK", 8), true};
    if (tm != 8 || tn != 16) // a tuned register block: the user's shape, as given
        return matmul_reg(best, {{def(cfg, "matmul", "BEST_BM", 128), def(cfg, "matmul", "BEST_BN", 256)}},
                          cfg);
    return matmul_reg(best, {{128, 256}, {128, 128}, {64, 128}, {64, 64}, {32, 64}, {32, 32}}, cfg);
}

std::vector<Shape> conv_shapes(const std::string& variant, const RunConfig& cfg) {
    constexpr std::size_t R = 2; // filter radius
    if (variant == "tiled") {
        auto one = [&](std::size_t w, std::size_t h, bool textbook_shape) {
            return make({w, h}, 1, 1, (w + 2 * R) * (h + 2 * R) * sizeof(float),
                        textbook_shape ? Defines{}
                                       : Defines{{"CONV_TILE_W", num(w)}, {"CONV_TILE_H", num(h)}},
                        by(w, h) + " tile");
        };
        std::vector<Shape> out;
        for (const auto& h : halving_shapes({16, 16}))
            out.push_back(one(h.local[0], h.local[1], h.local == std::array<std::size_t, 2>{16, 16}));
        return out;
    }
    if (variant == "best") {
        auto one = [&](std::size_t bx, std::size_t bytes_y, std::size_t brows, bool textbook_shape) {
            const std::size_t bytes = (bx + 2) * 4 * sizeof(float) * (bytes_y * brows + 2 * R);
            return make({bx, bytes_y}, brows, 4, bytes,
                        textbook_shape ? Defines{}
                                       : Defines{{"CONV_BX", num(bx)}, {"CONV_BY", num(bytes_y)},
                                                 {"CONV_BROWS", num(brows)}},
                        by(bx, bytes_y) + " items, 4x" + num(brows) + " outputs each");
        };
        std::vector<Shape> out;
        for (const auto& [bx, byy, br] : std::vector<std::array<std::size_t, 3>>{
                 {32, 8, 4}, {32, 8, 2}, {32, 4, 4}, {32, 4, 2}, {16, 4, 4}, {16, 4, 2},
                 {16, 2, 4}, {8, 2, 4}, {4, 2, 4}, {4, 1, 4}, {2, 1, 4}, {1, 1, 4}})
            out.push_back(one(bx, byy, br, out.empty()));
        return out;
    }
    const std::size_t rows = variant == "rows" ? def(cfg, "conv5x5", "CONV_ROWS", 8) : 1;
    auto out = halving_shapes(variant == "rows" ? std::array<std::size_t, 2>{32, 8}
                                                : std::array<std::size_t, 2>{16, 16});
    for (auto& s : out) {
        s.cols = 1;
        s.rows = rows;
    }
    return out;
}

std::vector<Shape> reduction_shapes(std::size_t ls, std::size_t elem, bool wg_define) {
    std::vector<Shape> out;
    for (std::size_t l = ls; l >= 2; l /= 2) {
        Shape s = make({l, 1}, 1, l, l * elem, {}, num(l) + " work-items");
        if (wg_define)
            s.defines = {{"WG", num(l)}};
        out.push_back(s);
        if (!std::has_single_bit(l))
            break;
    }
    return out;
}

} // namespace duet::apps
