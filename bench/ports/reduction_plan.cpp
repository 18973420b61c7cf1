// See reduction_plan.hpp: reduction.cpp's getNumBlocksAndThreads, benchmarkReduce's final
// passes and reduction_kernel.cu's reduce<T> switch.
#include "reduction_plan.hpp"

#include <algorithm>

namespace ports {

namespace {

bool is_pow2(unsigned x) {
    return (x & (x - 1)) == 0;
}

unsigned next_pow2(unsigned x) {
    --x;
    x |= x >> 1;
    x |= x >> 2;
    x |= x >> 4;
    x |= x >> 8;
    x |= x >> 16;
    return ++x;
}

void blocks_and_threads(int kernel, unsigned n, const ReduceConfig& c, unsigned& blocks,
                        unsigned& threads) {
    if (kernel < 3) {
        threads = n < c.max_threads ? next_pow2(n) : c.max_threads;
        blocks = (n + threads - 1) / threads;
    } else {
        threads = n < c.max_threads * 2 ? next_pow2((n + 1) / 2) : c.max_threads;
        blocks = (n + (threads * 2 - 1)) / (threads * 2);
    }
    if (kernel >= 6)
        blocks = std::min(c.max_blocks, blocks);
}

// reduce<T>'s switch: the instantiation and its dynamic shared memory.
ReducePass pass(int kernel, unsigned size, unsigned threads, unsigned blocks,
                const ReduceConfig& c) {
    ReducePass p{{}, size, threads, blocks, 0};
    const std::string t = c.type, n = std::to_string(threads);
    p.shared_bytes = (threads <= 32 ? 2 * threads : threads) * c.type_size;
    if (threads < 64 && kernel == 9)
        kernel = 7;
    const bool pow2 = is_pow2(size);
    if (kernel <= 3) {
        p.kernel = "reduce" + std::to_string(kernel) + "<" + t + ">";
    } else if (kernel <= 5) {
        p.kernel = "reduce" + std::to_string(kernel) + "<" + t + ", " + n + ">";
    } else if (kernel == 6) {
        p.kernel = "reduce6<" + t + ", " + n + ", " + (pow2 ? "true" : "false") + ">";
    } else if (kernel == 7) {
        p.shared_bytes = (threads / 32 + 1) * c.type_size;
        // The sample launches the nIsPow2 = true instantiation for 1024 threads either way.
        p.kernel =
            "reduce7<" + t + ", " + n + ", " + (pow2 || threads == 1024 ? "true" : "false") + ">";
    } else if (kernel == 8) {
        p.kernel = "cg_reduce<" + t + ">";
    } else {
        p.shared_bytes = 2 * c.type_size;
        p.kernel =
            "multi_warp_cg_reduce<" + t + ", " + n + ", " + std::to_string(threads / 2) + ">";
    }
    return p;
}

} // namespace

std::vector<ReducePass> reduce_plan(const ReduceConfig& c) {
    unsigned threads = 0, blocks = 0;
    blocks_and_threads(c.kernel, c.size, c, blocks, threads);
    std::vector<ReducePass> out{pass(c.kernel, c.size, threads, blocks, c)};
    // cpuFinalThreshold = 1: the partial sums are reduced on the GPU until one is left.
    for (unsigned s = blocks; s > 1;) {
        blocks_and_threads(c.kernel, s, c, blocks, threads);
        out.push_back(pass(c.kernel, s, threads, blocks, c));
        s = c.kernel < 3 ? (s + threads - 1) / threads : (s + (threads * 2 - 1)) / (threads * 2);
    }
    return out;
}

} // namespace ports
