// Helpers every app shares: size parsing, seeded inputs, poisoning, timing, sampling.
#include <algorithm>
#include <chrono>
#include <limits>
#include <cmath>
#include <thread>
#include <cctype>
#include <numeric>
#include <random>

#include <duet/backend/host_memory.hpp>

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
        dims.push_back(parse_count(text, text.substr(start, x == std::string::npos ? x : x - start)));
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

namespace {
// A host array of `n` elements of `size` bytes must fit in the host's available memory: beyond
// it the allocation thrashes for half a minute and then throws bad_alloc (or a driver asserts).
void check_host_fits(std::size_t n, std::size_t size) {
    const std::uint64_t avail = host_memory_available();
    const double want = double(n) * double(size);
    if (avail > 0 && want > double(avail))
        throw Error::usage("an input of " + std::to_string(n) + " elements needs " +
                           bytes_text(std::uint64_t(want)) + " of host memory, and " +
                           bytes_text(avail) + " is available; give a smaller --size");
}
} // namespace

std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
    check_host_fits(n, sizeof(float));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v)
        x = dist(rng);
    return v;
}

std::vector<int> random_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
    check_host_fits(n, sizeof(int));
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<int> dist(lo, hi);
    std::vector<int> v(n);
    for (auto& x : v)
        x = dist(rng);
    return v;
}

void poison(Queue& q, Buffer& buf) {
    // All-ones is a NaN as float and -1 as int. Written from the host rather than with a fill:
    // Oclgrind 21.10 marks memory from clEnqueueFillBuffer as uninitialised once a kernel has
    // rewritten it, and would report false errors in multi-pass kernels.
    const std::vector<unsigned char> ff(buf.size(), 0xFF);
    q.write_bytes(buf, ff.data(), ff.size());
}

Stats time_runs(Queue& q, const RunConfig& cfg,
                const std::function<std::pair<Event, Event>()>& launch) {
    for (int i = 0; i < cfg.warmup; ++i)
        launch();
    q.finish();
    std::vector<double> ms;
    ms.reserve(static_cast<std::size_t>(std::max(cfg.reps, 0)));
    for (int i = 0; i < cfg.reps; ++i) {
        auto [first, last] = launch();
        ms.push_back(Event::span_ms(first, last));
    }
    q.finish();
    return summarize(std::move(ms));
}

void time_runs(Result& r, Queue& q, const RunConfig& cfg,
               const std::function<std::pair<Event, Event>()>& launch) {
    for (int i = 0; i < cfg.warmup; ++i)
        launch();
    q.finish();
    std::vector<double> device, host;
    const int launches = 2; // a run here is one launch or two (matmul's split K): allow for two
    for (int i = 0; i < cfg.reps; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        auto [first, last] = launch();
        last.wait();
        const auto t1 = std::chrono::steady_clock::now();
        host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        double d = std::nan("");
        try {
            d = Event::span_ms(first, last);
        } catch (const Error& e) {
            if (e.kind() == ErrorKind::usage)
                throw; // a queue without timing: the app's bug, not the device's
        }
        device.push_back(d);
    }
    q.finish();
    const auto choice = choose_clock(device, host, launches);
    r.host_ms = summarize(host);
    r.kernel_ms = choice.host ? r.host_ms : summarize(device);
    r.clock = choice.clock;
}

std::vector<std::size_t> check_indices(std::size_t n, Verify v, std::uint64_t seed) {
    std::vector<std::size_t> idx;
    if (v == Verify::off || n == 0)
        return idx;
    if (v == Verify::full || n <= 4096) {
        idx.resize(n);
        std::iota(idx.begin(), idx.end(), std::size_t{0});
        return idx;
    }
    // Sample: both ends (where boundary bugs live) and a seeded random spread between.
    std::mt19937_64 rng(seed ^ 0x5eed);
    std::uniform_int_distribution<std::size_t> dist(0, n - 1);
    for (std::size_t i = 0; i < 512; ++i) {
        idx.push_back(i);
        idx.push_back(n - 1 - i);
    }
    for (int i = 0; i < 3072; ++i)
        idx.push_back(dist(rng));
    std::sort(idx.begin(), idx.end());
    idx.erase(std::unique(idx.begin(), idx.end()), idx.end());
    return idx;
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
            throw Error::usage(app + ": define " + name + "=" + value + " must be a positive integer");
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

void compare_outputs(Result& r, const std::vector<float>& out,
                     const std::vector<std::size_t>& indices, const std::vector<double>& ref,
                     const std::vector<double>* scale) {
    r.pass = true;
    r.max_error = 0;
    // Every output element, sampled or not: a NaN or Inf anywhere fails.
    for (std::size_t i = 0; i < out.size(); ++i)
        if (!std::isfinite(out[i])) {
            r.pass = false;
            r.max_error = std::numeric_limits<double>::infinity();
            r.note += std::string(r.note.empty() ? "" : "; ") + "FAIL: output " +
                      std::to_string(i) + " is " + (std::isnan(out[i]) ? "NaN" : "Inf");
            return;
        }
    for (std::size_t t = 0; t < indices.size(); ++t) {
        double err = std::fabs(double(out[indices[t]]) - ref[t]);
        if (scale)
            err /= (*scale)[t];
        if (std::isnan(err)) {
            r.pass = false;
            r.max_error = err;
            return;
        }
        r.max_error = std::max(r.max_error, err);
        if (err > r.tolerance)
            r.pass = false;
    }
}

void describe(Result& r, const Device& dev, const Kernel& k, const std::string& app,
              const Variant& v) {
    r.app = app;
    r.variant = v.name;
    r.device_id = dev.info().id();
    r.device_name = dev.info().name;
    r.backend = dev.info().backend;
    r.build_ms = k.build_ms();
    r.cache_hit = k.cache_hit();
    r.build_options = k.build_options();
}

std::array<std::size_t, 2> pick_local(const RunConfig& cfg, std::array<std::size_t, 2> fallback,
                                      const Kernel& k) {
    const auto local = cfg.local ? *cfg.local : fallback;
    if (local[0] * local[1] > k.max_work_group_size()) {
        const std::string msg = "local size " + std::to_string(local[0]) + "x" +
                                std::to_string(local[1]) + " is over the limit of " +
                                std::to_string(k.max_work_group_size()) + " work-items for kernel " +
                                k.name() + " on this device";
        // Asked for by the user: their mistake. The variant's own shape: the device cannot run it.
        if (cfg.local)
            throw Error::usage(msg);
        throw Error(ErrorKind::unsupported, "", "", 0, "", msg);
    }
    return local;
}

const App& find_app(const std::string& name) {
    std::string names;
    for (const App* a : all_apps()) {
        if (a->name() == name)
            return *a;
        names += (names.empty() ? "" : ", ") + a->name();
    }
    throw Error::usage("unknown app '" + name + "'; the apps are: " + names);
}

std::vector<Variant> select_variants(const App& app, const std::string& spec) {
    const auto all = app.variants();
    if (spec.empty() || spec == "all")
        return all;
    std::vector<Variant> out;
    std::size_t start = 0;
    for (;;) {
        const auto comma = spec.find(',', start);
        const std::string name = spec.substr(start, comma == std::string::npos ? comma : comma - start);
        auto it = std::find_if(all.begin(), all.end(), [&](const Variant& v) { return v.name == name; });
        if (it == all.end()) {
            std::string names;
            for (const auto& v : all)
                names += (names.empty() ? "" : ", ") + v.name;
            throw Error::usage("app " + app.name() + " has no variant '" + name +
                               "'; its variants are: " + names);
        }
        out.push_back(*it);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return out;
}

} // namespace duet::apps
