// Timed runs and which clock to believe (timing.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "app.hpp"

namespace duet::apps {

std::string ms_text(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g ms", v);
    return buf;
}

namespace {
std::atomic<std::chrono::steady_clock::rep> last_beat{0};

// Calls `run` as cfg's warm-up says (its count, and its budget on the host clock).
void warm_up(const RunConfig& cfg, const std::function<void()>& run) {
    double last = 0;
    for (int i = 0; another_warmup(cfg, i, last); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        last = since_ms(t0);
    }
}
} // namespace

bool another_run(const RunConfig& cfg, int done, double spent_ms) {
    if (done >= cfg.reps)
        return false;
    return cfg.reps_budget_ms <= 0 || done < 3 || spent_ms < cfg.reps_budget_ms;
}

bool another_warmup(const RunConfig& cfg, int done, double last_ms) {
    if (done >= cfg.warmup)
        return false;
    return cfg.warmup_budget_ms <= 0 || done == 0 || last_ms < cfg.warmup_budget_ms;
}

Stats time_on_host(const RunConfig& cfg, const std::function<void()>& body) {
    warm_up(cfg, body);
    std::vector<double> ms;
    double spent = 0;
    while (another_run(cfg, int(ms.size()), spent)) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        ms.push_back(since_ms(t0));
        spent += ms.back();
    }
    return summarize(std::move(ms));
}

void heartbeat() {
    last_beat.store(std::chrono::steady_clock::now().time_since_epoch().count());
}

std::chrono::steady_clock::time_point last_heartbeat() {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_beat.load()));
}

double transfer_ms(double event_ms, double host_ms, double bytes, double ceiling_gbs) {
    const auto plausible = [&](double ms) {
        return ms > 0 && (ceiling_gbs <= 0 || bytes / (ms * 1e6) <= ceiling_gbs);
    };
    if (!choose_clock({event_ms}, {host_ms}, 1).host && plausible(event_ms))
        return event_ms;
    return plausible(host_ms) ? host_ms : 0;
}

double since_ms(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void time_runs(Result& r, Queue& q, const RunConfig& cfg,
               const std::function<std::pair<Event, Event>()>& launch, const AroundRuns& around) {
    // Each warm-up run waited for (a heartbeat each: one long kernel is progress too).
    warm_up(cfg, [&] {
        launch();
        q.finish();
        heartbeat();
    });
    q.finish();
    std::vector<double> device, host;
    const int launches = 2; // a run here is one launch or two (matmul's split K): allow for two
    double spent = 0;
    while (another_run(cfg, int(host.size()), spent)) {
        const auto p0 = std::chrono::steady_clock::now();
        if (around.before) { // outside the timed span: done before the clock starts
            around.before();
            q.finish();
        }
        const auto t0 = std::chrono::steady_clock::now();
        auto [first, last] = launch();
        last.wait();
        const auto t1 = std::chrono::steady_clock::now();
        heartbeat();
        if (around.after)
            around.after(int(host.size()));
        r.wall_parts.poison +=
            since_ms(p0) - std::chrono::duration<double, std::milli>(t1 - t0).count();
        host.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
        spent += host.back();
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

ClockChoice choose_clock(const std::vector<double>& device_ms, const std::vector<double>& host_ms,
                         int launches) {
    double d = 0, h = 0;
    for (double v : host_ms)
        h += v;
    for (double v : device_ms) {
        if (!std::isfinite(v))
            return {true, "host (events gave no time)"};
        if (v <= 0)
            return {true, "host (events gave zero time)"};
        d += v;
    }
    if (device_ms.empty())
        return {false, "device events"};
    const double allowance = 0.2 * double(std::max(launches, 1)) * double(device_ms.size()) + 1.0;
    if (d > h * 1.05 + 0.05)
        return {true, "host (events disagreed: " + ms_text(d) + " on the device, longer than " +
                          ms_text(h) + " on the host)"};
    if (d < (h - allowance) / 2)
        return {true, "host (events disagreed: " + ms_text(d) + " on the device, under half of " +
                          ms_text(h) + " on the host less " + ms_text(allowance) +
                          " of launch overhead)"};
    return {false, "device events"};
}

} // namespace duet::apps
