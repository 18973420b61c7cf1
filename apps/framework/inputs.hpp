#pragma once
// What the apps share to set up a run: sizes, seeded inputs, the CPU reference cache, the
// work split of CPU references, the tunable defines and the work-group the user asked for.
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"
#include "problem.hpp"
#include "setup_clock.hpp"

namespace duet::apps {

// Keeps the values computed for the last two keys: the CPU reference of a problem, shared by the
// variants of a ladder and by the devices that run it (their inputs depend only on the sizes and
// the seed). Two, so that a device with a size of its own between two that share one (a CPU
// between two views of one GPU in `compare`) does not make the first problem's again.
// Thread-safe.
template <class Key, class Value> class RecentValues {
  public:
    // The value for `key`, computed by `compute()` unless it is held; the older of two is
    // freed before a new one is computed (at large sizes a value is big).
    template <class F> std::shared_ptr<const Value> get(const Key& key, F&& compute) {
        std::lock_guard lock(mutex_);
        for (int i = 0; i < 2; ++i)
            if (held_[i].value && held_[i].key == key) {
                if (i == 1)
                    std::swap(held_[0], held_[1]); // most recent first
                return held_[0].value;
            }
        held_[1] = std::move(held_[0]);
        held_[0] = {};
        const SetupTimer setup; // made once for every row of the problem
        held_[0] = {key, compute()};
        return held_[0].value;
    }

  private:
    struct Held {
        Key key{};
        std::shared_ptr<const Value> value;
    };
    std::mutex mutex_;
    Held held_[2];
};

// Parses "4096", "2^20", "16M", "64k", "1024x768" into dims; rejects 0, negatives, junk.
std::vector<std::size_t> parse_dims(const std::string& text);
// "1024x768"
std::string dims_label(const std::vector<std::size_t>& dims);
// A usage Error when `n` elements of `size` bytes each (every host array of a run together,
// e.g. 3 x 4 bytes for vecadd's a, b and c) exceed the host's available memory; `what` names
// them in the message ("an input" when empty). random_floats/random_ints check their own array.
void check_host_fits(std::size_t n, std::size_t size, const std::string& what = {});
// A usage Error when one buffer of `bytes` is over the device's largest allocation, checked
// before the inputs are made (a 2e9-value reduction generated 8 GB for 49 s, then the driver
// refused the buffer); `what` names the buffer.
void check_device_alloc(const DeviceInfo& info, double bytes, const std::string& what);
// Seeded uniform floats in [lo, hi): element i is uniform_float(counter_random(seed, i))
// (problem.hpp), made on every core. shared_floats keeps one copy for every variant and device.
HostVector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.f, float hi = 1.f);
// Seeded uniform ints in [lo, hi], element i from counter_random(seed, i).
HostVector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi);
// The value of macro `name` among cfg.defines, or `fallback`: the host sizes launches with the
// same tunables the kernels are compiled with. A value that is not a positive integer is a usage
// Error naming `app`.
std::size_t define_or(const RunConfig& cfg, const std::string& app, const std::string& name,
                      std::size_t fallback);
// Runs work(begin, end) over [0, n), split across the CPU's cores, each part at least `grain`
// items: the CPU references of the big apps.
void parallel_for(std::size_t n, std::size_t grain,
                  const std::function<void(std::size_t, std::size_t)>& work);
// The local size to use: cfg.local if given, else `fallback`, checked against the kernel.
std::array<std::size_t, 2> pick_local(const RunConfig& cfg, std::array<std::size_t, 2> fallback,
                                      const Kernel& k);

} // namespace duet::apps
