// The probe campaign's (bench/probe_campaign.py) way into the API: one launch of an empty kernel
// with the Range given on the command line, or one fill of a count, on a device.
// Usage: probe_range DEVICE launch G0 [G1 [G2]] [local L0 [L1 [L2]]]
//        probe_range DEVICE fill COUNT
// Exit 0 when the call returned, 2 a usage error, 3 another duet::Error (its message on stderr).
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace {

std::size_t number(const char* s) {
    return static_cast<std::size_t>(std::strtoull(s, nullptr, 0));
}

int run(int argc, char** argv) {
    duet::Device& dev = duet::select_device(argv[1]);
    auto q = dev.create_queue();
    const std::string what = argv[2];
    if (what == "fill") {
        auto buf = dev.alloc<float>(16);
        q->fill(*buf, 1.0f, number(argv[3]));
        q->finish();
        return 0;
    }
    std::vector<std::size_t> g, l;
    bool local = false;
    for (int i = 3; i < argc; ++i) {
        if (std::string(argv[i]) == "local")
            local = true;
        else
            (local ? l : g).push_back(number(argv[i]));
    }
    duet::BuildOptions opts;
    opts.sources.opencl = "__kernel void nothing(__global float* x) { }\n";
    opts.sources.origin = "<probe_range>";
    auto k = dev.load_kernel("nothing", opts);
    auto buf = dev.alloc<float>(16);
    duet::Range r = g.size() == 1   ? duet::Range(g[0])
                    : g.size() == 2 ? duet::Range(g[0], g[1])
                                    : duet::Range(g[0], g[1], g[2]);
    if (!l.empty())
        r.local(l[0], l.size() > 1 ? l[1] : 1, l.size() > 2 ? l[2] : 1);
    q->launch(*k, r, *buf);
    q->finish();
    return 0;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 4) {
        std::fprintf(stderr, "usage: probe_range DEVICE launch G0 [G1 [G2]] [local L...] | "
                             "probe_range DEVICE fill COUNT\n");
        return 2;
    }
    try {
        return run(argc, argv);
    } catch (const duet::Error& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return e.kind() == duet::ErrorKind::usage ? 2 : 3;
    }
}
