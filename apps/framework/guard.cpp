// Guard zones on both sides of every checked output (guard.hpp).
#include "guard.hpp"

#include "checks.hpp"

#include <algorithm>
#include <cstring>
#include <random>

namespace duet::apps {

std::size_t guard_zone_bytes(std::size_t bytes, std::size_t align) {
    const std::size_t zone = std::clamp<std::size_t>(bytes / 8, 4096, std::size_t{16} << 20);
    align = std::max<std::size_t>(align, 1);
    return (zone + align - 1) / align * align;
}

bool guard_intact(const std::vector<unsigned char>& zone, const unsigned char* pattern) {
    return zone.empty() || std::memcmp(zone.data(), pattern, zone.size()) == 0;
}

namespace {

// Bytes from the OS's entropy source, stretched by a generator it seeds: a new pattern per output.
std::vector<unsigned char> random_pattern(std::size_t n) {
    std::random_device rd;
    std::seed_seq seq{rd(), rd(), rd(), rd()};
    std::mt19937_64 rng(seq);
    std::vector<unsigned char> p(n);
    for (std::size_t i = 0; i < n; i += 8) {
        const auto v = rng();
        std::memcpy(&p[i], &v, std::min<std::size_t>(8, n - i));
    }
    return p;
}

} // namespace

GuardedOutput::GuardedOutput(Device& dev, Queue& q, std::size_t used_bytes) : used_(used_bytes) {
    const std::size_t align = dev.view_alignment();
    const std::size_t zone = guard_zone_bytes(used_bytes, align);
    // A checking device (Oclgrind) reports any access before the buffer itself, and its
    // tracking of initialised memory goes wrong through sub-buffers (a host write through one
    // is not seen, so the atomic reduction's zeroed sum reads as uninitialised): a zone after
    // the end only, as on a backend without views.
    if (dev.checker_reports() < 0) {
        try {
            whole_ = dev.alloc_bytes(zone + used_bytes + zone);
            view_ = dev.view(*whole_, zone, used_bytes);
            front_ = back_ = zone;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::unsupported)
                throw;
            view_.reset();
        }
    }
    if (!view_) {
        whole_ = dev.alloc_bytes(used_bytes + zone);
        front_ = 0;
        back_ = zone;
    }
    pattern_ = random_pattern(front_ + back_);
    // The poison by poison()'s own rule (0xFF: NaN as float, -1 as int; filled on the device
    // where the buffer is large, written from the host where it is small), then the zones.
    poison(q, view_ ? *view_ : *whole_);
    if (front_ > 0)
        q.write_bytes(*whole_, pattern_.data(), front_, 0);
    q.write_bytes(*whole_, pattern_.data() + front_, back_, front_ + used_);
}

void GuardedOutput::check(Result& r, Queue& q) const {
    const auto changed = [&](std::size_t at, std::size_t n, const unsigned char* pattern) {
        std::vector<unsigned char> zone(n);
        if (n > 0)
            q.read_bytes(*whole_, zone.data(), n, at);
        return !guard_intact(zone, pattern);
    };
    const bool before = changed(0, front_, pattern_.data());
    const bool after = changed(front_ + used_, back_, pattern_.data() + front_);
    if (!before && !after)
        return;
    r.pass = false;
    r.verified = true;
    const std::string where = before && after ? "before the start and past the end"
                              : before        ? "before the start"
                                              : "past the end";
    r.note += std::string(r.note.empty() ? "" : "; ") + "FAIL: the kernel wrote " + where +
              " of the output (guard zone changed)";
}

} // namespace duet::apps
