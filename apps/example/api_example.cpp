// The README's API example: vector add on any device, written once.
// Usage: api_example [DEVICE]   (an index, opencl:0, cuda:0, or part of a name)
#include <cstdio>
#include <vector>

#include <duet/duet.hpp>

int main(int argc, char** argv) try {
    const int n = 1 << 20;
    std::vector<float> host_a(n, 1.0f), host_b(n, 2.0f), host_c(n);

    duet::Device& dev = duet::select_device(argc > 1 ? argv[1] : "");
    auto q = dev.create_queue(duet::QueueOptions::timed());
    auto a = dev.alloc<float>(n), b = dev.alloc<float>(n), c = dev.alloc<float>(n);
    q->write(*a, host_a);
    q->write(*b, host_b);
    auto k = dev.load_kernel("vecadd_naive");
    auto ev = q->launch(*k, duet::Range(n).local(256), *a, *b, *c, n);
    q->read(*c, host_c);
    q->finish();

    for (int i = 0; i < n; ++i)
        if (host_c[i] != 3.0f) {
            std::printf("wrong result at %d: %g\n", i, host_c[i]);
            return 1;
        }
    std::printf("vecadd of %d floats on %s: %.3f ms, correct\n", n, dev.label().c_str(),
                ev.elapsed_ms());
} catch (const duet::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 3;
}
