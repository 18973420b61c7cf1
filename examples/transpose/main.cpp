// transpose: a 2-D range (duet::Range(x, y).local(16, 16)) over a matrix whose sides are not
// multiples of the group. Usage: transpose [DEVICE]. Checks every element; exit code 0
// correct, 1 wrong, 3 a device error.
#include <cstdio>
#include <vector>

#include <duet/duet.hpp>

int main(int argc, char** argv) {
    try {
        duet::Device& dev = duet::select_device(argc > 1 ? argv[1] : "");
        const int w = 500, h = 300;
        std::vector<float> in(static_cast<std::size_t>(w) * h);
        for (std::size_t i = 0; i < in.size(); ++i)
            in[i] = static_cast<float>(i);
        duet::BuildOptions opts;
        opts.sources = duet::KernelSources::from_files(EXAMPLE_DIR "/transpose.cl",
                                                       EXAMPLE_DIR "/transpose.cu");
        auto k = dev.load_kernel("transpose", opts);
        const std::size_t side = k->max_work_group_size() >= 256 ? 16 : 8;
        auto q = dev.create_queue();
        auto din = dev.alloc<float>(in.size()), dout = dev.alloc<float>(in.size());
        q->write(*din, in);
        q->fill(*dout, -1.0f, in.size()); // poison: an element never written shows up
        q->launch(*k,
                  duet::Range(duet::round_up(w, side), duet::round_up(h, side)).local(side, side),
                  *din, *dout, w, h);
        std::vector<float> out(in.size());
        q->read(*dout, out);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x)
                if (out[static_cast<std::size_t>(x) * h + y] !=
                    in[static_cast<std::size_t>(y) * w + x]) {
                    std::printf("transpose: WRONG at x=%d y=%d\n", x, y);
                    return 1;
                }
        std::printf("transpose on %s: %dx%d correct\n", dev.label().c_str(), w, h);
        return 0;
    } catch (const duet::Error& e) {
        std::fprintf(stderr, "transpose: %s\n", e.what());
        return 3;
    }
}
