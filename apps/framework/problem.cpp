// Problems made once and shared (problem.hpp): the counter-based generator, the process-wide
// cache of inputs and the per-device cache of their uploads.
#include "problem.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <list>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include <duet/duet.hpp>

#include "guard.hpp"
#include "inputs.hpp"
#include "setup_clock.hpp"

namespace duet::apps {

namespace {

// Fills out[i] = make(counter_random(seed, i)) on every core.
template <class T, class Make>
HostVector<T> generate(std::size_t n, std::uint64_t seed, Make make) {
    check_host_fits(n, sizeof(T));
    HostVector<T> v(n);
    parallel_for(n, std::size_t{1} << 16, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i)
            v[i] = make(counter_random(seed, i));
    });
    return v;
}

// What one cached array is: its element type, length, seed and range.
using InputKey = std::tuple<char, std::size_t, std::uint64_t, double, double>;

// The shared inputs, least recently used first; bounded by a quarter of the host's available
// memory measured when an array is added (one problem always fits: it is never evicted by its
// own arrays' arrival, only older ones are).
class InputCache {
  public:
    std::shared_ptr<const void> get(const InputKey& key, std::size_t bytes,
                                    const std::function<std::shared_ptr<const void>()>& make) {
        std::unique_lock lock(mutex_);
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->key == key) {
                entries_.splice(entries_.end(), entries_, it); // most recent last
                return it->value;
            }
        lock.unlock(); // made on every core without holding others up
        const SetupTimer setup;
        auto made = make();
        lock.lock();
        const std::uint64_t avail = host_memory_available();
        const std::size_t budget = avail > 0 ? std::size_t(avail / 4) : std::size_t{1} << 30;
        while (!entries_.empty() && held_ + bytes > budget) {
            held_ -= entries_.front().bytes;
            entries_.pop_front();
        }
        entries_.push_back({key, made, bytes});
        held_ += bytes;
        return made;
    }

  private:
    struct Entry {
        InputKey key;
        std::shared_ptr<const void> value;
        std::size_t bytes;
    };
    std::mutex mutex_;
    std::list<Entry> entries_;
    std::size_t held_ = 0;
};

InputCache& input_cache() {
    static InputCache cache;
    return cache;
}

struct UploadEntry {
    std::string tag;
    std::weak_ptr<const void> host;
    const void* data = nullptr;
    std::size_t bytes = 0;
    std::shared_ptr<Buffer> buffer;
    double event_ms = 0, host_ms = 0;
    bool in_place = false;
};

// A shared input as it was made, kept where a device reads the input in place.
struct Pristine {
    std::weak_ptr<const void> host;
    std::size_t bytes = 0;
    HostVector<std::byte> copy;
    std::uint64_t sum = 0; // checksum_on_cores of the array as made
};

struct UploadCache {
    std::mutex mutex;
    std::map<const Device*, std::vector<UploadEntry>> by_device;
    std::map<const void*, Pristine> pristine; // by the host array's address
};

// `n` bytes from `from` to `to` on every core.
void copy_on_cores(std::byte* to, const std::byte* from, std::size_t n) {
    parallel_for(n, std::size_t{1} << 20, [&](std::size_t begin, std::size_t end) {
        std::memcpy(to + begin, from + begin, end - begin);
    });
}

// A checksum of the `n` bytes at `p`, on every core: each MiB's 8-byte words in four lanes of
// h = (h ^ word) * odd (a bijection of h for each word, and of the word for each h, so one
// changed word always changes its lane and, through mix64, the MiB's value), the MiBs' values
// mixed with their index and added. Reads the bytes once: a run's check of an input costs a
// read of it, not a comparison with a copy.
std::uint64_t checksum_on_cores(const std::byte* p, std::size_t n) {
    constexpr std::size_t chunk = std::size_t{1} << 20;
    std::atomic<std::uint64_t> total{0};
    parallel_for((n + chunk - 1) / chunk, 1, [&](std::size_t c0, std::size_t c1) {
        std::uint64_t part = 0;
        for (std::size_t c = c0; c < c1; ++c) {
            const std::size_t from = c * chunk, to = std::min(n, from + chunk);
            std::uint64_t h[4] = {1, 2, 3, 4};
            std::size_t i = from;
            for (; i + 32 <= to; i += 32)
                for (int l = 0; l < 4; ++l) {
                    std::uint64_t w;
                    std::memcpy(&w, p + i + 8 * l, 8);
                    h[l] = (h[l] ^ w) * 0x100000001B3ull;
                }
            for (int l = 0; i < to; i += 8, ++l) { // the last words, the last one zero-padded
                std::uint64_t w = 0;
                std::memcpy(&w, p + i, std::min<std::size_t>(8, to - i));
                h[l] = (h[l] ^ w) * 0x100000001B3ull;
            }
            std::uint64_t v = mix64(h[0]);
            for (int l = 1; l < 4; ++l)
                v = mix64(v ^ h[l]);
            part += mix64(v + c * 0x9E3779B97F4A7C15ull);
        }
        total += part;
    });
    return total;
}

// Keeps a copy of `host` as it is now, unless one is kept; copies of arrays gone are dropped.
void keep_pristine(UploadCache& cache, const std::shared_ptr<const void>& host, const void* data,
                   std::size_t bytes) {
    std::erase_if(cache.pristine, [](const auto& e) { return e.second.host.expired(); });
    auto& p = cache.pristine[data];
    if (p.host.lock() == host && p.bytes == bytes)
        return;
    p.host = host;
    p.bytes = bytes;
    p.copy = HostVector<std::byte>(bytes);
    copy_on_cores(p.copy.data(), static_cast<const std::byte*>(data), bytes);
    p.sum = checksum_on_cores(p.copy.data(), bytes);
}

UploadCache& upload_cache() {
    static UploadCache cache;
    return cache;
}

// Download spaces, one per (device, thread).
struct DownloadSpaces {
    std::mutex mutex;
    std::map<std::pair<const Device*, std::thread::id>, std::unique_ptr<HostBuffer>> by_key;
};

DownloadSpaces& download_spaces() {
    static DownloadSpaces spaces;
    return spaces;
}

} // namespace

std::span<std::byte> download_space(Device& dev, std::size_t bytes) {
    auto& spaces = download_spaces();
    std::lock_guard lock(spaces.mutex);
    auto& held = spaces.by_key[{&dev, std::this_thread::get_id()}];
    if (!held || held->size() < bytes) {
        const SetupTimer setup; // once per device and thread, for every row after
        held.reset();           // the old one goes first: pinned memory is scarce
        held = dev.alloc_host(std::max<std::size_t>(bytes, 1));
        // Its pages touched on every core now, rather than faulted in one by one by the
        // driver's copy on one thread (where the driver has not done it already).
        auto* base = static_cast<volatile std::byte*>(held->data());
        constexpr std::size_t page = HostAllocator<std::byte>::page;
        const std::size_t pages = (bytes + page - 1) / page;
        parallel_for(pages, std::size_t{1} << 10, [&](std::size_t begin, std::size_t end) {
            for (std::size_t p = begin; p < end; ++p)
                base[p * page] = std::byte{0};
        });
    }
    return {static_cast<std::byte*>(held->data()), bytes};
}

int uniform_int(std::uint64_t bits, int lo, int hi) {
    const std::uint64_t span = std::uint64_t(std::int64_t(hi) - lo) + 1;
    return int(std::int64_t(lo) + std::int64_t(((bits >> 32) * span) >> 32));
}

HostVector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    return generate<float>(n, seed, [=](std::uint64_t b) { return uniform_float(b, lo, hi); });
}

HostVector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
    return generate<int>(n, seed, [=](std::uint64_t b) { return uniform_int(b, lo, hi); });
}

std::shared_ptr<const void>
detail::cached_input(char kind, std::size_t n, std::uint64_t seed, double a, double b,
                     std::size_t bytes, const std::function<std::shared_ptr<const void>()>& make) {
    return input_cache().get({kind, n, seed, a, b}, bytes, make);
}

std::shared_ptr<const HostVector<float>> shared_floats(std::size_t n, std::uint64_t seed, float lo,
                                                       float hi) {
    return shared_input<float>('f', n, seed, lo, hi,
                               [&] { return random_floats(n, seed, lo, hi); });
}

std::shared_ptr<const HostVector<int>> shared_ints(std::size_t n, std::uint64_t seed, int lo,
                                                   int hi) {
    return shared_input<int>('i', n, seed, lo, hi, [&] { return random_ints(n, seed, lo, hi); });
}

SharedUpload upload_shared(Device& dev, Queue& q, const std::string& tag,
                           const std::shared_ptr<const void>& host, const void* data,
                           std::size_t bytes) {
    auto& cache = upload_cache();
    std::lock_guard lock(cache.mutex);
    auto& list = cache.by_device[&dev];
    // Another problem's copies, or copies of arrays no longer held, free the device first.
    std::erase_if(list, [&](const UploadEntry& e) { return e.tag != tag || e.host.expired(); });
    for (const auto& e : list)
        if (e.data == data && e.bytes == bytes && e.host.lock() == host)
            return {e.buffer, e.event_ms, e.host_ms, true, e.in_place};
    const SetupTimer setup; // the problem's first upload to this device
    if (std::shared_ptr<Buffer> own = dev.read_in_place(host, data, bytes)) {
        keep_pristine(cache, host, data, bytes);
        list.push_back({tag, host, data, bytes, own, 0, 0, true});
        return {own, 0, 0, false, true};
    }
    std::shared_ptr<Buffer> buf = dev.alloc_bytes(bytes);
    const auto t0 = std::chrono::steady_clock::now();
    const double ms = q.write_bytes(*buf, data, bytes).elapsed_ms();
    const double host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    list.push_back({tag, host, data, bytes, buf, ms, host_ms, false});
    return {buf, ms, host_ms, false};
}

bool input_unchanged(const void* data, std::size_t bytes) {
    auto& cache = upload_cache();
    std::lock_guard lock(cache.mutex);
    const auto it = cache.pristine.find(data);
    if (it == cache.pristine.end() || it->second.bytes != bytes || it->second.host.expired())
        return true;
    const std::byte* kept = it->second.copy.data();
    if (checksum_on_cores(static_cast<const std::byte*>(data), bytes) == it->second.sum)
        return true;
    // The array is the problem's shared input: its owner made it writable memory, and every
    // later row must read it as it was made.
    copy_on_cores(static_cast<std::byte*>(const_cast<void*>(data)), kept, bytes);
    return false;
}

void forget_uploads(Device& dev) {
    auto& cache = upload_cache();
    std::lock_guard lock(cache.mutex);
    cache.by_device.erase(&dev);
}

void release_shared_uploads() {
    release_output_spaces();
    {
        auto& cache = upload_cache();
        std::lock_guard lock(cache.mutex);
        cache.by_device.clear();
        cache.pristine.clear();
    }
    auto& spaces = download_spaces();
    std::lock_guard lock(spaces.mutex);
    spaces.by_key.clear();
}

} // namespace duet::apps
