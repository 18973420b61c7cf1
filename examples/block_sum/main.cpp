// block_sum: per-work-group sums through local (OpenCL) / shared (CUDA) memory passed as
// duet::local. Usage: block_sum [DEVICE]. Checks every partial sum (small integers, so exact);
// exit code 0 correct, 1 wrong, 3 a device error.
#include <cstdio>
#include <vector>

#include <duet/duet.hpp>

int main(int argc, char** argv) {
    try {
        duet::Device& dev = duet::select_device(argc > 1 ? argv[1] : "");
        const int n = (1 << 18) + 123; // not a multiple of the group: the tail is padded with 0
        std::vector<float> in(n);
        for (int i = 0; i < n; ++i)
            in[i] = static_cast<float>(i % 7);
        duet::BuildOptions opts;
        opts.sources = duet::KernelSources::from_files(EXAMPLE_DIR "/block_sum.cl",
                                                       EXAMPLE_DIR "/block_sum.cu");
        auto k = dev.load_kernel("block_sum", opts);
        // A power-of-two group that the kernel and the device's local memory allow.
        std::size_t group = 256;
        while (group > k->max_work_group_size() ||
               group * sizeof(float) > dev.info().local_mem_bytes)
            group /= 2;
        const std::size_t groups = (n + group - 1) / group;
        auto q = dev.create_queue();
        auto din = dev.alloc<float>(n), dpartial = dev.alloc<float>(groups);
        q->write(*din, in);
        q->launch(*k, duet::Range(groups * group).local(group), *din, *dpartial,
                  duet::local(group * sizeof(float)), n);
        std::vector<float> partial(groups);
        q->read(*dpartial, partial);
        for (std::size_t g = 0; g < groups; ++g) {
            double want = 0;
            for (std::size_t i = g * group; i < (g + 1) * group && i < static_cast<std::size_t>(n);
                 ++i)
                want += in[i];
            if (partial[g] != want) {
                std::printf("block_sum: WRONG group %zu: %g, expected %g\n", g, partial[g], want);
                return 1;
            }
        }
        std::printf("block_sum on %s: %zu groups of %zu correct\n", dev.label().c_str(), groups,
                    group);
        return 0;
    } catch (const duet::Error& e) {
        std::fprintf(stderr, "block_sum: %s\n", e.what());
        return 3;
    }
}
