// What the apps share to set up a run (inputs.hpp): sizes, seeded inputs, defines, the
// work split of CPU references, the work-group the user asked for.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <thread>

#include <duet/duet.hpp>

#include "app.hpp"

namespace duet::apps {

namespace {

// Parses one positive count: "4096", "2^20", "16M", "64k".
std::size_t parse_count(const std::string& whole, const std::string& t) {
    auto bad = [&](const std::string& why) {
        return Error::usage("size '" + whole + "': " + why +
                            " (give a positive count such as 4096, 2^20, 16M, or WxH)");
    };
    if (t.empty())
        throw bad("an empty dimension");
    if (t[0] == '-')
        throw bad("negative");
    std::size_t value = 0;
    if (const auto caret = t.find('^'); caret != std::string::npos) {
        const std::string base = t.substr(0, caret), exp = t.substr(caret + 1);
        if (base != "2" || exp.empty() || exp.size() > 2 ||
            !std::all_of(exp.begin(), exp.end(), ::isdigit) || std::stoi(exp) > 40)
            throw bad("only powers of two up to 2^40 are understood");
        value = std::size_t{1} << std::stoi(exp);
    } else {
        std::size_t digits = 0;
        while (digits < t.size() && std::isdigit(static_cast<unsigned char>(t[digits])))
            ++digits;
        if (digits == 0 || digits > 12)
            throw bad("'" + t + "' is not a number");
        value = std::stoull(t.substr(0, digits));
        const std::string suffix = t.substr(digits);
        int shift = 0;
        if (suffix == "k" || suffix == "K")
            shift = 10;
        else if (suffix == "M" || suffix == "m")
            shift = 20;
        else if (suffix == "G" || suffix == "g")
            shift = 30;
        else if (!suffix.empty())
            throw bad("'" + t + "' is not a number");
        // Twelve digits and a G overflow 64 bits; unchecked, "17179869185G" would read as 1G.
        if (value > (std::size_t{1} << 40) >> shift)
            throw bad("'" + t + "' is too large");
        value <<= shift;
    }
    if (value == 0)
        throw bad("zero");
    return value;
}

} // namespace

std::vector<std::size_t> parse_dims(const std::string& text) {
    std::vector<std::size_t> dims;
    std::size_t start = 0;
    for (;;) {
        const auto x = text.find('x', start);
        dims.push_back(
            parse_count(text, text.substr(start, x == std::string::npos ? x : x - start)));
        if (x == std::string::npos)
            break;
        start = x + 1;
    }
    return dims;
}

std::vector<std::size_t> App::parse_size(const std::string& text) const {
    return text == "auto" ? std::vector<std::size_t>{} : parse_dims(text);
}

std::string dims_label(const std::vector<std::size_t>& dims) {
    std::string s;
    for (auto d : dims) {
        if (!s.empty())
            s += 'x';
        s += std::to_string(d);
    }
    return s;
}

// Beyond the host's available memory an allocation thrashes for half a minute and then throws
// bad_alloc (or a driver asserts): checked before anything is made.
void check_host_fits(std::size_t n, std::size_t size, const std::string& what) {
    const std::uint64_t avail = host_memory_available();
    const double want = double(n) * double(size);
    if (avail > 0 && want > double(avail))
        throw Error::usage((what.empty() ? "an input" : what) + ": " + std::to_string(n) +
                           " elements need " + bytes_text(std::uint64_t(want)) +
                           " of host memory, and " + bytes_text(avail) +
                           " is available; give a smaller --size");
}

void check_device_alloc(const DeviceInfo& info, double bytes, const std::string& what) {
    if (info.max_alloc_bytes > 0 && bytes > double(info.max_alloc_bytes))
        throw Error::usage(what + ": " + bytes_text(std::uint64_t(bytes)) +
                           " in one buffer, over " + info.id() + "'s largest allocation (" +
                           bytes_text(info.max_alloc_bytes) + "); give a smaller --size");
}

std::size_t define_or(const RunConfig& cfg, const std::string& app, const std::string& name,
                      std::size_t fallback) {
    for (const auto& [key, value] : cfg.defines) {
        if (key != name)
            continue;
        std::size_t pos = 0;
        long long v = -1;
        try {
            v = std::stoll(value, &pos);
        } catch (const std::exception&) {
        }
        if (pos != value.size() || v <= 0)
            throw Error::usage(app + ": define " + name + "=" + value +
                               " must be a positive integer");
        return static_cast<std::size_t>(v);
    }
    return fallback;
}

void parallel_for(std::size_t n, std::size_t grain,
                  const std::function<void(std::size_t, std::size_t)>& work) {
    const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1,
                                                        std::max<std::size_t>(1, n / grain));
    std::vector<std::thread> pool;
    for (std::size_t w = 1; w < threads; ++w)
        pool.emplace_back(work, n * w / threads, n * (w + 1) / threads);
    work(0, n / threads);
    for (auto& t : pool)
        t.join();
}

std::array<std::size_t, 2> pick_local(const RunConfig& cfg, std::array<std::size_t, 2> fallback,
                                      const Kernel& k) {
    const auto local = cfg.local ? *cfg.local : fallback;
    if (local[0] * local[1] > k.max_work_group_size()) {
        const std::string msg = "local size " + std::to_string(local[0]) + "x" +
                                std::to_string(local[1]) + " is over the limit of " +
                                std::to_string(k.max_work_group_size()) +
                                " work-items for kernel " + k.name() + " on this device";
        // Asked for by the user: their mistake. The variant's own shape: the device cannot run it.
        if (cfg.local)
            throw Error::usage(msg);
        throw Error::unsupported(msg);
    }
    return local;
}

} // namespace duet::apps
