// Results that never lie: which clock a time comes from, implausible figures, skipped rows that
// are never PASS, full checks that stay full, NaN anywhere fails, guard zones past the end of
// outputs, every input element influencing a checked output, always-valid JSON.
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "output.hpp"
#include "report.hpp"
#include "test_util.hpp"

using namespace duet::apps;

namespace {

Result ran(const std::string& variant, double ms, bool pass = true) {
    Result r;
    r.app = "vecadd";
    r.variant = variant;
    r.device_id = "opencl:0";
    r.device_name = "dev";
    r.size_label = "1000";
    r.bytes = 12000;
    r.kernel_ms.median = ms;
    r.kernel_ms.count = 1;
    r.verified = true;
    r.pass = pass;
    return r;
}

Result skipped(const std::string& variant) {
    Result r = ran(variant, 0);
    r.skipped = true;
    r.pass = false;
    r.verified = false;
    r.note = "skipped: limit of 32 work-items";
    return r;
}

// The table line of `variant` in `text`.
std::string line_of(const std::string& text, const std::string& variant) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(variant + " ", 0) == 0)
            return line;
    return {};
}

} // namespace

TEST_CASE("choose_clock: events that are missing, zero or disagree give way to the host clock") {
    // The case: 1e-6 ms from the events for a kernel the host saw take 56 ms.
    auto c = choose_clock(std::vector<double>(10, 1e-6), std::vector<double>(10, 56.0), 2);
    CHECK(c.host);
    CHECK(c.clock.find("host (events disagreed") == 0);
    // Agreeing clocks: the device's (host time adds launch overhead).
    c = choose_clock({10.0, 10.1, 9.9}, {10.4, 10.6, 10.3}, 1);
    CHECK(!c.host);
    CHECK(c.clock == "device events");
    // Short kernels dominated by launch overhead still trust the events (within the allowance).
    c = choose_clock({0.01, 0.01}, {0.3, 0.3}, 1);
    CHECK(!c.host);
    // A device cannot take longer than the wall clock around it.
    c = choose_clock({20.0}, {10.0}, 1);
    CHECK(c.host);
    CHECK(c.clock.find("longer than") != std::string::npos);
    c = choose_clock({std::nan(""), 5.0}, {5.0, 5.0}, 1);
    CHECK(c.host);
    CHECK(c.clock == "host (events gave no time)");
    c = choose_clock({0.0, 5.0}, {5.0, 5.0}, 1);
    CHECK(c.host);
    CHECK(c.clock == "host (events gave zero time)");
}

TEST_CASE("repetition: counts are kept unless a budget is set; a budget cuts only long runs") {
    RunConfig cfg; // reps 10, warm-up 2, no budget: exactly the counts, however long
    int runs = 0;
    while (another_run(cfg, runs, 1e6 * runs))
        ++runs;
    CHECK(runs == 10);
    CHECK(another_warmup(cfg, 1, 1e6));
    CHECK(!another_warmup(cfg, 2, 0));
    cfg.reps_budget_ms = 1000;
    cfg.warmup_budget_ms = 100;
    // Short runs (1 ms each): all ten, the budget never reached.
    runs = 0;
    while (another_run(cfg, runs, 1.0 * runs))
        ++runs;
    CHECK(runs == 10);
    // 400 ms runs: three (the minimum), 1.2 s spent.
    runs = 0;
    while (another_run(cfg, runs, 400.0 * runs))
        ++runs;
    CHECK(runs == 3);
    // 300 ms runs: four (0.9 s after three is under the budget).
    runs = 0;
    while (another_run(cfg, runs, 300.0 * runs))
        ++runs;
    CHECK(runs == 4);
    // Warm-up: the first always runs; a second only after a first under 100 ms.
    CHECK(another_warmup(cfg, 0, 0));
    CHECK(another_warmup(cfg, 1, 99));
    CHECK(!another_warmup(cfg, 1, 100));
    cfg.warmup = 0;
    CHECK(!another_warmup(cfg, 0, 0));
    // time_on_host follows the same rule: a 150 ms body runs once to warm up and 3 times timed
    // against a 300 ms budget.
    cfg.warmup = 2;
    cfg.reps_budget_ms = 300;
    int calls = 0;
    const duet::Stats s = time_on_host(cfg, [&] {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
    });
    CHECK(calls == 4);
    CHECK(s.count == 3);
    CHECK(s.median >= 150);
}

TEST_CASE("plausibility: a figure above the device's peak is never printed as a result") {
    duet::DeviceInfo info;
    info.compute_units = 4;
    info.clock_mhz = 3000;
    const Ceiling ceil = plausible_ceiling(info);
    CHECK(ceil.gbs > 1000); // generous: 512 bytes per cycle per unit
    CHECK(ceil.gbs < 10000);
    CHECK(plausible_ceiling(duet::DeviceInfo{}).gbs == 0); // unknown: no ceiling

    // Events say 1e-6 ms, the host 56 ms: the host's figure is plausible and taken.
    Result r = ran("naive", 1e-6);
    r.bytes = 3.0 * 4 * (1 << 23);
    r.host_ms.median = 56;
    check_plausible(r, ceil);
    CHECK(!r.implausible);
    CHECK(r.kernel_ms.median == 56);
    CHECK(r.clock.find("host") == 0);

    // Both clocks implausible: no figure, IMPLAUSIBLE, status implausible, exit 3.
    r = ran("naive", 1e-6);
    r.bytes = 3.0 * 4 * (1 << 23);
    r.host_ms.median = 1e-6;
    check_plausible(r, ceil);
    CHECK(r.implausible);
    CHECK(r.status() == "implausible");
    CHECK(runapp::check_label(r) == "IMPLAUSIBLE");
    CHECK(runapp::throughput(r) == "implausible");
    const auto j = runapp::to_json(r);
    CHECK(j["effective_gbs"].is_null());
    CHECK(j["status"] == "implausible");
    std::vector<std::string> why;
    CHECK(runapp::results_exit_code({r}, why) == 3);
    CHECK(!why.empty());
}

TEST_CASE("compare: skipped rows say SKIPPED, speed-ups skip them and say against what") {
    std::ostringstream out;
    runapp::print_comparison(out, {ran("naive", 4.0), skipped("tiled"), ran("vec4", 1.0)});
    const std::string text = out.str();
    INFO(text);
    const std::string tiled = line_of(text, "tiled");
    CHECK(tiled.find("SKIPPED") != std::string::npos);
    CHECK(tiled.find("PASS") == std::string::npos);
    const std::string vec4 = line_of(text, "vec4");
    CHECK(vec4.find("4.00x vs naive") != std::string::npos);
    CHECK(vec4.find("PASS") != std::string::npos);

    // A skipped row in JSON: status skipped, pass false, no figure.
    const auto j = runapp::to_json(skipped("tiled"));
    CHECK(j["status"] == "skipped");
    CHECK(j["pass"] == false);
    CHECK(!j.contains("effective_gbs"));
    // --verify off: unchecked, never PASS.
    Result off = ran("naive", 1.0);
    off.verified = false;
    off.pass = false;
    CHECK(runapp::check_label(off) == "UNCHECKED");
    CHECK(off.status() == "unverified");
}

TEST_CASE("compare: a step is one row whatever shape each API chose, the ratio filled") {
    // One GPU through OpenCL (opencl:0) and CUDA (cuda:0): tiled32 at 32x8 and 32x32.
    const auto on = [](const std::string& dev, const std::string& variant, double ms,
                       const std::string& local) {
        Result r = ran(variant, ms);
        r.device_id = dev;
        r.local_label = local;
        return r;
    };
    const runapp::Twins twins{{"opencl:0", "cuda:0"}};
    std::ostringstream out;
    runapp::print_comparison(
        out,
        {on("opencl:0", "naive", 4.0, "16x16"), on("cuda:0", "naive", 2.0, "16x16"),
         on("opencl:0", "tiled32", 3.0, "32x8"), on("cuda:0", "tiled32", 1.5, "32x32")},
        &twins);
    const std::string text = out.str();
    INFO(text);
    std::size_t rows = 0;
    for (std::size_t at = text.find("tiled32"); at != std::string::npos;
         at = text.find("tiled32", at + 1))
        ++rows;
    CHECK(rows == 1); // one row, not a CUDA-only and an OpenCL-only one
    const std::string tiled = line_of(text, "tiled32");
    CHECK(tiled.find("@32x8") != std::string::npos); // each cell says its shape
    CHECK(tiled.find("@32x32") != std::string::npos);
    CHECK(tiled.find("2.00") != std::string::npos); // OpenCL over CUDA: 3.0 / 1.5
    const std::string naive = line_of(text, "naive");
    CHECK(naive.find("naive @16x16") != std::string::npos); // one shape: in the label
}

TEST_CASE("exit code: nothing ran on a device is 3 with the reasons; a wrong result is 1") {
    std::vector<std::string> why;
    CHECK(runapp::results_exit_code({skipped("naive"), skipped("vec4")}, why) == 3);
    REQUIRE(why.size() == 1);
    CHECK(why[0].find("nothing ran") != std::string::npos);
    CHECK(why[0].find("limit of 32 work-items") != std::string::npos);
    why.clear();
    CHECK(runapp::results_exit_code({skipped("naive"), ran("vec4", 1.0)}, why) == 0);
    CHECK(runapp::results_exit_code({ran("naive", 1.0, false), ran("vec4", 1.0)}, why) == 1);
}

TEST_CASE("JSON: invalid UTF-8 in a note or a define becomes U+FFFD, and the JSON stays valid") {
    Result r = ran("naive", 1.0);
    r.note = "tuned: X=\xff\xfe";
    r.build_options = "-DX=\xc3";
    r.device_name = "bad \x80 name";
    nlohmann::json j = nlohmann::json::array({runapp::to_json(r)});
    const std::string text = runapp::dump_json(j);
    const auto back = nlohmann::json::parse(text);
    CHECK(back[0]["note"].get<std::string>().find("\xef\xbf\xbd") != std::string::npos);
}

TEST_CASE("check: a NaN or Inf anywhere in the output fails, sampled or not") {
    std::vector<float> out(10000, 1.f);
    out[5000] = std::numeric_limits<float>::infinity(); // outside the checked indices
    const std::vector<std::size_t> idx = {0, 9999};
    const std::vector<double> ref = {1.0, 1.0};
    Result r;
    r.tolerance = 0;
    compare_outputs(r, out, idx, ref);
    CHECK(!r.pass);
    CHECK(r.note.find("output 5000 is Inf") != std::string::npos);
    out[5000] = 1.f;
    compare_outputs(r, out, idx, ref);
    CHECK(r.pass);
}

TEST_CASE("--verify full stays full: refused when asked for beyond the limit, said when default") {
    RunConfig cfg;
    cfg.verify = Verify::full;
    cfg.verify_explicit = true;
    Result r;
    CHECK_THROWS_WITH_AS(verify_level(cfg, 1e13, 2e9, r, "matmul"),
                         doctest::Contains("use --verify sample"), duet::Error);
    CHECK(verify_level(cfg, 3e9, 2e9, r, "matmul") == Verify::full); // seconds: checked fully
    CHECK(r.note.empty());
    cfg.verify_explicit = false;
    CHECK(verify_level(cfg, 1e13, 2e9, r, "matmul") == Verify::sample);
    CHECK(r.note.find("checked a sample") != std::string::npos);
    CHECK(verify_level(cfg, 1e6, 2e9, r, "matmul") == Verify::full);
    // By default too, a full check of a few seconds is done: 1300^3 is past the limit, but a
    // second or two of CPU time.
    CHECK(verify_level(cfg, 1300.0 * 1300 * 1300, 2e9, r, "matmul") == Verify::full);
}

TEST_CASE("guard zone: a reduction pass that writes past its partial sums fails the app's run") {
    // The shipped reduction.cl with its first step changed to write one partial sum too many,
    // read through DUET_KERNEL_DIR (looked up on each load); the app itself must say FAIL.
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(DUET_BINARY_DIR) / "test-bad-kernels";
    fs::remove_all(dir);
    fs::create_directories(dir / "kernels_cl");
    std::ifstream in(fs::path(DUET_SOURCE_DIR) / "kernels_cl" / "reduction.cl");
    std::stringstream text;
    text << in.rdbuf();
    std::string src = text.str();
    const std::string store = "out[get_group_id(0)] = sdata[0];";
    const auto at = src.find(store);
    REQUIRE(at != std::string::npos);
    src.replace(at, store.size(),
                "{ out[get_group_id(0)] = sdata[0]; if (get_group_id(0) == get_num_groups(0) - 1) "
                "out[get_num_groups(0)] = sdata[0]; }");
    std::ofstream(dir / "kernels_cl" / "reduction.cl") << src;
    // The headers it includes (reduction.clh), as shipped.
    for (const auto& f : fs::directory_iterator(fs::path(DUET_SOURCE_DIR) / "kernels_cl"))
        if (f.path().extension() == ".clh")
            fs::copy_file(f.path(), dir / "kernels_cl" / f.path().filename());
    ::setenv("DUET_KERNEL_DIR", dir.c_str(), 1);
    // Unset however the case ends: the cases after it read the shipped kernels.
    struct Unset {
        ~Unset() { ::unsetenv("DUET_KERNEL_DIR"); }
    } unset;
    const App& app = find_app("reduction");
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            RunConfig cfg;
            cfg.size = {100003};
            cfg.reps = 1;
            cfg.warmup = 0;
            const auto r = app.run(*dev, select_variants(app, "interleaved_i32").front(), cfg);
            CHECK(!r.pass);
            CHECK(r.note.find("wrote past the end") != std::string::npos);
        }
    }
    fs::remove_all(dir);
}

TEST_CASE(
    "every input element influences a checked output: its last element changed, each app fails") {
    // The bottom and the top of each ladder; the host copy of the input (the reference's) is
    // untouched, so the run must FAIL: a kernel that ignored that element would pass.
    for (auto* dev : duet_test::devices_of("opencl"))
        for (const auto* app : all_apps()) {
            const std::string size = app->name() == "matmul"    ? "33x17x29"
                                     : app->name() == "conv5x5" ? "37x21"
                                                                : "1001";
            const int inputs = app->name() == "reduction" ? 1 : 2;
            for (const auto& v : {app->variants().front(), app->variants().back()})
                for (int which = 0; which < inputs; ++which)
                    SUBCASE((dev->info().id() + " " + app->name() + " " + v.name + " input " +
                             std::to_string(which))
                                .c_str()) {
                        RunConfig cfg;
                        cfg.size = app->parse_size(size);
                        cfg.reps = 1;
                        cfg.warmup = 0;
                        Result clean;
                        try {
                            clean = app->run(*dev, v, cfg);
                        } catch (const duet::Error& e) {
                            if (e.kind() != duet::ErrorKind::unsupported)
                                throw;
                            MESSAGE("skipped: " << e.what());
                            continue;
                        }
                        CHECK(clean.pass);
                        cfg.perturb_input = which;
                        const Result bad = app->run(*dev, v, cfg);
                        INFO(app->name() << " " << v.name << " input " << which << ": max error "
                                         << bad.max_error << " (tolerance " << bad.tolerance << ") "
                                         << bad.note);
                        CHECK(bad.verified);
                        CHECK(!bad.pass);
                    }
        }
}
