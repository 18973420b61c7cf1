#pragma once
// A run's programs built up front, in parallel: every step it will run, on every device it runs
// on, before the first timed step. The builds of one run otherwise come one after another, each
// inside its step (a fresh machine's first compare spent most of its time there); built here on a
// few threads they land in the backends' program caches (in memory, and on disk), where each
// step's own build then finds them. Its time is the run's build time, reported apart.
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"

namespace duet::apps {

// What the builds up front did.
struct Prebuilt {
    std::size_t builds = 0; // programs asked for (each step's first build on each device)
    std::size_t failed = 0; // those that did not build: their steps report why when they run
    unsigned threads = 0;   // builds at once
    double ms = 0;          // wall time of all of them
};

// Builds the first build of each of `steps` (per app) on each of `devices` with the defines of a
// run of `cfg`: the user's, the step's and the device profile's (add_step_defines), and those of
// its first shape the device's limits allow (as build_fitting starts). Steps a device refuses
// (Needs) and steps with no shape rule are left to their runs. At most `threads` builds at once
// (0: the host's cores), never more than the builds. Never throws for a build: a failed one is
// counted, and its step's run builds it again and reports it.
Prebuilt prebuild_steps(const std::vector<std::pair<const App*, std::vector<Step>>>& steps,
                        const std::vector<Device*>& devices, const RunConfig& cfg,
                        unsigned threads = 0);

// A row's build facts where its kernel came from a build made up front: the first row to load
// that program (same device, kernel and options) gets the build's own time, cache hit and
// provenance instead of the in-memory copy's, so that a cold run still says what was compiled.
// Nothing changes for a kernel not built up front, or one already claimed.
void claim_prebuilt(Result& r, const Device& dev, const Kernel& k);

} // namespace duet::apps
