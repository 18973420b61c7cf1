// Built, never run: the public headers compile as C++17 and as C++20 with -pedantic -Werror
// (tests/CMakeLists.txt builds this file once per standard), templates instantiated.
#include <duet/cuda/tile_map.hpp> // the earlier spelling of duet::tile_map
#include <duet/duet.hpp>

namespace {

[[maybe_unused]] duet::Event launch_every_kind(duet::Device& dev, duet::Queue& q) {
    auto buf = dev.alloc<float>(16);
    auto k = dev.load_kernel("vecadd_naive");
    std::vector<float> host(16);
    q.write(*buf, host);
    q.read(*buf, host);
    q.fill(*buf, 1.0f, 16);
    const duet::KernelArg args[] = {duet::KernelArg::from(*buf), duet::KernelArg::from(3)};
    q.launch_args(*k, duet::Range(16), duet::KernelArgs(args, 2));
    q.launch(*k, duet::Range(16), duet::tile_map(*buf, 4, 4, 4, 4), *buf);
    q.launch(*k, duet::Range(16), duet::cuda::tile_map(*buf, 4, 4, 4, 4), *buf);
    return q.launch(*k, duet::Range(16, 1).local(16, 1), *buf, buf, 2.0f, duet::local(64));
}

[[maybe_unused]] std::string describe(const duet::Device& dev) {
    return dev.label() + " " + duet::stable_id(dev) + " " +
           duet::provenance_name(duet::Provenance::disk_cache) + " " + duet::version;
}

} // namespace
