#pragma once
// Guard zones on both sides of every checked output: the output is a view into a larger buffer
// whose bytes before and after it hold a pattern drawn at random for each output (a kernel cannot
// write it back by chance, nor by writing the poison's 0xFF). After the run, a changed byte in
// either zone fails the result, naming the side.
#include <cstddef>
#include <memory>
#include <vector>

#include <duet/duet.hpp>

#include "result.hpp"

namespace duet::apps {

// The size of each guard zone of an output of `bytes`: an eighth of it, at least 4 KiB and at
// most 16 MiB, rounded up to `align` (a view's offset alignment), so that writes far past either
// end land in it too.
std::size_t guard_zone_bytes(std::size_t bytes, std::size_t align);

class GuardedOutput {
  public:
    // Allocates `used_bytes` with a zone on each side, writes the zones' pattern and poisons
    // the output (0xFF, as poison()). On a backend without views, and on a checking device
    // (Device::checker_reports(), which reports accesses before the buffer itself), the zone is
    // after the end only.
    GuardedOutput(Device& dev, Queue& q, std::size_t used_bytes);
    // What kernels and downloads get: the output itself.
    Buffer& buffer() { return view_ ? *view_ : *whole_; }
    const Buffer& buffer() const { return view_ ? *view_ : *whole_; }
    // Fails r when either zone changed ("wrote before the start" / "past the end").
    void check(Result& r, Queue& q) const;
    std::size_t front_bytes() const { return front_; }
    std::size_t back_bytes() const { return back_; }

  private:
    std::unique_ptr<Buffer> whole_, view_;
    std::size_t front_ = 0, used_ = 0, back_ = 0;
    std::vector<unsigned char> pattern_; // front_ + back_ bytes: the front zone's, then the back's
};

// True when `zone` equals `pattern` byte for byte (sizes included).
bool guard_intact(const std::vector<unsigned char>& zone, const unsigned char* pattern);

} // namespace duet::apps
