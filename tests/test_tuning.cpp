// Tuning: tuned.json (round trip, corrupt files, per-device keys), the search spaces, applying
// stored parameters, and a real sweep on every OpenCL device whose winner runs by default.
#include <doctest/doctest.h>

#include <array>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <random>

#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "runapp_shell.hpp"
#include "test_util.hpp"
#include "tuning.hpp"

namespace fs = std::filesystem;
using namespace duet::apps;

namespace {

// A fresh directory under the build tree's test cache, removed at the end of the test.
struct TempDir {
    fs::path path;
    TempDir() {
        std::random_device rd;
        path = fs::path(DUET_BINARY_DIR) / "test-tuning" / std::to_string(rd());
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
    std::string file() const { return (path / "tuned.json").string(); }
};

duet::DeviceInfo fake_device(const std::string& name, const std::string& driver = "1.0",
                             const std::string& backend = "opencl") {
    duet::DeviceInfo i;
    i.backend = backend;
    i.kernel_language =
        backend == "cuda" ? duet::KernelLanguage::cuda : duet::KernelLanguage::opencl_c;
    i.name = name;
    i.driver_version = driver;
    i.platform = backend == "cuda" ? "CUDA" : "Some Platform";
    i.type = "GPU";
    i.device_type = duet::DeviceType::gpu;
    i.max_work_group_size = 1024;
    i.local_mem_bytes = 48 * 1024;
    return i;
}

TunedEntry entry(const duet::DeviceInfo& i, const std::string& app, const std::string& variant,
                 Defines defines, std::optional<std::array<std::size_t, 2>> local = {}) {
    TunedEntry e;
    e.backend = i.backend;
    e.platform = i.platform;
    e.device = i.name;
    e.driver = i.driver_version;
    e.app = app;
    e.variant = variant;
    e.defines = std::move(defines);
    e.local = local;
    e.size = "512";
    e.date = "2025-01-01T00:00:00Z";
    e.median_ms = 1.5;
    e.duet_version = duet::version;
    return e;
}

const Variant& variant_of(const App& app, const std::string& name) {
    static std::deque<Variant> keep; // variants() returns copies; a deque keeps references
    for (const auto& v : app.variants())
        if (v.name == name) {
            keep.push_back(v);
            return keep.back();
        }
    FAIL("no variant " << name);
    throw 0;
}

using duet_test::runapp_path;
using duet_test::shell;

} // namespace

TEST_CASE("tuning: the store round-trips, replaces by key, and writes atomically") {
    TempDir dir;
    const auto gpu = fake_device("Big GPU");
    {
        TuningStore s(dir.file());
        CHECK(s.entries().empty()); // no file yet: empty, no error
        s.put(entry(gpu, "matmul", "best", {{"BEST_BM", "64"}, {"BEST_BN", "128"}}));
        s.put(entry(gpu, "reduction", "shuffle_f32", {}, std::array<std::size_t, 2>{512, 1}));
        std::string why;
        REQUIRE_MESSAGE(s.save(&why), why);
    }
    {
        TuningStore s(dir.file());
        REQUIRE(s.entries().size() == 2);
        const TunedEntry* m = s.find(gpu, "matmul", "best");
        REQUIRE(m);
        CHECK(m->defines == Defines{{"BEST_BM", "64"}, {"BEST_BN", "128"}}); // order kept
        CHECK(!m->local);
        CHECK(m->size == "512");
        CHECK(m->date == "2025-01-01T00:00:00Z");
        CHECK(m->median_ms == doctest::Approx(1.5));
        const TunedEntry* r = s.find(gpu, "reduction", "shuffle_f32");
        REQUIRE(r);
        REQUIRE(r->local);
        CHECK((*r->local)[0] == 512);
        CHECK(!s.find(gpu, "reduction", "shuffle_i32"));
        // Same key: replaced, not added.
        s.put(entry(gpu, "matmul", "best", {{"BEST_BM", "32"}}));
        CHECK(s.entries().size() == 2);
        REQUIRE(s.save());
    }
    TuningStore s(dir.file());
    REQUIRE(s.find(gpu, "matmul", "best"));
    CHECK(s.find(gpu, "matmul", "best")->defines == Defines{{"BEST_BM", "32"}});
    // No temporary files left behind.
    for (const auto& f : fs::directory_iterator(dir.path))
        CHECK(f.path().filename() == "tuned.json");
    // Plain JSON a person can read.
    std::ifstream in(dir.file());
    const auto j = nlohmann::json::parse(in);
    CHECK(j["entries"].size() == 2);
}

TEST_CASE("tuning: a corrupt or foreign file reads as empty and is replaced") {
    TempDir dir;
    const auto gpu = fake_device("Big GPU");
    for (const std::string junk : {"{ this is not json", "[1, 2, 3]", "{\"entries\": 7}", ""}) {
        CAPTURE(junk);
        std::ofstream(dir.file()) << junk;
        TuningStore s(dir.file()); // must not throw
        CHECK(s.entries().empty());
        s.put(entry(gpu, "conv5x5", "best", {{"CONV_BX", "64"}}));
        REQUIRE(s.save());
        CHECK(TuningStore(dir.file()).find(gpu, "conv5x5", "best"));
    }
    // One malformed entry is dropped; the others are kept.
    std::ofstream(dir.file()) << R"({"entries": [
        {"backend": "opencl", "platform": "Some Platform", "device": "Big GPU", "driver": "1.0",
         "app": "conv5x5", "variant": "best", "defines": {"CONV_BX": "64"}},
        {"backend": "opencl", "device": 12},
        {"backend": "opencl", "platform": "Some Platform", "device": "Big GPU", "driver": "1.0",
         "app": "matmul", "variant": "best", "defines": {}, "local": [0]}]})";
    TuningStore s(dir.file());
    CHECK(s.entries().size() == 1);
    CHECK(s.find(gpu, "conv5x5", "best"));
    // No path (caching off): empty, and saving says why instead of throwing.
    TuningStore none("");
    CHECK(none.entries().empty());
    std::string why;
    CHECK(!none.save(&why));
    CHECK(!why.empty());
}

TEST_CASE("tuning: entries are per device, driver and backend") {
    TempDir dir;
    const auto a = fake_device("GPU A"), b = fake_device("GPU B");
    const auto a_new_driver = fake_device("GPU A", "2.0");
    const auto a_cuda = fake_device("GPU A", "1.0", "cuda");
    TuningStore s(dir.file());
    s.put(entry(a, "matmul", "best", {{"BEST_BM", "64"}}));
    s.put(entry(b, "matmul", "best", {{"BEST_BM", "256"}}));
    REQUIRE(s.save());
    TuningStore r(dir.file());
    REQUIRE(r.find(a, "matmul", "best"));
    REQUIRE(r.find(b, "matmul", "best"));
    CHECK(r.find(a, "matmul", "best")->defines[0].second == "64");
    CHECK(r.find(b, "matmul", "best")->defines[0].second == "256");
    CHECK(!r.find(a_new_driver, "matmul", "best")); // a driver update asks for a new sweep
    CHECK(!r.find(a_cuda, "matmul", "best"));       // the same GPU through CUDA is another key
    CHECK(!r.find(a, "conv5x5", "best"));
}

TEST_CASE("tuning: the search spaces") {
    const auto gpu = fake_device("Big GPU");
    CHECK(tunable_variants(find_app("vecadd")).empty());
    CHECK(tunable_variants(find_app("matmul")) == std::vector<std::string>{"best"});
    CHECK(tunable_variants(find_app("conv5x5")) == std::vector<std::string>{"best"});
    CHECK(tunable_variants(find_app("reduction")).size() == 6);
    for (const auto* app : all_apps())
        for (const auto& v : tunable_variants(*app)) {
            CAPTURE(app->name() + " " + v);
            const auto pts = tune_points(*app, v, gpu);
            REQUIRE(!pts.empty());
            CHECK(pts.size() <= 12);
            int defaults = 0;
            for (const auto& p : pts) {
                defaults += p.is_default;
                CHECK(p.excluded.empty()); // all fit a 1024-item, 48 KiB device
                if (p.is_default)
                    CHECK(p.defines.empty()); // untuned builds: CUDA keeps its embedded binary
            }
            CHECK(defaults == 1);
        }
    CHECK(tune_points(find_app("matmul"), "tiled16", gpu).empty());
    // A small device: points over its limits are listed, excluded, with the reason.
    auto small = gpu;
    small.max_work_group_size = 128;
    small.local_mem_bytes = 16 * 1024;
    int excluded = 0;
    for (const auto& p : tune_points(find_app("matmul"), "best", small))
        if (!p.excluded.empty()) {
            ++excluded;
            CHECK(p.excluded.find("limit") != std::string::npos);
        }
    CHECK(excluded > 0);
    for (const auto& p : tune_points(find_app("reduction"), "grid_stride_f32", small))
        CHECK((*p.local)[0] <= 128);
    // Default sizes: big on a GPU, small on a CPU.
    auto cpu = gpu;
    cpu.type = "CPU";
    cpu.device_type = duet::DeviceType::cpu;
    CHECK(default_tune_size(find_app("matmul"), gpu)[0] >
          default_tune_size(find_app("matmul"), cpu)[0]);
    // CPUs sweep fewer matmul points: each is a build of seconds.
    const auto cpu_points = tune_points(find_app("matmul"), "best", cpu);
    CHECK(cpu_points.size() < tune_points(find_app("matmul"), "best", gpu).size());
    CHECK(cpu_points.size() <= 6);
    CHECK(cpu_points.front().is_default);
    // Nothing to tune: a usage error naming what can be tuned.
    for (auto* dev : duet::devices()) {
        CHECK_THROWS_AS(tune(find_app("vecadd"), *dev, {}, 1), duet::Error);
        CHECK_THROWS_AS(tune(find_app("matmul"), *dev, {64}, 1, "tiled16"), duet::Error);
        break;
    }
}

TEST_CASE("tuning: stored parameters are applied, the user's own win") {
    TempDir dir;
    const auto gpu = fake_device("Big GPU");
    TuningStore s(dir.file());
    s.put(entry(gpu, "matmul", "best", {{"BEST_BM", "64"}, {"BEST_TM", "4"}}));
    s.put(entry(gpu, "conv5x5", "best", {{"CONV_BX", "64"}, {"CONV_BY", "4"}}));
    s.put(entry(gpu, "reduction", "atomic_f32", {}, std::array<std::size_t, 2>{128, 1}));
    s.put(entry(gpu, "conv5x5", "tiled", {{"CONV_TILE_W", "8"}}));                // not tunable
    s.put(entry(gpu, "reduction", "shuffle_i32", {{"DUET_HAS_SUBGROUPS", "0"}})); // not ours
    const auto& matmul = find_app("matmul");
    const auto& conv = find_app("conv5x5");
    const auto& red = find_app("reduction");

    RunConfig cfg;
    auto note = apply_tuned(s, gpu, matmul, variant_of(matmul, "best"), cfg);
    CHECK(cfg.defines == Defines{{"BEST_BM", "64"}, {"BEST_TM", "4"}});
    CHECK(note.rfind("tuned: BEST_BM=64,BEST_TM=4", 0) == 0);
    // Other variants of the same app are left alone.
    RunConfig other;
    CHECK(apply_tuned(s, gpu, matmul, variant_of(matmul, "reg8x8"), other).empty());
    CHECK(other.defines.empty());
    // Another device is left alone.
    RunConfig elsewhere;
    CHECK(apply_tuned(s, fake_device("Other GPU"), matmul, variant_of(matmul, "best"), elsewhere)
              .empty());
    // The user's define of a tuned name wins.
    RunConfig user;
    user.defines = {{"BEST_BM", "32"}};
    CHECK(apply_tuned(s, gpu, matmul, variant_of(matmul, "best"), user).empty());
    CHECK(user.defines.size() == 1);
    // conv5x5 best: the defines are the work-group, so a --local wins.
    RunConfig with_local;
    with_local.local = std::array<std::size_t, 2>{16, 16};
    CHECK(apply_tuned(s, gpu, conv, variant_of(conv, "best"), with_local).empty());
    RunConfig plain;
    CHECK(!apply_tuned(s, gpu, conv, variant_of(conv, "best"), plain).empty());
    CHECK(plain.defines.size() == 2);
    // reduction: the work-group size.
    RunConfig r;
    note = apply_tuned(s, gpu, red, variant_of(red, "atomic_f32"), r);
    REQUIRE(r.local);
    CHECK((*r.local)[0] == 128);
    CHECK(note.find("local=128") != std::string::npos);
    // Entries for variants without a space, or with names not in the space: ignored.
    RunConfig tiled, shuffle;
    CHECK(apply_tuned(s, gpu, conv, variant_of(conv, "tiled"), tiled).empty());
    CHECK(apply_tuned(s, gpu, red, variant_of(red, "shuffle_i32"), shuffle).empty());
    CHECK(shuffle.defines.empty());
}

TEST_CASE("tuning: a real sweep on every OpenCL device stores a passing winner that runs") {
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            MESSAGE("sweeping conv5x5 best on " << dev->label());
            TempDir dir;
            const auto& conv = find_app("conv5x5");
            std::size_t calls = 0;
            const auto rep = tune(conv, *dev, {67, 45}, 2, "all", 0,
                                  [&](const TunePoint&, std::size_t, std::size_t) { ++calls; });
            CHECK(calls == rep.rows.size());
            REQUIRE(rep.winners.size() == 1);
            REQUIRE(rep.winners[0].second);
            const TuneRow& win = rep.rows[*rep.winners[0].second];
            CHECK(win.status == TuneStatus::pass);
            for (const auto& row : rep.rows) {
                INFO(row.point.label << ": " << to_string(row.status) << " " << row.reason);
                CHECK(row.status != TuneStatus::fail);
                if (row.result) {
                    CHECK(row.result->verified);
                    for (const auto& [k, v] : row.point.defines)
                        CHECK(row.result->build_options.find("-D" + k + "=" + v) !=
                              std::string::npos);
                }
                if (row.result && row.result->pass)
                    CHECK(row.result->kernel_ms.median >=
                          win.result->kernel_ms.median); // the fastest median won
            }
            // Stored, found again, and applied to a run of the variant.
            auto e = entry_for(rep, "best", dev->info());
            REQUIRE(e);
            CHECK(e->size == "67x45");
            {
                TuningStore s(dir.file());
                s.put(*e);
                REQUIRE(s.save());
            }
            TuningStore s(dir.file());
            REQUIRE(s.find(dev->info(), "conv5x5", "best"));
            RunConfig cfg;
            cfg.size = {37, 21};
            cfg.reps = 1;
            cfg.warmup = 0;
            const auto note = apply_tuned(s, dev->info(), conv, variant_of(conv, "best"), cfg);
            CHECK(note.rfind("tuned: ", 0) == 0);
            const auto r = conv.run(*dev, variant_of(conv, "best"), cfg);
            CHECK(r.pass);
            for (const auto& [k, v] : e->defines)
                CHECK(r.build_options.find("-D" + k + "=" + v) != std::string::npos);

            // runapp run uses a stored non-default point by default and says so; --define wins.
            TuningStore forced(dir.file());
            forced.put(entry(dev->info(), "conv5x5", "best",
                             {{"CONV_BX", "16"}, {"CONV_BY", "8"}, {"CONV_BROWS", "2"}}));
            REQUIRE(forced.save());
            const std::string dev_arg =
                " --backend opencl --device " + std::to_string(dev->info().local_index);
            auto [code, out] = shell("DUET_CACHE_DIR=" + dir.path.string() + " " + runapp_path() +
                                     " run conv5x5 --variant best,tiled --size 37x21 --reps 1 "
                                     "--format json --quiet" +
                                     dev_arg);
            INFO(out);
            REQUIRE(code == 0);
            const auto j = nlohmann::json::parse(out.substr(out.find('{')));
            bool saw_best = false;
            for (const auto& res : j["results"]) {
                const std::string opts = res["build_options"];
                const std::string rnote = res.value("note", "");
                if (res["variant"] == "best") {
                    saw_best = true;
                    CHECK(opts.find("-DCONV_BX=16") != std::string::npos);
                    CHECK(opts.find("-DCONV_BROWS=2") != std::string::npos);
                    CHECK(rnote.find("tuned: CONV_BX=16,CONV_BY=8,CONV_BROWS=2") !=
                          std::string::npos);
                    CHECK(res["local"] == "16x8");
                } else { // tuned parameters are per variant
                    CHECK(opts.find("CONV_B") == std::string::npos);
                    CHECK(rnote.find("tuned") == std::string::npos);
                }
            }
            CHECK(saw_best);
            std::tie(code, out) =
                shell("DUET_CACHE_DIR=" + dir.path.string() + " " + runapp_path() +
                      " run conv5x5 --variant best --size 37x21 --reps 1 "
                      "--format json --quiet --define CONV_BROWS=1" +
                      dev_arg);
            REQUIRE(code == 0);
            CHECK(out.find("-DCONV_BX=16") == std::string::npos);
            CHECK(out.find("tuned:") == std::string::npos);
        }
    }
}
