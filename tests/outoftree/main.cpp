// An app of a user's own: its kernel in OpenCL C and CUDA, run on every device found.
#include <cstdio>
#include <vector>

#include <duet/duet.hpp>

int main() {
    const auto sources =
        duet::KernelSources::from_files(KERNEL_DIR "/saxpy.cl", KERNEL_DIR "/saxpy.cu");
    int ran = 0;
    for (duet::Device* dev : duet::devices()) {
        const int n = 1000;
        std::vector<float> x(n, 2.f), y(n, 1.f);
        auto q = dev->create_queue();
        auto dx = dev->alloc<float>(n), dy = dev->alloc<float>(n);
        q->write(*dx, x);
        q->write(*dy, y);
        auto k = dev->load_kernel("saxpy", {.sources = sources});
        q->launch(*k, duet::Range(duet::round_up(n, 128)).local(128), 3.0f, *dx, *dy, n);
        q->read(*dy, y);
        for (float v : y)
            if (v != 7.f) {
                std::printf("outoftree: wrong result %g on %s\n", v, dev->label().c_str());
                return 1;
            }
        std::printf("outoftree: saxpy on %s correct\n", dev->label().c_str());
        ++ran;
    }
    if (ran == 0)
        std::printf("outoftree: no device\n");
    return ran ? 0 : 1;
}
