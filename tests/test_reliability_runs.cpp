// Runs that go wrong end with the right verdict, through the real runapp binary: DUET_KERNEL_DIR
// with a wrong kernel (the check must catch it, exit 1) or one that does not compile (exit 3 with
// the log); --timeout (exit 3); the cpu reduction at any work-group size; a tuned.json work-group
// the kernel refuses. The program cache's cases are test_reliability_cache.cpp, the command-line
// fuzz test_fuzz.cpp (the same test_reliability executable).
#include <array>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runapp_child.hpp"
#include "tuned_store.hpp"

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------
// 1. DUET_KERNEL_DIR: results are verified, so a wrong kernel fails
// ---------------------------------------------------------------------------------------------

TEST_CASE("reliability: DUET_KERNEL_DIR with a wrong vecadd_naive fails the check (exit 1)") {
    DUET_NEED_OPENCL();
    TempDir t("kerneldir");
    const fs::path src = DUET_SOURCE_DIR;
    auto copy_tree = [&](const fs::path& to) {
        fs::create_directories(to);
        fs::copy(src / "kernels_cl", to / "kernels_cl", fs::copy_options::recursive);
        fs::copy(src / "kernels_cu", to / "kernels_cu", fs::copy_options::recursive);
    };
    const fs::path good = t.path / "good", bad = t.path / "bad", broken = t.path / "broken";
    copy_tree(good);
    copy_tree(bad);
    copy_tree(broken);

    // vecadd_naive computes a - b in the bad tree; vecadd_vec4 is left as it is.
    {
        const fs::path f = bad / "kernels_cl" / "vecadd.cl";
        std::string text = read_file(f);
        const auto k = text.find("void vecadd_naive(");
        REQUIRE(k != std::string::npos);
        const auto body_end = text.find("\n}", k);
        const auto plus = text.find("a[i] + b[i]", k);
        REQUIRE(plus != std::string::npos);
        REQUIRE(plus < body_end);
        text.replace(plus, 11, "a[i] - b[i]");
        write_file(f, text);
    }
    // A syntax error in the broken tree: a build failure must carry the compiler's log.
    {
        const fs::path f = broken / "kernels_cl" / "vecadd.cl";
        std::string text = read_file(f);
        const auto plus = text.find("a[i] + b[i]");
        REQUIRE(plus != std::string::npos);
        text.replace(plus, 11, "a[i] + b[i] +* duet_undeclared");
        write_file(f, text);
    }

    const fs::path cache = t.path / "cache";
    const std::vector<std::string> naive = {"vecadd", "--variant", "naive",   "--size",
                                            "1000",   "--reps",    "1",       "--warmup",
                                            "0",      "--device",  "opencl:0"};
    SUBCASE("unedited copy passes") {
        const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()},
                                {"DUET_KERNEL_DIR", good.string()}};
        check_pass(runapp(naive, env, t.path));
        check_pass(runapp(
            {"vecadd", "--size", "1000", "--reps", "1", "--warmup", "0", "--device", "opencl:0"},
            env, t.path));
    }
    SUBCASE("a - b instead of a + b fails, with exit code 1") {
        const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()},
                                {"DUET_KERNEL_DIR", bad.string()}};
        auto r = runapp(naive, env, t.path);
        {
            INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
            CHECK(r.code == 1);
            CHECK(contains(r.out, "FAIL"));
            CHECK_FALSE(contains(r.out, "PASS"));
        }
        // Only the edited kernel is wrong: in one run, naive fails and vec4 passes.
        r = runapp(with(naive, {"--variant", "naive,vec4", "--format", "json"}), env, t.path);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.code == 1);
        const auto j = nlohmann::json::parse(r.out);
        REQUIRE(j["results"].size() == 2);
        for (const auto& res : j["results"]) {
            CHECK(res["verified"] == true);
            CHECK(res["pass"] == (res["variant"] == "vec4"));
            if (res["variant"] == "naive")
                CHECK(res["max_error"].get<double>() > res["tolerance"].get<double>());
        }
        // The same run without DUET_KERNEL_DIR uses the embedded kernels and passes: the
        // environment variable is what made the difference.
        check_pass(runapp(naive,
                          {{"DUET_CACHE_DIR", cache.string()}, {"DUET_KERNEL_DIR", std::nullopt}},
                          t.path));
    }
    SUBCASE("a kernel that does not compile: exit 3 with the compiler's log") {
        const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()},
                                {"DUET_KERNEL_DIR", broken.string()}};
        const auto r = runapp(naive, env, t.path);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.code == 3);
        CHECK(contains(r.err, "clBuildProgram"));
        CHECK(contains(r.err, "duet_undeclared"));
        CHECK_FALSE(contains(r.out, "PASS"));
    }
}

// ---------------------------------------------------------------------------------------------
// 2. --timeout
// ---------------------------------------------------------------------------------------------

TEST_CASE("reliability: --timeout ends a run that takes longer with exit code 3") {
    DUET_NEED_OPENCL();
    TempDir t("timeout");
    const EnvChanges env = {{"DUET_CACHE_DIR", (t.path / "cache").string()}};
    auto r = runapp(
        {"matmul", "--size", "256", "--reps", "50", "--device", "opencl:0", "--timeout", "0.001"},
        env, t.path, 60);
    {
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.signal == 0);
        CHECK(r.code == 3);
        CHECK(contains(r.err, "timed out"));
        CHECK_FALSE(contains(r.out, "PASS"));
        CHECK(r.seconds < 30);
    }
    // A generous timeout does not disturb a normal run.
    r = runapp(with(small_vecadd, {"--timeout", "600"}), env, t.path);
    check_pass(r);
    CHECK_FALSE(contains(r.err, "timed out"));
}

TEST_CASE("reliability: the cpu reduction ends and passes with any work-group size") {
    // Groups of 2 to 16 hung on PoCL 3.1 and larger ones lost sums while the kernel left groups
    // of one early, before the barrier the others reach (kernels_cl/reduction_cpu.cl).
    DUET_NEED_OPENCL();
    TempDir t("cpu-reduction");
    for (const char* local : {"2", "16", "64"}) {
        const auto r = runapp({"reduction", "--variant", "cpu_i32,cpu_f32", "--size", "65537",
                               "--local", local, "--reps", "2", "--warmup", "1", "--device",
                               "opencl:0", "--timeout", "120"},
                              {{"DUET_CACHE_DIR", (t.path / "cache").string()}}, t.path, 150);
        check_pass(r);
    }
}

TEST_CASE("tuned.json: a stored work-group the kernel refuses runs the defaults, and says where "
          "it came from") {
    if (!has_opencl0())
        return;
    const duet::DeviceInfo& info = duet::select_device("opencl:0").info();
    TempDir cache("tuned-local"), scratch("tuned-local-out");
    ::chmod(cache.path.c_str(), 0700);
    duet::apps::TunedEntry e;
    e.backend = info.backend;
    e.platform = info.platform;
    e.device = info.name;
    e.driver = info.driver_version;
    e.app = "reduction";
    e.variant = "grid_stride_i32";
    e.local = std::array<std::size_t, 2>{std::size_t{1} << 20, 1}; // over any device's limit
    e.size = "4096";
    {
        duet::apps::TuningStore store((cache.path / "tuned.json").string());
        store.put(e);
        REQUIRE(store.save());
    }
    const auto r =
        runapp({"run", "reduction", "--device", "opencl:0", "--variant", "grid_stride_i32",
                "--size", "4096", "--reps", "1", "--warmup", "0", "--format", "json"},
               {{"DUET_CACHE_DIR", cache.path.string()}}, scratch.path);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.code == 0); // the defaults ran and passed: not a --local usage error
    CHECK(contains(r.out, "tuned.json"));
    CHECK(contains(r.out, "cannot run"));
}
