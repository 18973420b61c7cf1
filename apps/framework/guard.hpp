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
    // The device memory is kept and reused by the next output of the same size on the device
    // (the rows of one problem), poisoned again and given a new pattern; the run that holds it
    // must have finished its queue before it lets it go.
    GuardedOutput(Device& dev, Queue& q, std::size_t used_bytes);
    ~GuardedOutput();
    GuardedOutput(const GuardedOutput&) = delete;
    GuardedOutput& operator=(const GuardedOutput&) = delete;
    // What kernels and downloads get: the output itself.
    Buffer& buffer();
    const Buffer& buffer() const;
    // Fails r when either zone changed ("wrote before the start" / "past the end").
    void check(Result& r, Queue& q) const;
    std::size_t front_bytes() const;
    std::size_t back_bytes() const;

    struct Space; // the device memory, kept between outputs (guard.cpp)

  private:
    std::shared_ptr<Space> space_;
    std::vector<unsigned char> pattern_; // both zones' bytes: the front zone's, then the back's
};

// Frees the kept output memory of every device (a device about to be closed; tests).
void release_output_spaces();

// True when `zone` equals `pattern` byte for byte (sizes included).
bool guard_intact(const std::vector<unsigned char>& zone, const unsigned char* pattern);

} // namespace duet::apps
