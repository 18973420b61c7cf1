// saxpy: y = a*x + y, a memory-bound kernel. Usage: saxpy [DEVICE] (a stable id from
// `runapp list`, opencl:0, cuda, ...; default: the first GPU, else the first device).
// Checks every element; exit code 0 correct, 1 wrong, 3 a device error.
#include <cmath>
#include <cstdio>
#include <vector>

#include <duet/duet.hpp>

int main(int argc, char** argv) {
    try {
        duet::Device& dev = duet::select_device(argc > 1 ? argv[1] : "");
        const int n = 1 << 18;
        const float a = 3.0f;
        std::vector<float> x(n), y(n);
        for (int i = 0; i < n; ++i) {
            x[i] = static_cast<float>(i % 1000);
            y[i] = static_cast<float>(i % 7);
        }
        auto q = dev.create_queue(duet::QueueOptions::timed());
        auto dx = dev.alloc<float>(n), dy = dev.alloc<float>(n);
        q->write(*dx, x); // blocking: x may change after this returns
        q->write(*dy, y);
        duet::BuildOptions opts;
        opts.sources =
            duet::KernelSources::from_files(EXAMPLE_DIR "/saxpy.cl", EXAMPLE_DIR "/saxpy.cu");
        auto k = dev.load_kernel("saxpy", opts);
        const std::size_t local = k->max_work_group_size() < 256 ? k->max_work_group_size() : 256;
        duet::Event ev =
            q->launch(*k, duet::Range(duet::round_up(n, local)).local(local), a, *dx, *dy, n);
        std::vector<float> out(n);
        q->read(*dy, out);
        for (int i = 0; i < n; ++i)
            if (out[i] != a * x[i] + y[i]) {
                std::printf("saxpy: WRONG at %d: %g, expected %g\n", i, out[i], a * x[i] + y[i]);
                return 1;
            }
        const double ms = ev.elapsed_ms();
        std::printf("saxpy on %s: %d elements correct, %.3f ms, %.1f GB/s (program: %s)\n",
                    dev.label().c_str(), n, ms, 3.0 * n * sizeof(float) / (ms * 1e6),
                    duet::provenance_name(k->provenance()));
        return 0;
    } catch (const duet::Error& e) {
        std::fprintf(stderr, "saxpy: %s\n", e.what());
        return 3;
    }
}
