// Guard zones on both sides of every checked output (guard.hpp).
#include "guard.hpp"

#include "checks.hpp"
#include "inputs.hpp"
#include "problem.hpp"
#include "setup_clock.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
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

// Bytes drawn at random for each output: a seed from the OS's entropy source, stretched by the
// counter-based generator on every core (a 16 MiB zone pair is made in a few ms, not tens).
std::vector<unsigned char> random_pattern(std::size_t n) {
    std::random_device rd;
    const std::uint64_t seed = (std::uint64_t(rd()) << 32) ^ rd();
    std::vector<unsigned char> p(n);
    parallel_for((n + 7) / 8, std::size_t{1} << 14, [&](std::size_t begin, std::size_t end) {
        for (std::size_t w = begin; w < end; ++w) {
            const std::uint64_t v = counter_random(seed, w);
            std::memcpy(&p[w * 8], &v, std::min<std::size_t>(8, n - w * 8));
        }
    });
    return p;
}

} // namespace

// An output's device memory with its zones, kept for the rows after: the rows of one problem
// on one device ask the same sizes, and allocating and freeing a GiB for each costs more than
// the step it holds. An idle space of another size is freed when a new one is made.
struct GuardedOutput::Space {
    std::unique_ptr<Buffer> whole, view;
    std::size_t front = 0, back = 0, used = 0;
    bool in_use = false;
};

namespace {

struct OutputSpaces {
    std::mutex mutex;
    std::map<const Device*, std::vector<std::shared_ptr<GuardedOutput::Space>>> by_device;
};

OutputSpaces& output_spaces() {
    static OutputSpaces spaces;
    return spaces;
}

// `used` bytes with a zone on each side; on a backend without views, and on a checking device
// (Device::checker_reports(), which reports accesses before the buffer itself), after the end only.
std::shared_ptr<GuardedOutput::Space> new_space(Device& dev, std::size_t used) {
    const SetupTimer setup; // once per problem and device, for every row after
    auto sp = std::make_shared<GuardedOutput::Space>();
    sp->used = used;
    const std::size_t zone = guard_zone_bytes(used, dev.view_alignment());
    // A checking device (Oclgrind) reports any access before the buffer itself, and its
    // tracking of initialised memory goes wrong through sub-buffers (a host write through one
    // is not seen, so the atomic reduction's zeroed sum reads as uninitialised): a zone after
    // the end only, as on a backend without views.
    if (dev.checker_reports() < 0) {
        try {
            sp->whole = dev.alloc_bytes(zone + used + zone);
            sp->view = dev.view(*sp->whole, zone, used);
            sp->front = sp->back = zone;
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::unsupported)
                throw;
            sp->view.reset();
        }
    }
    if (!sp->view) {
        sp->whole.reset(); // before the next allocation: at large sizes it is big
        sp->whole = dev.alloc_bytes(used + zone);
        sp->front = 0;
        sp->back = zone;
    }
    return sp;
}

std::shared_ptr<GuardedOutput::Space> take_space(Device& dev, std::size_t used) {
    auto& spaces = output_spaces();
    std::lock_guard lock(spaces.mutex);
    auto& list = spaces.by_device[&dev];
    for (auto& sp : list)
        if (!sp->in_use && sp->used == used) {
            sp->in_use = true;
            return sp;
        }
    std::erase_if(list, [&](const auto& sp) { return !sp->in_use; }); // another problem's
    auto sp = new_space(dev, used);
    sp->in_use = true;
    list.push_back(sp);
    return sp;
}

} // namespace

GuardedOutput::GuardedOutput(Device& dev, Queue& q, std::size_t used_bytes)
    : space_(take_space(dev, used_bytes)) {
    const std::size_t front = space_->front, used = space_->used, back = space_->back;
    // A new pattern for every output, reused memory or not.
    pattern_ = random_pattern(front + back);
    // The poison by poison()'s own rule (0xFF: NaN as float, -1 as int; filled on the device
    // where the buffer is large, written from the host where it is small), then the zones.
    poison(q, buffer());
    if (front > 0)
        q.write_bytes(*space_->whole, pattern_.data(), front, 0);
    q.write_bytes(*space_->whole, pattern_.data() + front, back, front + used);
}

GuardedOutput::~GuardedOutput() {
    std::lock_guard lock(output_spaces().mutex);
    space_->in_use = false;
}

Buffer& GuardedOutput::buffer() {
    return space_->view ? *space_->view : *space_->whole;
}

const Buffer& GuardedOutput::buffer() const {
    return space_->view ? *space_->view : *space_->whole;
}

std::size_t GuardedOutput::front_bytes() const {
    return space_->front;
}

std::size_t GuardedOutput::back_bytes() const {
    return space_->back;
}

void release_output_spaces() {
    auto& spaces = output_spaces();
    std::lock_guard lock(spaces.mutex);
    spaces.by_device.clear();
}

void GuardedOutput::check(Result& r, Queue& q) const {
    const auto changed = [&](std::size_t at, std::size_t n, const unsigned char* pattern) {
        std::vector<unsigned char> zone(n);
        if (n > 0)
            q.read_bytes(*space_->whole, zone.data(), n, at);
        return !guard_intact(zone, pattern);
    };
    const std::size_t front = space_->front, used = space_->used, back = space_->back;
    const bool before = changed(0, front, pattern_.data());
    const bool after = changed(front + used, back, pattern_.data() + front);
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
