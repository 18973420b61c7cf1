#pragma once
// A problem (app, size, seed) is made once and shared: inputs from a counter-based generator
// filled by every core, kept for every variant and every device that runs the same problem, and
// uploaded once per device. The host's work is never the bottleneck of a timing run.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <duet/duet.hpp>

namespace duet::apps {

// Element `i` of the seeded stream `seed`: a pure function of both (SplitMix64's finaliser over
// a Weyl sequence), so any thread can make any chunk and the numbers do not depend on how many
// threads made them.
std::uint64_t counter_random(std::uint64_t seed, std::uint64_t i);
// Uniform float in [lo, hi) from one draw (24 random bits, so every float32 step is reachable).
float uniform_float(std::uint64_t bits, float lo, float hi);
// Uniform int in [lo, hi] from one draw.
int uniform_int(std::uint64_t bits, int lo, int hi);

// Seeded uniform inputs, made once per process for each (n, seed, range) and shared: the same
// array for every variant and device of one problem. Bounded: arrays not asked for since are
// dropped when the cache would exceed a quarter of the host's available memory.
std::shared_ptr<const std::vector<float>> shared_floats(std::size_t n, std::uint64_t seed,
                                                        float lo = -1.f, float hi = 1.f);
std::shared_ptr<const std::vector<int>> shared_ints(std::size_t n, std::uint64_t seed, int lo,
                                                    int hi);

// A shared input made by `make` (on every core, as it chooses), cached like shared_floats under
// (kind, n, seed, a, b): for inputs of an app's own distribution.
namespace detail {
// The cache behind shared_floats and shared_input: the array of (kind, n, seed, a, b), of
// `bytes`, made by `make` when not held.
std::shared_ptr<const void> cached_input(char kind, std::size_t n, std::uint64_t seed, double a,
                                         double b, std::size_t bytes,
                                         const std::function<std::shared_ptr<const void>()>& make);
} // namespace detail
template <class T, class Make>
std::shared_ptr<const std::vector<T>> shared_input(char kind, std::size_t n, std::uint64_t seed,
                                                   double a, double b, Make&& make) {
    return std::static_pointer_cast<const std::vector<T>>(
        detail::cached_input(kind, n, seed, a, b, n * sizeof(T), [&] {
            return std::shared_ptr<const void>(std::make_shared<const std::vector<T>>(make()));
        }));
}

// Device copies of shared inputs, one per (device, host array), kept while the host array is
// and while the device runs the same problem (`tag`): variants of one problem on one device
// upload their inputs once. The first upload's transfer time is kept with the copy.
struct SharedUpload {
    std::shared_ptr<Buffer> buffer;
    double event_ms = 0, host_ms = 0; // the first upload's time on its event and the host's clock
    bool reused = false;              // this call found it uploaded already
};
// The device copy of `host` on `dev` for problem `tag`, uploaded through `q` when not held.
// Copies of another problem on `dev` are released first, so that two problems never share a
// device's memory.
SharedUpload upload_shared(Device& dev, Queue& q, const std::string& tag,
                           const std::shared_ptr<const void>& host, const void* data,
                           std::size_t bytes);
// Host memory for a download of `bytes` from `dev`: pinned where the device offers it (a
// download into pageable memory runs at a fraction of the bus's speed), kept for this thread and
// device and reused, grown when too small. Valid until this thread's next call for `dev`.
std::span<std::byte> download_space(Device& dev, std::size_t bytes);
// Releases every shared device copy and download space (tests; a device about to be closed).
void release_shared_uploads();

} // namespace duet::apps
