#pragma once
// The steps every App::run shares, in one place: the wall clock, the step's build in its shape
// (fitted to the device, or as the user gave it), the result's device and build facts, the
// queue, inputs uploaded (and the perturbing test hook), outputs guarded and poisoned, the
// timed runs, downloads, guard checks, the --size auto note and the wall time. An app's run()
// keeps only what is its own: sizes, inputs, launch ranges, the launch and the check.
#include <array>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <duet/duet.hpp>

#include "app.hpp"
#include "auto_size.hpp"
#include "problem.hpp"
#include "setup_clock.hpp"
#include "timing.hpp"

namespace duet::apps {

// Fills the device fields and build facts of a Result.
void describe(Result& r, const Device& dev, const Kernel& k, const std::string& app,
              const Variant& v);

class StepRun {
  public:
    // Starts the wall clock of one run of `step` of `app` on `dev`.
    StepRun(Device& dev, const App& app, const Step& step, const RunConfig& cfg);
    // Waits for the queue (a run that threw may have work in flight), then lets the outputs'
    // memory go to the next run.
    ~StepRun();
    StepRun(const StepRun&) = delete;
    StepRun& operator=(const StepRun&) = delete;

    Result r; // the row this run fills in

    // Builds the step's kernel with `opts` plus the defines of the first of `shapes` the device
    // and the compiled kernel allow (build_fitting); a shape other than the textbook one says so
    // in the note. Empty `shapes`: the step's own (its record's shape rule).
    Kernel& build(const BuildOptions& opts, std::vector<Shape> shapes = {});
    // Builds the kernel with `opts` as given: the user's shape, used as given or an error. Set
    // the launch shape with shape() (pick_local checks a work-group against the kernel).
    Kernel& build_as_given(const BuildOptions& opts);
    Kernel& kernel() { return *fit_.kernel; }
    Shape& shape() { return fit_.shape; }
    const Fitted& fitted() const { return fit_; }

    Queue& queue();
    // Allocates a device copy of `host`, uploads it (timed, transfer_ms: r.h2d_ms, r.h2d_bytes) and
    // applies the test hook RunConfig::perturb_input to it: inputs are numbered in the order
    // uploaded.
    template <class T, class A> std::unique_ptr<Buffer> upload(const std::vector<T, A>& host) {
        auto buf = dev_.alloc<T>(host.size());
        const auto t0 = std::chrono::steady_clock::now();
        const double event_ms =
            queue().write_bytes(*buf, host.data(), host.size() * sizeof(T)).elapsed_ms();
        const double bytes = double(host.size()) * sizeof(T);
        r.h2d_ms += transfer_ms(event_ms, since_ms(t0), bytes, ceiling_gbs());
        r.h2d_bytes += double(host.size()) * sizeof(T);
        perturb(cfg_, inputs_++, queue(), *buf, sizeof(T));
        return buf;
    }
    // The device copy of a shared input (problem.hpp): uploaded once per device and problem and
    // reused by the other variants, r.h2d_ms the first upload's time (transfer_ms); where the
    // device reads host memory in place (a CPU device), the host array itself. With the
    // perturbing test hook set, a private copy (the hook changes it on the device).
    template <class T>
    std::shared_ptr<Buffer> upload(const std::shared_ptr<const HostVector<T>>& host) {
        if (cfg_.perturb_input >= 0)
            return upload(*host);
        const double bytes = double(host->size()) * sizeof(T);
        const auto up = upload_shared(dev_, queue(), problem_tag(), host, host->data(),
                                      host->size() * sizeof(T));
        if (!up.in_place) { // read in place: no transfer, so no figure
            r.h2d_ms += transfer_ms(up.event_ms, up.host_ms, bytes, ceiling_gbs());
            r.h2d_bytes += bytes;
        } else { // checked after the runs (check_inputs)
            in_place_.push_back({inputs_, host->data(), host->size() * sizeof(T)});
        }
        ++inputs_;
        return up.buffer;
    }
    // An output of `used_bytes` with guard zones on both sides, poisoned (GuardedOutput); it
    // lives as long as this StepRun (never null).
    Buffer* output(std::size_t used_bytes);
    // The timed runs (time_runs): r.kernel_ms, r.host_ms, r.clock. Every output is poisoned
    // again before each timed run (outside its timed span), and after each a piece of each output
    // at a random place is read back: a run that left it poisoned where the last run wrote it
    // fails the row (it skipped its work). Inputs read in place are checked after the runs
    // (check_inputs).
    void time(const std::function<std::pair<Event, Event>()>& launch);
    // Downloads the first `n` elements of `buf` (timed, transfer_ms: r.d2h_ms, r.d2h_bytes) into
    // pinned host memory this thread reuses from run to run (download_space): a GiB output would
    // otherwise fault in a GiB of new pages for every variant and cross the bus at pageable
    // speed. Valid until the thread's next download from this device.
    template <class T> std::span<const T> download(const Buffer& buf, std::size_t n) {
        const auto space = download_space(dev_, n * sizeof(T));
        const auto t0 = std::chrono::steady_clock::now();
        const double event_ms = queue().read_bytes(buf, space.data(), n * sizeof(T)).elapsed_ms();
        r.d2h_ms = transfer_ms(event_ms, since_ms(t0), double(n) * sizeof(T), ceiling_gbs());
        r.d2h_bytes = double(n) * sizeof(T);
        mark(&Result::WallParts::download);
        return {reinterpret_cast<const T*>(space.data()), n};
    }
    // Fails r when a kernel wrote outside any output (GuardedOutput::check), when a checking
    // device (Device::checker_reports) reported errors during this run, or for what the timed
    // runs found (a run that skipped its work, an input a kernel changed).
    void check_guards();
    // The device's plausible bytes per second (plausible_ceiling), for transfer_ms.
    double ceiling_gbs() const;
    // Appends to the note ("; " between parts).
    void note(const std::string& text);
    // The result: the --size auto note of `model` when the size was the device's, the wall time.
    // A failed row's device copies of the shared inputs are forgotten, so that the next row
    // uploads them anew.
    Result finish(const SizeModel& model);

  private:
    // An input the device reads in place: the host array itself, which a kernel could change.
    struct InPlace {
        int index; // in the order uploaded
        const void* data;
        std::size_t bytes;
    };
    // A piece of an output a timed run left poisoned (probe_outputs).
    struct Unwritten {
        int run;
        std::size_t output, offset, bytes;
    };
    std::string problem_tag() const;
    // Reads a piece of each output at a random place after timed run `run`; a piece all poison
    // is kept in unwritten_.
    void probe_outputs(int run);
    // Whether the `bytes` of `out` from `offset` (at most 64) are all the poison's 0xFF.
    bool poisoned(const Buffer& out, std::size_t offset, std::size_t bytes);
    // Fails (failed_) when a piece a timed run left poisoned holds a value after the last run.
    void check_unwritten(int runs);
    // Fails (failed_) and restores the arrays when a kernel changed an input read in place.
    void check_inputs();
    // failed_'s notes into r, once.
    void apply_failures();
    // The host time since the last mark goes to `part` of r.wall_parts, less the set-up made in
    // it (setup_clock.hpp), which goes to the set-up.
    void mark(double Result::WallParts::*part);
    Device& dev_;
    const App& app_;
    const Step& step_;
    const RunConfig& cfg_;
    std::chrono::steady_clock::time_point t0_, last_mark_;
    double setup_at_mark_ = 0;  // setup_ms_so_far() at the last mark
    double poison_at_mark_ = 0; // r.wall_parts.poison at the last mark
    std::unique_ptr<Queue> queue_;
    Fitted fit_;
    int inputs_ = 0;
    long long reports_ = -1; // the device's checker_reports() when the run started
    std::vector<std::unique_ptr<GuardedOutput>> outputs_;
    std::vector<InPlace> in_place_;
    std::vector<Unwritten> unwritten_;
    std::vector<std::string> failed_; // "FAIL: ..." notes not yet in r
};

} // namespace duet::apps
