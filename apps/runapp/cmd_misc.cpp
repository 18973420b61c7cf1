// runapp cache and runapp bandwidth.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "commands.hpp"
#include "inputs.hpp"
#include "output.hpp"

namespace runapp {

int cmd_cache(const Cli& c) {
    const auto cache = duet::program_cache_status();
    const std::string sub = c.positional.empty() ? "ls" : c.positional[0];
    if (c.positional.size() > 1 || (sub != "ls" && sub != "clear"))
        throw duet::Error::usage("runapp cache takes ls or clear");
    if (cache.dir.empty()) {
        std::cout << "the program cache is off (DUET_CACHE_DIR is empty and no HOME)\n";
        return 0;
    }
    if (sub == "clear" && !cache.enabled)
        throw duet::Error::unavailable(
            "the program cache is off (" + cache.why_off +
            "); nothing was removed from a directory Duet does not trust");
    if (sub == "clear") {
        // Only files that are Duet entries by their header go; anything else (a user's file,
        // a link) stays where it is, whatever its name.
        const auto all = duet::program_cache_list();
        const auto others = std::count_if(all.begin(), all.end(),
                                          [](auto& e) { return !e.duet_entry && !e.unfinished; });
        std::cout << "removed " << duet::program_cache_clear()
                  << " entries and unfinished writes from " << printable(cache.dir) << "\n";
        if (others)
            std::cout << "left " << others << " .bin file(s) that are not Duet cache entries\n";
        return 0;
    }
    const auto entries = duet::program_cache_list();
    std::uint64_t total = 0;
    Table t({"bytes", "program", "file"});
    for (const auto& e : entries) {
        total += e.bytes;
        t.add({std::to_string(e.bytes), e.description, e.path});
    }
    std::cout << printable("cache " + cache.dir +
                           (cache.enabled ? "" : " (off: " + cache.why_off + ")"))
              << ": " << entries.size() << " entries, " << total << " bytes\n";
    if (!t.empty())
        t.print(std::cout);
    return 0;
}

namespace {

struct Sample {
    std::string what;
    double ms, gbs;
};

} // namespace

int cmd_bandwidth(const Cli& c) {
    std::vector<duet::Device*> devs;
    if (!c.device.empty() || !c.backend.empty())
        devs.push_back(&chosen_device(c));
    else
        devs = duet::devices();
    if (devs.empty())
        throw duet::Error::unavailable(
            "no device to measure; run `runapp list` or `runapp doctor`");
    std::size_t bytes = 64u << 20;
    if (!c.sizes.empty()) {
        auto d = duet::apps::parse_dims(c.sizes[0]);
        if (d.size() != 1)
            throw duet::Error::usage("bandwidth --size is one byte count, e.g. 256M");
        bytes = d[0];
    }
    // As the apps are: checked against the host's limits (ulimit -v, the memory cgroup) and
    // each device's largest allocation before anything is made. The host holds a pageable and
    // a pinned copy, and a CPU device's two buffers too.
    for (auto* dev : devs) {
        const std::size_t arrays = dev->info().is_cpu() ? 4 : 2;
        const std::string what = "bandwidth on " + dev->info().id() + " (" +
                                 std::to_string(arrays) + " arrays of " + duet::bytes_text(bytes) +
                                 ")";
        duet::apps::check_device_alloc(dev->info(), double(bytes), what);
        duet::apps::check_host_fits(arrays, bytes, what);
    }
    nlohmann::json out = nlohmann::json::array();
    for (auto* dev : devs) {
        auto q = dev->create_queue(duet::QueueOptions::timed());
        auto a = dev->alloc_bytes(bytes), b = dev->alloc_bytes(bytes);
        std::vector<unsigned char> pageable(bytes, 1);
        auto pinned = dev->alloc_host(bytes);
        std::fill_n(static_cast<unsigned char*>(pinned->data()), bytes, 1);
        // Each copy on its events where the host clock around it agrees (transfer_ms), else on
        // the host's; a figure over the device's plausible ceiling is not given (0: "-", null).
        const double ceiling = duet::apps::plausible_ceiling(dev->info()).gbs;
        auto measure = [&](const std::string& what, auto op) {
            for (int i = 0; i < c.warmup; ++i)
                op().wait();
            std::vector<double> ms;
            for (int i = 0; i < c.reps; ++i) {
                const auto t0 = std::chrono::steady_clock::now();
                auto e = op();
                e.wait();
                const double host_ms = duet::apps::since_ms(t0);
                ms.push_back(duet::apps::transfer_ms(
                    e.elapsed_ms(), host_ms, double(bytes) * (what == "device->device" ? 2 : 1),
                    ceiling));
            }
            const auto s = duet::summarize(ms);
            return Sample{what, s.median, double(bytes) / (s.median * 1e6)};
        };
        std::vector<Sample> samples = {
            measure("host->device pageable",
                    [&] { return q->write_bytes(*a, pageable.data(), bytes); }),
            measure("device->host pageable",
                    [&] { return q->read_bytes(*a, pageable.data(), bytes); }),
            measure(std::string("host->device ") +
                        (pinned->pinned() ? "pinned" : "pinned (unavailable)"),
                    [&] { return q->write_bytes(*a, pinned->data(), bytes); }),
            measure(std::string("device->host ") +
                        (pinned->pinned() ? "pinned" : "pinned (unavailable)"),
                    [&] { return q->read_bytes(*a, pinned->data(), bytes); }),
            measure("device->device", [&] { return q->copy(*a, *b, bytes); }),
        };
        // Device-to-device moves the bytes twice (read + write), as bandwidthTest counts it.
        samples.back().gbs *= 2;
        for (auto& s : samples)
            if (!(s.gbs > 0) || !std::isfinite(s.gbs) || (ceiling > 0 && s.gbs > ceiling))
                s.gbs = 0; // implausible: no figure
        if (c.format == Format::table) {
            std::cout << dev->label() << ", " << bytes << " bytes, median of " << c.reps << "\n";
            Table t({"transfer", "ms", "GB/s"});
            for (const auto& s : samples)
                t.add({s.what, fmt("%.3f", s.ms), s.gbs > 0 ? fmt("%.2f", s.gbs) : "-"});
            t.print(std::cout);
            std::cout << "\n";
        }
        for (const auto& s : samples)
            out.push_back({{"device_id", dev->info().id()},
                           {"device", dev->info().name},
                           {"transfer", s.what},
                           {"bytes", bytes},
                           {"ms", s.ms},
                           {"gbs", s.gbs > 0 ? nlohmann::json(s.gbs) : nlohmann::json()}});
    }
    if (c.format == Format::json)
        std::cout << dump_json(nlohmann::json{{"duet_version", duet::version}, {"results", out}})
                  << "\n";
    else if (c.format == Format::csv) {
        std::cout << "device_id,transfer,bytes,ms,gbs\n";
        for (const auto& r : out)
            std::cout << r["device_id"].get<std::string>() << ","
                      << r["transfer"].get<std::string>() << "," << r["bytes"] << "," << r["ms"]
                      << "," << (r["gbs"].is_null() ? std::string() : r["gbs"].dump()) << "\n";
    }
    return 0;
}

} // namespace runapp
