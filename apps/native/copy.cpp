// The native copy bandwidth: what the host's memory moves when every core streams a large buffer
// into another. The memory-bound apps (vecadd, reduction, conv5x5) are measured against it: a
// kernel that reaches it moves its bytes as fast as this machine can move any.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include <duet/duet.hpp>

#include "native.hpp"
#include "stream.hpp"

namespace duet::apps::native {

namespace {

constexpr std::size_t page = 4096;

struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};

} // namespace

Copy copy_bandwidth(std::size_t bytes, int reps) {
    const unsigned threads = host_cpu().threads;
    // Each buffer is half the bytes, in whole pages per thread.
    const std::size_t per_thread = std::max(page, (bytes / 2 / threads + page - 1) / page * page);
    const std::size_t half = per_thread * threads;
    std::unique_ptr<void, FreeDeleter> src(std::aligned_alloc(page, half)),
        dst(std::aligned_alloc(page, half));
    if (!src || !dst)
        throw Error(ErrorKind::runtime, "", "", 0, "",
                    "native copy: cannot allocate 2 x " + std::to_string(half >> 20) +
                        " MiB of host memory; use a smaller --size");
    auto* s = static_cast<unsigned char*>(src.get());
    auto* d = static_cast<unsigned char*>(dst.get());
    std::vector<double> ms[2]; // [0] memcpy, [1] non-temporal
    std::barrier sync(static_cast<std::ptrdiff_t>(threads));
    std::chrono::steady_clock::time_point t0;
    on_threads(threads, [&](unsigned t) {
        // First touch by the thread that copies the part: its pages land near its core.
        std::memset(s + t * per_thread, 1 + int(t), per_thread);
        std::memset(d + t * per_thread, 0, per_thread);
        for (int method = 0; method < 2; ++method)
            for (int rep = -1; rep < reps; ++rep) { // rep -1: the warm-up
                sync.arrive_and_wait();
                if (t == 0)
                    t0 = std::chrono::steady_clock::now();
                const auto* from = s + t * per_thread;
                auto* to = d + t * per_thread;
                if (method == 0)
                    std::memcpy(to, from, per_thread);
                else
                    stream_copy(reinterpret_cast<const float*>(from), reinterpret_cast<float*>(to),
                                per_thread);
                sync.arrive_and_wait();
                if (t == 0 && rep >= 0)
                    ms[method].push_back(std::chrono::duration<double, std::milli>(
                                             std::chrono::steady_clock::now() - t0)
                                             .count());
            }
    });
    // The copy happened: the last byte of each part is its thread's mark.
    for (unsigned t = 0; t < threads; ++t)
        if (d[(t + 1) * per_thread - 1] != static_cast<unsigned char>(1 + t))
            throw Error(ErrorKind::runtime, "", "", 0, "", "native copy: the copy is wrong");
    Copy c;
    c.bytes = 2 * half;
    const double plain = double(c.bytes) / (summarize(ms[0]).median * 1e6);
    const double nt = double(c.bytes) / (summarize(ms[1]).median * 1e6);
    c.gbs = std::max(plain, nt);
    c.other_gbs = std::min(plain, nt);
    c.method = nt >= plain ? "non-temporal stores" : "ordinary stores (memcpy)";
    return c;
}

} // namespace duet::apps::native
