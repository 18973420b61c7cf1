#pragma once
// Timed runs: warm-up, the timed launches on the device's events and the host's clock, and the
// rule that says which clock to believe.
#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"

namespace duet::apps {

// Progress for a watchdog (runapp's default one): a step started, a warm-up or timed run
// finished. last_heartbeat() is the latest (the epoch before the first).
void heartbeat();
std::chrono::steady_clock::time_point last_heartbeat();

// Whether to run again after `done` runs that took `spent_ms` on the host clock in all (the
// timed runs) or `last_ms` for the latest (the warm-up), by cfg's counts and budgets.
bool another_run(const RunConfig& cfg, int done, double spent_ms);
bool another_warmup(const RunConfig& cfg, int done, double last_ms);
// `body` run by the rules of cfg (warm-up, then timed runs), each timed on the host's clock.
Stats time_on_host(const RunConfig& cfg, const std::function<void()>& body);

// What happens around each timed run, outside its timed span: `before` (the outputs poisoned
// again, so that each run must do its work), then the run, then `after` with the run's index.
struct AroundRuns {
    std::function<void()> before;
    std::function<void(int run)> after;
};
// Runs `launch` by the rules of cfg: warm-up runs untimed, then the timed runs, each timed on the
// device's events (`launch` returns the first and last Event of one run, the same Event for
// single-launch variants) and on the host (steady_clock from the launch to its completion);
// sets r.kernel_ms, r.host_ms and r.clock from choose_clock. `around`'s hooks run before and
// after each timed run, the queue finished before the clock starts.
void time_runs(Result& r, Queue& q, const RunConfig& cfg,
               const std::function<std::pair<Event, Event>()>& launch,
               const AroundRuns& around = {});

// Which clock to believe for one set of timed runs. device_ms: the event time of each run (NaN
// when an event gave none); host_ms: the host time of each run, from its launch to its
// completion; launches: kernel launches per run. Events are believed when every one is positive
// and finite and their total D against the host total H satisfies
//   D <= H * 1.05 + 0.05 ms  (a device cannot take longer than the wall clock around it) and
//   D >= (H - allowance) / 2, allowance = 0.2 ms per launch + 1 ms
// (host time includes launch overhead events do not, up to the allowance; beyond it a kernel
// cannot be more than twice as fast on the device as the host saw it finish).
struct ClockChoice {
    bool host = false; // use the host times
    std::string clock; // "device events" or "host (events ...: why)"
};
ClockChoice choose_clock(const std::vector<double>& device_ms, const std::vector<double>& host_ms,
                         int launches);

// A blocking transfer of `bytes`: its event's time when choose_clock believes it against the
// host's time around the call (a positive event that agrees with the host) and its figure is
// within `ceiling_gbs` (0: none known), else the host's if that is within it, else 0: no figure.
double transfer_ms(double event_ms, double host_ms, double bytes, double ceiling_gbs);
// Milliseconds on the host clock since t0.
double since_ms(std::chrono::steady_clock::time_point t0);

// "1.234 ms": a time in a note, to four significant digits.
std::string ms_text(double ms);

} // namespace duet::apps
