// runapp run and runapp compare.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>

#include <unistd.h>

#include <duet/duet.hpp>

#include "cmd_compare_ranks.hpp"
#include "commands.hpp"
#include "html_page.hpp"
#include "kernel_text.hpp"
#include "native/reference.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "rank_rows.hpp"
#include "report.hpp"
#include "step_prebuild.hpp"
#include "tuning.hpp"

namespace runapp {

namespace {

using duet::apps::App;
using duet::apps::Result;
using duet::apps::RunConfig;

RunConfig base_config(const Cli& c) {
    RunConfig cfg;
    cfg.reps = c.reps;
    cfg.warmup = c.warmup;
    // Unless counts were asked for, a long kernel (a slow device's) runs fewer times: the timed
    // runs stop after 0.3 s once three have run, the warm-up after a run of 20 ms.
    cfg.reps_budget_ms = c.reps_given ? 0 : 300;
    cfg.warmup_budget_ms = c.warmup_given ? 0 : 20;
    cfg.verify = c.verify;
    cfg.seed = c.seed;
    cfg.defines = c.defines;
    cfg.verify_explicit = c.verify_given;
    cfg.kernel_text = c.kernel_text;
    return cfg;
}

// The parameters `runapp tune` stored for this device, read once per process.
const duet::apps::TuningStore& tuning_store() {
    static const duet::apps::TuningStore store(duet::apps::TuningStore::default_path());
    return store;
}

// Adds the stored tuned parameters of `v` on `dev` to `cfg` when the user gave no --define
// (their own experiment wins); returns the note that says so ("tuned: BEST_BM=64,...").
std::string apply_tuned(const Cli& c, const App& app, const duet::apps::Variant& v,
                        const duet::Device& dev, RunConfig& cfg) {
    if (!c.defines.empty())
        return {};
    return duet::apps::apply_tuned(tuning_store(), dev.info(), app, v, cfg);
}

// Writes to --output FILE when given, else to stdout; a failed write is an Error (exit 3).
void emit(const Cli& c, const std::vector<Result>& results, int argc, char** argv) {
    // Only JSON carries the provenance, whose device list opens every backend (about 190 ms of a
    // warm start on the H100 machine): a table or CSV does not pay for it.
    const auto prov = c.format == Format::json ? provenance(argc, argv) : nlohmann::json::object();
    if (c.output.empty()) {
        print_results(std::cout, results, c.format, prov);
        check_written(std::cout, "standard output");
        return;
    }
    std::ofstream out;
    open_output(out, c.output, "--output file");
    print_results(out, results, c.format, prov);
    close_written(out, "--output file " + c.output);
    if (c.format == Format::table) {
        print_results(std::cout, results, Format::table, prov);
        check_written(std::cout, "standard output");
    }
    std::cerr << "results written to " << c.output << "\n";
}

// Under --size auto, one GPU seen through two backends runs one size (the smallest of its ways
// in `devs`), so that the OpenCL/CUDA ratio compares equal work; empty when `dev` has no other
// way in among `devs` whose size differs.
std::vector<std::size_t> twin_size(const App& app, const duet::Device& dev,
                                   const std::vector<duet::Device*>& devs) {
    const auto product = [](const std::vector<std::size_t>& d) {
        double p = 1;
        for (auto x : d)
            p *= double(x);
        return p;
    };
    const auto own = app.auto_size(dev.info());
    auto best = own;
    for (auto* twin : duet::same_physical_device(dev))
        if (std::find(devs.begin(), devs.end(), twin) != devs.end())
            if (const auto other = app.auto_size(twin->info()); product(other) < product(best))
                best = other;
    return best == own ? std::vector<std::size_t>{} : best;
}

// app.run; with --kernel-text, a text the device's translation cannot build is the step's
// SKIPPED row with the compiler's reason, not the run's end.
Result run_text(const App& app, duet::Device& dev, const duet::apps::Variant& v,
                const RunConfig& cfg) {
    const duet::apps::KernelTextScope scope(cfg.kernel_text);
    try {
        return app.run(dev, v, cfg);
    } catch (const duet::Error& e) {
        if (e.kind() == duet::ErrorKind::build &&
            duet::apps::kernel_text_translated(dev, cfg.kernel_text))
            throw duet::apps::kernel_text_refused(dev, cfg.kernel_text, e);
        throw;
    }
}

// Runs the variants of one app on one device over every size and local size asked for;
// `shared` (twin_size) replaces the device's own --size auto.
std::vector<Result> run_app(const App& app, duet::Device& dev, const Cli& c, Progress& progress,
                            const std::vector<std::size_t>& shared = {}) {
    std::vector<Result> out;
    std::vector<std::vector<std::size_t>> sizes;
    for (const auto& s : c.sizes)
        sizes.push_back(app.parse_size(s));
    if (sizes.empty())
        sizes.push_back(shared);
    std::vector<std::optional<std::array<std::size_t, 2>>> locals;
    for (const auto& l : c.locals)
        locals.emplace_back(l);
    if (locals.empty())
        locals.emplace_back(std::nullopt);
    const auto variants = duet::apps::select_variants(app, c.variant);
    for (const auto& size : sizes)
        for (const auto& local : locals) {
            const std::size_t first = out.size();
            for (const auto& v : variants) {
                RunConfig cfg = base_config(c);
                cfg.size = size;
                cfg.local = local;
                const RunConfig untuned = cfg;
                const std::string tuned = apply_tuned(c, app, v, dev, cfg);
                progress.running(app.name() + " " + v.name + " on " + dev.info().id());
                try {
                    Result r;
                    std::string tuned_note = tuned;
                    const std::string text_note =
                        cfg.kernel_text.empty()
                            ? std::string()
                            : duet::apps::kernel_text_note(dev, cfg.kernel_text);
                    try {
                        r = run_text(app, dev, v, cfg);
                    } catch (const duet::Error& e) {
                        // Stored parameters that no longer build (the kernel changed since the
                        // sweep), or a stored work-group the kernel refuses (a usage error only
                        // because tuned.json, not the user, gave it): the defaults still run, and
                        // the note names the file.
                        const bool tuned_local = !untuned.local && cfg.local;
                        if (tuned.empty() || !(e.kind() == duet::ErrorKind::build ||
                                               (tuned_local && e.kind() == duet::ErrorKind::usage)))
                            throw;
                        r = run_text(app, dev, v, untuned);
                        tuned_note = tuned + " from " + duet::apps::TuningStore::default_path() +
                                     (e.kind() == duet::ErrorKind::build
                                          ? " failed to build"
                                          : " cannot run (" + std::string(e.what()) + ")") +
                                     ", ran with the defaults; rerun `runapp tune " + app.name() +
                                     "`";
                    }
                    if (!tuned_note.empty())
                        r.note = tuned_note + (r.note.empty() ? "" : "; " + r.note);
                    if (!text_note.empty())
                        r.note = text_note + (r.note.empty() ? "" : "; " + r.note);
                    r.kernel_text = cfg.kernel_text;
                    if (!shared.empty() && c.sizes.empty())
                        r.note += std::string(r.note.empty() ? "" : "; ") +
                                  "size: the smallest --size auto of this GPU's ways in (it is "
                                  "seen through two backends), so both time the same work";
                    duet::apps::check_plausible(r, duet::apps::plausible_ceiling(dev.info()));
                    progress.row(r);
                    out.push_back(std::move(r));
                } catch (const duet::Error& e) {
                    if (e.kind() != duet::ErrorKind::unsupported)
                        throw;
                    Result r; // the rest of the ladder still runs; the table says why not this one
                    r.app = app.name();
                    r.variant = v.name;
                    r.device_id = dev.info().id();
                    r.device_name = dev.info().name;
                    r.backend = dev.info().backend;
                    r.size_label = size.empty() ? duet::apps::dims_label(app.auto_size(dev.info()))
                                                : duet::apps::dims_label(size);
                    r.skipped = true;
                    r.pass = false; // no result: never PASS
                    r.seed = cfg.seed;
                    r.kernel_text = cfg.kernel_text;
                    r.note = std::string("skipped: ") + e.what();
                    progress.row(r);
                    out.push_back(std::move(r));
                }
            }
            // A skipped variant carries the size as its siblings that ran label it.
            for (std::size_t i = first; i < out.size(); ++i)
                if (out[i].skipped)
                    for (std::size_t j = first; j < out.size(); ++j)
                        if (!out[j].skipped) {
                            out[i].size_label = out[j].size_label;
                            break;
                        }
        }
    if (progress.on()) // clears the running line
        std::cerr << "\r\033[K" << std::flush;
    return out;
}

// The native CPU reference rows (apps/native/) after the device rows, and every device row's
// speed-up over its reference (x_cpu).
void add_references(const Cli& c, std::vector<Result>& results, bool progress) {
    if (progress)
        std::cerr << "\r\033[K"
                  << "native CPU reference ..." << std::flush;
    std::vector<std::string> notes;
    auto refs = duet::apps::run_native_references(results, base_config(c), notes);
    if (progress)
        std::cerr << "\r\033[K" << std::flush;
    for (const auto& n : notes)
        std::cerr << "runapp: note: " << n << "\n";
    for (auto& r : refs)
        results.push_back(std::move(r));
}

// The run's programs, every step of `apps` on every device of `devs`, built up front on a few
// threads (step_prebuild.hpp), so that no step waits for its build and the builds overlap; their
// time is said here, apart from the rows. DUET_PREBUILD=0 leaves each build to its step.
void prebuild(const std::vector<const App*>& apps, const std::vector<duet::Device*>& devs,
              const Cli& c, const Progress& progress) {
    if (const char* off = std::getenv("DUET_PREBUILD"); off && std::strcmp(off, "0") == 0)
        return;
    std::vector<std::pair<const App*, std::vector<duet::apps::Step>>> steps;
    for (const App* app : apps)
        steps.emplace_back(app, duet::apps::select_variants(*app, c.variant));
    progress.running("building the programs up front");
    const auto p = duet::apps::prebuild_steps(steps, devs, base_config(c));
    if (progress.on())
        std::cerr << "\r\033[K" << std::flush;
    if (progress.on() && p.builds > 0) // on a terminal, as the progress lines (stdout may be JSON)
        std::cerr << "runapp: built " << p.builds << " steps' programs up front on " << p.threads
                  << " thread(s) in " << fmt("%.1f", p.ms / 1000) << " s"
                  << (p.failed ? " (" + std::to_string(p.failed) + " failed: their steps say why)"
                               : "")
                  << "\n";
}

// How many rows a run makes (for the progress lines' count).
int planned_rows(const std::vector<const App*>& apps, const Cli& c, std::size_t devices) {
    std::size_t n = 0;
    for (const App* app : apps)
        n += duet::apps::select_variants(*app, c.variant).size() *
             std::max<std::size_t>(c.sizes.size(), 1) * std::max<std::size_t>(c.locals.size(), 1);
    return static_cast<int>(n * devices);
}

} // namespace

int cmd_run(const Cli& c, int argc, char** argv) {
    if (c.positional.empty()) {
        std::string names;
        for (const App* app : duet::apps::all_apps())
            names += (names.empty() ? "" : ", ") + app->name();
        throw duet::Error::usage("which app? runapp run APP (apps: " + names + ")");
    }
    std::vector<const App*> apps;
    for (const auto& name : c.positional)
        apps.push_back(&duet::apps::find_app(name));
    if (apps.size() > 1 && (c.variant != "all" || !c.sizes.empty()))
        throw duet::Error::usage(
            "--variant and --size apply to one app; run the apps one at a time");
    check_locals(c, apps);
    duet::Device& dev = chosen_device(c);
    Progress progress(c.quiet);
    progress.set_total(planned_rows(apps, c, 1));
    prebuild(apps, {&dev}, c, progress);
    std::vector<Result> results;
    for (const App* app : apps)
        for (auto& r : run_app(*app, dev, c, progress))
            results.push_back(std::move(r));
    if (c.reference)
        add_references(c, results, progress.on());
    emit(c, results, argc, argv);
    std::vector<std::string> why;
    const int code = results_exit_code(results, why);
    for (const auto& w : why)
        std::cerr << "runapp: error: " << w << "\n";
    return code;
}

int cmd_compare(const Cli& c, int argc, char** argv) {
    std::vector<const App*> apps;
    for (const auto& name : c.positional)
        apps.push_back(&duet::apps::find_app(name));
    if (apps.empty())
        apps = duet::apps::all_apps();
    if (apps.size() > 1 && (c.variant != "all" || !c.sizes.empty()))
        throw duet::Error::usage(
            "--variant and --size apply to one app; compare one app at a time");
    check_locals(c, apps);
    std::vector<duet::Device*> devs;
    if (c.devices == "all") {
        devs = duet::devices();
        if (!c.backend.empty()) {
            std::erase_if(devs, [&](auto* d) { return d->info().backend != c.backend; });
            if (devs.empty())
                duet::select_device("0", c.backend); // throws with the backend's reason
        }
    } else {
        std::size_t start = 0;
        for (;;) {
            const auto comma = c.devices.find(',', start);
            devs.push_back(&duet::select_device(
                c.devices.substr(start, comma == std::string::npos ? comma : comma - start)));
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
    }
    if (devs.empty())
        throw duet::Error::unavailable(
            "no device to compare on; run `runapp list` or `runapp doctor`");
    const mpi::World world = mpi::start(); // under mpirun: this rank's share of the host's devices
    devs = devices_of_rank(world, devs);
    Progress progress(c.quiet, world.active() ? "rank " + std::to_string(world.rank) + ": " : "");
    progress.set_total(planned_rows(apps, c, devs.size()));
    RankRows rank_rows(world, c, progress, argc, argv); // each row to rank 0 as it finishes
    if (world.active())
        progress.on_row = [&rank_rows](const Result& r) { rank_rows.finished(r); };
    prebuild(apps, devs, c, progress);
    std::vector<Result> results;
    std::vector<std::string> failures;
    for (const App* app : apps)
        for (auto* dev : devs) {
            try {
                const auto shared =
                    c.sizes.empty() ? twin_size(*app, *dev, devs) : std::vector<std::size_t>{};
                for (auto& r : run_app(*app, *dev, c, progress, shared))
                    results.push_back(std::move(r));
            } catch (const duet::Error& e) {
                if (e.kind() == duet::ErrorKind::usage)
                    throw;
                failures.push_back(app->name() + " on " + dev->label() + ": " + e.what());
            }
        }
    progress.on_row = nullptr;
    rank_rows.done();
    add_references(c, results, progress.on());
    if (world.local_size > 1) // each rank times its own reference while the others run
        for (auto& r : results)
            if (r.backend == "native")
                r.note += std::string(r.note.empty() ? "" : "; ") + "rank " +
                          std::to_string(world.rank) + " of " + std::to_string(world.local_size) +
                          " on this host: the other ranks ran at the same time, on the same cores";
    if (world.active())
        return finish_ranks(world, c, std::move(results), failures, argc, argv);
    if (c.format != Format::table) {
        emit(c, results, argc, argv);
    } else {
        print_comparison(std::cout, results);
        check_written(std::cout, "standard output");
        if (!c.output.empty())
            emit(c, results, argc, argv);
    }
    if (!c.html.empty()) {
        std::ofstream out;
        open_output(out, c.html, "--html file");
        write_html(out, results, provenance(argc, argv));
        close_written(out, "--html file " + c.html);
        std::cerr << "HTML report written to " << c.html << "\n";
    }
    for (const auto& f : failures)
        std::cerr << "runapp: error: " << f << "\n";
    std::vector<std::string> why;
    const int code = results_exit_code(results, why);
    for (const auto& w : why)
        std::cerr << "runapp: error: " << w << "\n";
    if (code)
        return code;
    return failures.empty() ? 0 : 3;
}

} // namespace runapp
