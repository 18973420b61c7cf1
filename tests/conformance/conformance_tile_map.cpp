// Conformance: duet::tile_map on NVIDIA's OpenCL (devices with the nv.sm90a_ptx extension). Each
// work-group copies one box of a matrix with the tile copy engine (one work-item arms an
// mbarrier with the box's bytes and issues cp.async.bulk.tensor; every work-item waits on the
// mbarrier) and writes the box out as it landed in local memory; the host checks every word
// against the 128-byte swizzle (16-byte chunk c of box row r at c ^ (r % 8)) and the zeros of the
// part of a box outside the matrix. Other devices refuse tile maps
// (conformance_contracts.cpp); CUDA's are exercised by matmul's tf32 and tc3 steps.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "conformance.hpp"

namespace {

// The sm_90 lines are marked like the sm_90a ones (kernels_cl/sm90a.clh): the whole copy is
// compiled out where the backend defines DUET_SM90A_FALLBACK (no test runs it there).
const char* const tile_copy_cl = R"(
#define DUET_SM90A "//duet-sm90a "
typedef struct {
    ulong bits[16];
} DuetTileMap;
__kernel __attribute__((reqd_work_group_size(256, 1, 1))) void
tile_copy(__global const DuetTileMap* map, __global uint* out, const int box_rows) {
    __local uint tile[2048] __attribute__((aligned(1024)));
    __local ulong bar;
    const int t = (int)get_local_id(0), g = (int)get_group_id(0);
    uint done = 0;
#ifndef DUET_SM90A_FALLBACK
    const uint dst = (uint)(size_t)tile, b = (uint)(size_t)&bar;
    const int x = 32 * (g & 1), y = box_rows * (g >> 1), bytes = box_rows * 128;
    if (t == 0) {
        __asm__ __volatile__(DUET_SM90A "mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b)
                             : "memory");
        __asm__ __volatile__(DUET_SM90A "fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (t == 0) {
        __asm__ __volatile__("{\n.reg .b64 st;\n" DUET_SM90A
                             "mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}" ::"r"(b),
                             "r"(bytes)
                             : "memory");
        __asm__ __volatile__(DUET_SM90A "cp.async.bulk.tensor.2d.shared::cluster.global.tile."
                                        "mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                             ::"r"(dst), "l"((ulong)map), "r"(x), "r"(y), "r"(b)
                             : "memory");
    }
    for (int i = 0; i < 4000000 && !done; ++i)
        __asm__ __volatile__("{\n.reg .pred p;\nsetp.ne.u32 p, %1, %1;\n" DUET_SM90A
                             "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n"
                             "selp.u32 %0, 1, 0, p;\n}"
                             : "=r"(done)
                             : "r"(b)
                             : "memory");
#endif
    for (int i = t; i < box_rows * 32; i += 256)
        out[g * 2048 + i] = tile[i];
    if (t == 0)
        out[4 * 2048 + g] = done;
}
)";

const char* const tile_copy_cu = R"(extern "C" __global__ void tile_copy() {})";

constexpr unsigned rows = 100, cols = 40;

// The word box g (of box_rows x 32 floats at column 32 (g & 1), row box_rows (g >> 1)) holds at i.
std::uint32_t expected(const std::vector<float>& m, unsigned g, unsigned box_rows, unsigned i) {
    const unsigned r = i / 32, q = (i % 32) / 4, w = i % 4;
    const unsigned col = 32 * (g & 1) + 4 * (q ^ (r % 8)) + w, row = box_rows * (g >> 1) + r;
    if (row >= rows || col >= cols)
        return 0;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &m[row * cols + col], 4);
    return bits;
}

} // namespace

TEST_CASE("conformance: a tile map feeds the tile copy engine on NVIDIA's OpenCL (nv.sm90a_ptx)") {
    for (auto* dev : conformance::every_device()) {
        if (conformance::runs_cuda(*dev) || !dev->info().has_extension("nv.sm90a_ptx"))
            continue;
        SUBCASE(dev->label().c_str()) {
            auto k = conformance::load_or_skip(
                *dev, "tile_copy", conformance::user_program(tile_copy_cl, tile_copy_cu, "tile"));
            if (!k)
                continue;
            auto q = dev->create_queue();
            std::vector<float> m(rows * cols);
            for (unsigned i = 0; i < m.size(); ++i)
                m[i] = float((i / cols) * 1000 + i % cols + 1);
            auto mat = dev->alloc<float>(m.size());
            auto out = dev->alloc<std::uint32_t>(4 * 2048 + 4);
            q->write(*mat, m);
            // Boxes of 64 rows (three of four partly outside the matrix), then of 8 (a second
            // map over the same buffer).
            for (unsigned box_rows : {64u, 8u}) {
                INFO("boxes of " << box_rows << " rows");
                q->fill(*out, 0xABABABABu, 4 * 2048 + 4);
                q->launch(*k, duet::Range(4 * 256).local(256),
                          duet::tile_map(*mat, rows, cols, box_rows, 32), *out, int(box_rows));
                std::vector<std::uint32_t> h(4 * 2048 + 4);
                q->read(*out, h);
                int wrong = 0;
                for (unsigned g = 0; g < 4; ++g) {
                    CHECK(h[4 * 2048 + g] == 1u); // the mbarrier's phase completed
                    for (unsigned i = 0; i < box_rows * 32; ++i)
                        wrong += h[g * 2048 + i] != expected(m, g, box_rows, i);
                }
                CHECK(wrong == 0);
            }
        }
    }
}
