#pragma once
// A problem (app, size, seed) is made once and shared: inputs from a counter-based generator
// filled by every core, kept for every variant and every device that runs the same problem, and
// uploaded once per device. The host's work is never the bottleneck of a timing run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <new>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

namespace duet::apps {

// Host memory for a problem's arrays: page-aligned, so that a device that works in host memory
// reads it in place (Device::share_host), and left unzeroed on allocation, so that the fill on
// every core is the pages' first touch instead of a zeroing pass on one.
template <class T> struct HostAllocator {
    using value_type = T;
    HostAllocator() = default;
    template <class U> HostAllocator(const HostAllocator<U>&) noexcept {}
    T* allocate(std::size_t n) {
        if (n > (std::size_t(-1) - page) / sizeof(T))
            throw std::bad_alloc();
        const std::size_t bytes = (n * sizeof(T) + page - 1) / page * page;
        void* p = std::aligned_alloc(page, std::max(bytes, page));
        if (!p)
            throw std::bad_alloc();
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t) noexcept { std::free(p); }
    template <class U> void construct(U* p) noexcept { ::new (static_cast<void*>(p)) U; }
    template <class U, class... A> void construct(U* p, A&&... a) {
        ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
    }
    template <class U> bool operator==(const HostAllocator<U>&) const noexcept { return true; }
    static constexpr std::size_t page = 4096;
};
template <class T> using HostVector = std::vector<T, HostAllocator<T>>;

// Element `i` of the seeded stream `seed`: a pure function of both (SplitMix64's finaliser over
// a Weyl sequence), so any thread can make any chunk and the numbers do not depend on how many
// threads made them.
// Inline, so that a loop over i keeps mix64(seed) out of the loop and makes an element in a few
// cycles.
inline std::uint64_t mix64(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}
inline std::uint64_t counter_random(std::uint64_t seed, std::uint64_t i) {
    return mix64(mix64(seed) + (i + 1) * 0x9E3779B97F4A7C15ull);
}
// Uniform float in [lo, hi) from one draw (24 random bits, so every float32 step is reachable).
inline float uniform_float(std::uint64_t bits, float lo, float hi) {
    const float u = float(std::uint32_t(bits >> 40)) * 0x1p-24f; // [0, 1) in steps of 2^-24
    const float x = lo + (hi - lo) * u;
    return x < hi ? x : std::nextafter(hi, lo); // rounding may reach hi; the range is half-open
}
// Uniform int in [lo, hi] from one draw.
int uniform_int(std::uint64_t bits, int lo, int hi);

// Seeded uniform inputs, made once per process for each (n, seed, range) and shared: the same
// array for every variant and device of one problem. Bounded: arrays not asked for since are
// dropped when the cache would exceed a quarter of the host's available memory.
std::shared_ptr<const HostVector<float>> shared_floats(std::size_t n, std::uint64_t seed,
                                                       float lo = -1.f, float hi = 1.f);
std::shared_ptr<const HostVector<int>> shared_ints(std::size_t n, std::uint64_t seed, int lo,
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
std::shared_ptr<const HostVector<T>> shared_input(char kind, std::size_t n, std::uint64_t seed,
                                                  double a, double b, Make&& make) {
    return std::static_pointer_cast<const HostVector<T>>(
        detail::cached_input(kind, n, seed, a, b, n * sizeof(T), [&] {
            return std::shared_ptr<const void>(std::make_shared<const HostVector<T>>(make()));
        }));
}

// Device copies of shared inputs, one per (device, host array), kept while the host array is
// and while the device runs the same problem (`tag`): variants of one problem on one device
// upload their inputs once. The first upload's transfer time is kept with the copy.
struct SharedUpload {
    std::shared_ptr<Buffer> buffer;
    double event_ms = 0, host_ms = 0; // the first upload's time on its event and the host's clock
    bool reused = false;              // this call found it uploaded already
    bool in_place = false; // the device reads the host array itself (Device::read_in_place)
};
// The device copy of `host` on `dev` for problem `tag`, uploaded through `q` when not held, or
// the host array itself where the device reads it in place (no transfer, no time).
// Copies of another problem on `dev` are released first, so that two problems never share a
// device's memory.
SharedUpload upload_shared(Device& dev, Queue& q, const std::string& tag,
                           const std::shared_ptr<const void>& host, const void* data,
                           std::size_t bytes);
// Where a device reads a shared input in place (SharedUpload::in_place), a kernel that writes it
// changes the host array every later row reads, the CPU reference included. A copy of the array
// as made is kept from its first such upload, with its checksum; after a run, input_unchanged
// checksums the array (one read of it): true when the sums are equal, else the array is restored
// from the copy and false is returned. (An array no device reads in place has no copy: true.)
bool input_unchanged(const void* data, std::size_t bytes);
// Forgets `dev`'s device copies of shared inputs, so that the next row uploads them again: a row
// that failed may have changed them.
void forget_uploads(Device& dev);
// Host memory for a download of `bytes` from `dev`: pinned where the device offers it (a
// download into pageable memory runs at a fraction of the bus's speed), kept for this thread and
// device and reused, grown when too small. Valid until this thread's next call for `dev`.
std::span<std::byte> download_space(Device& dev, std::size_t bytes);
// Releases every shared device copy and download space (tests; a device about to be closed).
void release_shared_uploads();

} // namespace duet::apps
