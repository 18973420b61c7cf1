// The steps every App::run shares (run.hpp).
#include "run.hpp"

#include <algorithm>
#include <mutex>
#include <random>
#include <set>

#include "step_prebuild.hpp"

namespace duet::apps {

void describe(Result& r, const Device& dev, const Kernel& k, const std::string& app,
              const Variant& v) {
    r.app = app;
    r.variant = v.name;
    r.device_id = dev.info().id();
    r.device_name = dev.info().name;
    r.backend = dev.info().backend;
    r.build_ms = k.build_ms();
    r.cache_hit = k.cache_hit();
    r.provenance = duet::provenance_name(k.provenance());
    r.build_options = k.build_options();
    claim_prebuilt(r, dev, k); // built up front (step_prebuild.hpp): that build's facts
}

namespace {

// The device's own start-up, once per device in the process and counted as set-up: the driver
// makes its context, memory pools and copy paths on first use (over 100 ms on a GPU), which no
// step of any app should carry in its own figures.
void start_up(Device& dev) {
    static std::mutex mutex;
    static std::set<const Device*> started;
    {
        std::lock_guard lock(mutex);
        if (!started.insert(&dev).second)
            return;
    }
    const SetupTimer setup;
    auto q = dev.create_queue();
    auto buf = dev.alloc_bytes(4096);
    const unsigned char ff = 0xFF;
    q->fill_bytes(*buf, &ff, 1, buf->size());
    q->finish();
}

// The output's own bytes: without a front zone (no views, a checking device) the buffer kernels
// get holds the zone after the end too (guard.hpp).
std::size_t used_bytes(const GuardedOutput& out) {
    return out.buffer().size() - (out.front_bytes() == 0 ? out.back_bytes() : 0);
}

} // namespace

StepRun::StepRun(Device& dev, const App& app, const Step& step, const RunConfig& cfg)
    : dev_(dev), app_(app), step_(step), cfg_(cfg), t0_(std::chrono::steady_clock::now()),
      last_mark_(t0_), setup_at_mark_(setup_ms_so_far()) {
    r.seed = cfg.seed;
    heartbeat(); // a new step: the watchdog's clock starts again
    start_up(dev);
    reports_ = dev.checker_reports();
}

StepRun::~StepRun() {
    if (queue_)
        try {
            queue_->finish();
        } catch (...) { // the run's own error is the one to report
        }
}

Kernel& StepRun::build(const BuildOptions& opts, std::vector<Shape> shapes) {
    if (shapes.empty())
        shapes = shapes_of(step_, cfg_, dev_.info());
    fit_ = build_fitting(dev_, step_.kernel, opts, shapes, step_.name);
    note(shape_note(step_.name, fit_));
    describe(r, dev_, *fit_.kernel, app_.name(), step_);
    mark(&Result::WallParts::build);
    return *fit_.kernel;
}

Kernel& StepRun::build_as_given(const BuildOptions& opts) {
    fit_.kernel = dev_.load_kernel(step_.kernel, opts);
    describe(r, dev_, *fit_.kernel, app_.name(), step_);
    mark(&Result::WallParts::build);
    return *fit_.kernel;
}

Queue& StepRun::queue() {
    if (!queue_)
        queue_ = dev_.create_queue(QueueOptions::timed());
    return *queue_;
}

std::string StepRun::problem_tag() const {
    return app_.name() + "/" + dims_label(cfg_.size) + "/" + std::to_string(cfg_.seed);
}

Buffer* StepRun::output(std::size_t used_bytes) {
    outputs_.push_back(std::make_unique<GuardedOutput>(dev_, queue(), used_bytes));
    return &outputs_.back()->buffer();
}

void StepRun::time(const std::function<std::pair<Event, Event>()>& launch) {
    mark(&Result::WallParts::buffers);
    AroundRuns around;
    // Each timed run starts from the poison, as the first did: filled on the device (a host
    // write of the whole output before each run would cost a transfer), except on a checking
    // device, which takes poison()'s host write (Oclgrind: guard.hpp).
    const bool fill = dev_.checker_reports() < 0;
    around.before = [this, fill] {
        const unsigned char ff = 0xFF;
        static const std::vector<unsigned char> block(std::size_t{16} << 20, ff);
        for (const auto& out : outputs_) {
            const std::size_t used = used_bytes(*out);
            if (fill || used > block.size())
                queue().fill_bytes(out->buffer(), &ff, 1, used);
            else
                queue().write_bytes(out->buffer(), block.data(), used);
        }
    };
    around.after = [this](int run) { probe_outputs(run); };
    time_runs(r, queue(), cfg_, launch, around);
    check_unwritten(int(r.host_ms.count));
    check_inputs(); // before the app's check reads the inputs for its reference
    mark(&Result::WallParts::runs);
}

void StepRun::probe_outputs(int run) {
    static thread_local std::mt19937_64 rng{std::random_device{}()}; // places no kernel knows
    for (std::size_t i = 0; i < outputs_.size(); ++i) {
        const Buffer& out = outputs_[i]->buffer();
        const std::size_t used = used_bytes(*outputs_[i]);
        const std::size_t bytes = std::min<std::size_t>(used, 64) / 4 * 4;
        if (bytes == 0)
            continue;
        const std::size_t offset =
            std::uniform_int_distribution<std::size_t>(0, (used - bytes) / 4)(rng) * 4;
        if (poisoned(out, offset, bytes))
            unwritten_.push_back({run, i, offset, bytes});
    }
}

bool StepRun::poisoned(const Buffer& out, std::size_t offset, std::size_t bytes) {
    unsigned char piece[64];
    queue().read_bytes(out, piece, bytes, offset);
    return std::all_of(piece, piece + bytes, [](unsigned char b) { return b == 0xFF; });
}

void StepRun::check_unwritten(int runs) {
    for (const auto& u : unwritten_) {
        if (poisoned(outputs_[u.output]->buffer(), u.offset, u.bytes))
            continue; // the last run did not write it either: the check judges the output
        failed_.push_back("FAIL: timed run " + std::to_string(u.run + 1) + " of " +
                          std::to_string(runs) + " did not write output " +
                          std::to_string(u.output + 1) + " (its bytes " + std::to_string(u.offset) +
                          ".." + std::to_string(u.offset + u.bytes - 1) +
                          " still held the poison the run started with, which the last run "
                          "replaced): a run that skips its work has no honest time");
        break;
    }
    unwritten_.clear();
}

void StepRun::check_inputs() {
    for (const auto& in : in_place_)
        if (!input_unchanged(in.data, in.bytes))
            failed_.push_back("FAIL: the kernel changed input " + std::to_string(in.index + 1) +
                              " (in the order the app uploads them, " + std::to_string(in.bytes) +
                              " bytes), which " + dev_.info().id() +
                              " reads in place; restored as made for the check and the rows after");
}

void StepRun::apply_failures() {
    if (failed_.empty())
        return;
    r.pass = false;
    r.verified = true;
    for (const auto& f : failed_)
        note(f);
    failed_.clear();
}

void StepRun::mark(double Result::WallParts::*part) {
    const auto now = std::chrono::steady_clock::now();
    const double setup = setup_ms_so_far();
    const double made = setup - setup_at_mark_;
    // The re-poisoning between timed runs is a part of its own (time_runs adds it).
    const double poisoned = r.wall_parts.poison - poison_at_mark_;
    r.wall_parts.*part += std::max(
        0.0, std::chrono::duration<double, std::milli>(now - last_mark_).count() - made - poisoned);
    r.wall_parts.setup += made;
    last_mark_ = now;
    setup_at_mark_ = setup;
    poison_at_mark_ = r.wall_parts.poison;
}

void StepRun::check_guards() {
    apply_failures();
    for (const auto& out : outputs_)
        out->check(r, queue());
    queue().finish();
    if (const long long now = dev_.checker_reports(); reports_ >= 0 && now > reports_) {
        r.pass = false;
        r.verified = true;
        note("FAIL: " + dev_.info().platform + " reported " + std::to_string(now - reports_) +
             " error(s) or warning(s) during this run (its messages are on stderr)");
    }
}

double StepRun::ceiling_gbs() const {
    return plausible_ceiling(dev_.info()).gbs;
}

void StepRun::note(const std::string& text) {
    if (!text.empty())
        r.note += (r.note.empty() ? "" : "; ") + text;
}

Result StepRun::finish(const SizeModel& model) {
    apply_failures();          // where the app checked nothing (--verify off)
    if (!r.pass && r.verified) // its kernel may have changed the device's copies of the inputs
        forget_uploads(dev_);
    if (cfg_.size.empty()) // say why this size
        note(choose_size(model, dev_.info()).note);
    mark(&Result::WallParts::check);
    r.wall_ms = std::chrono::duration<double, std::milli>(last_mark_ - t0_).count();
    return std::move(r);
}

} // namespace duet::apps
