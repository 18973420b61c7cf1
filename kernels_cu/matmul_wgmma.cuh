// What Hopper's wgmma kernels of matmul share (matmul_tf32_wgmma.cu, matmul_tc3_wgmma.cu): the
// tile map parameter, the shared-memory matrix descriptor of the 128-byte swizzled K-major
// tiles, the mbarriers and the tile copy engine's copy. matmul_tf32_wgmma.cu explains them.
#pragma once
#include "matmul.cuh"

// A duet::tile_map parameter: CUDA's CUtensorMap, opaque (128 bytes, aligned as cuda.h has it).
struct alignas(128) DuetTileMap {
    unsigned long long bits[16];
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_HAVE_WGMMA 1

__device__ __forceinline__ unsigned long long wg_desc(unsigned addr) {
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (1ull << 16) |
           ((unsigned long long)(1024 >> 4) << 32) | (1ull << 62);
}

__device__ __forceinline__ void wg_bar_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void wg_bar_arrive(unsigned bar) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}" ::"r"(bar)
                 : "memory");
}
// Arrives and arms the barrier's phase with `bytes` of copies to come.
__device__ __forceinline__ void wg_bar_expect(unsigned bar, unsigned bytes) {
    asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}"
                 ::"r"(bar), "r"(bytes)
                 : "memory");
}
__device__ __forceinline__ void wg_bar_wait(unsigned bar, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
// The box at column x, row y of `map` into shared memory at dst, counted on `bar`.
__device__ __forceinline__ void wg_tile_copy(unsigned dst, const DuetTileMap* map, int x, int y,
                                             unsigned bar) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
                 "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(bar)
                 : "memory");
}
#endif
