// Reliability and diagnostics, through the real runapp binary: the program cache under
// concurrent processes, damaged entries and unusable directories; DUET_KERNEL_DIR with a wrong
// kernel (the check must catch it); --timeout. The command-line fuzz is test_fuzz.cpp (the same
// test_reliability executable).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <duet/backend/program_cache.hpp>

#include "runapp_child.hpp"
#include "tuned_store.hpp"

extern char** environ;

namespace fs = std::filesystem;

namespace {

// A run in --format json: every result passed; returns the results.
nlohmann::json json_results(const Proc& r) {
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    REQUIRE(r.code == 0);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(r.out));
    REQUIRE(j["results"].size() > 0);
    for (const auto& res : j["results"])
        CHECK(res["pass"] == true);
    return j["results"];
}

bool all_cache_hits(const nlohmann::json& results) {
    for (const auto& res : results)
        if (res["cache_hit"] != true)
            return false;
    return true;
}

void check_pass(const Proc& r) {
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.signal == 0);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "PASS"));
    CHECK_FALSE(contains(r.out, "FAIL"));
}

std::vector<fs::path> files_in(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().filename() != "cache.key") // the cache's secret, not an entry
            out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<fs::path> entries_in(const fs::path& dir) {
    std::vector<fs::path> out;
    for (auto& p : files_in(dir))
        if (p.extension() == ".bin")
            out.push_back(p);
    return out;
}

// Every file of the cache directory (but its key) is an entry that the cache's own reader
// accepts whole (magic, size and MAC), and nothing else is there (no temporary files).
void check_cache_whole(const fs::path& dir) {
    const auto files = files_in(dir);
    CHECK(!files.empty());
    duet::ProgramCache cache(dir.string());
    for (const auto& f : files) {
        INFO("cache file " << f);
        CHECK(f.extension() == ".bin");
        CHECK(f.filename().string()[0] != '.');
        if (f.extension() == ".bin")
            CHECK(cache.load(f.stem().string()).has_value());
    }
}

} // namespace

// ---------------------------------------------------------------------------------------------
// 1. The program cache, driven through runapp
// ---------------------------------------------------------------------------------------------

TEST_CASE("reliability: 8 runapp processes at once fill one empty cache with whole entries") {
    DUET_NEED_OPENCL();
    TempDir t("concurrent");
    const fs::path cache = t.path / "cache";
    fs::create_directories(cache);
    const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()}};
    std::vector<Child> children;
    for (int i = 0; i < 8; ++i)
        children.emplace_back(small_vecadd, env, t.path);
    for (auto& c : children)
        check_pass(c.wait(300));

    check_cache_whole(cache);
    // A later process takes every program from the cache.
    const auto res = json_results(runapp(with(small_vecadd, {"--format", "json"}), env, t.path));
    CHECK(all_cache_hits(res));
    check_cache_whole(cache);
}

TEST_CASE("reliability: corrupted, truncated and foreign cache entries are rebuilt, never used") {
    DUET_NEED_OPENCL();
    TempDir t("damaged");
    const fs::path cache = t.path / "cache";
    const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()}};
    const auto json_run = with(small_vecadd, {"--format", "json"});
    json_results(runapp(json_run, env, t.path));
    const auto entries = entries_in(cache);
    REQUIRE(!entries.empty());

    auto damage = [&](const std::string& how) {
        for (const auto& e : entries) {
            std::string bytes = read_file(e);
            REQUIRE(bytes.size() > 64);
            if (how == "corrupt") {
                // Bytes in the middle of the file: the payload, past the header.
                for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16; ++i)
                    bytes[i] = static_cast<char>(bytes[i] ^ 0x5A);
                write_file(e, bytes);
            } else if (how == "truncate") {
                fs::resize_file(e, bytes.size() / 2);
            } else if (how == "foreign") {
                // A well-formed entry (right size and checksum) whose payload no driver can
                // load: the path where the driver itself refuses the binary.
                duet::ProgramCache c(cache.string());
                std::vector<unsigned char> junk(4096);
                std::mt19937 rng(7);
                for (auto& b : junk)
                    b = static_cast<unsigned char>(rng());
                c.store(e.stem().string(), junk, "junk");
                REQUIRE(c.load(e.stem().string()) == junk);
            }
        }
    };

    for (const std::string how : {"corrupt", "truncate", "foreign"}) {
        SUBCASE(how.c_str()) {
            damage(how);
            const auto res = json_results(runapp(json_run, env, t.path));
            // The damaged entry was not taken as a hit: the program was built again ...
            CHECK(res[0]["cache_hit"] == false);
            // ... and written back whole, so the next process hits.
            check_cache_whole(cache);
            CHECK(entries_in(cache) == entries); // the same keys, no stray files
            CHECK(all_cache_hits(json_results(runapp(json_run, env, t.path))));
        }
    }
}

TEST_CASE("reliability: an unusable cache directory means no cache; a missing one is created") {
    DUET_NEED_OPENCL();
    TempDir t("dirs");
    SUBCASE("read-only or impossible directory") {
        fs::path cache;
        if (::geteuid() == 0) {
            // root writes through 0555; a path under a regular file can never be created.
            write_file(t.path / "plain-file", "x");
            cache = t.path / "plain-file" / "cache";
        } else {
            cache = t.path / "ro";
            fs::create_directories(cache);
            REQUIRE(::chmod(cache.c_str(), 0555) == 0);
        }
        const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()}};
        for (int i = 0; i < 2; ++i) {
            const auto res =
                json_results(runapp(with(small_vecadd, {"--format", "json"}), env, t.path));
            CHECK(res[0]["cache_hit"] == false); // nothing was cached
        }
        check_pass(runapp(small_vecadd, env, t.path));
        if (::geteuid() == 0)
            CHECK(fs::is_regular_file(t.path / "plain-file"));
        else
            CHECK(files_in(cache).empty());
        const auto ls = runapp({"cache", "ls"}, env, t.path);
        INFO(ls.out << ls.err);
        CHECK(ls.code == 0);
        CHECK(contains(ls.out, "off"));
    }
    SUBCASE("a directory that does not exist yet") {
        const fs::path cache = t.path / "not" / "yet" / "there";
        const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()}};
        check_pass(runapp(small_vecadd, env, t.path));
        CHECK(fs::is_directory(cache));
        CHECK(!entries_in(cache).empty());
        check_cache_whole(cache);
        CHECK(all_cache_hits(
            json_results(runapp(with(small_vecadd, {"--format", "json"}), env, t.path))));
    }
    SUBCASE("DUET_CACHE_DIR empty: the cache is off") {
        const EnvChanges env = {{"DUET_CACHE_DIR", ""}};
        for (int i = 0; i < 2; ++i) {
            const auto res =
                json_results(runapp(with(small_vecadd, {"--format", "json"}), env, t.path));
            CHECK(res[0]["cache_hit"] == false);
        }
        const auto ls = runapp({"cache", "ls"}, env, t.path);
        INFO(ls.out << ls.err);
        CHECK(ls.code == 0);
        CHECK(contains(ls.out, "cache is off"));
        const auto clear = runapp({"cache", "clear"}, env, t.path);
        CHECK(clear.code == 0);
        CHECK(contains(clear.out, "cache is off"));
        // Built from source once: no binary read back and built again as a second program
        // (which only a cache needs), as a first build with a cache does.
        const auto off =
            runapp(small_vecadd, {{"DUET_CACHE_DIR", ""}, {"DUET_LOG_LEVEL", "debug"}}, t.path);
        INFO(off.err);
        CHECK(contains(off.err, "clBuildProgram("));
        CHECK_FALSE(contains(off.err, "clCreateProgramWithBinary("));
        // Every launch's debug line names the local size passed and where it came from.
        CHECK(contains(off.err, "launch vecadd"));
        CHECK(contains(off.err, ": local size "));
        const auto on = runapp(
            small_vecadd,
            {{"DUET_CACHE_DIR", (t.path / "on").string()}, {"DUET_LOG_LEVEL", "debug"}}, t.path);
        CHECK(contains(on.err, "clCreateProgramWithBinary("));
    }
}

TEST_CASE("reliability: runapp cache ls lists the entries and cache clear removes them") {
    DUET_NEED_OPENCL();
    TempDir t("ls");
    const fs::path cache = t.path / "cache";
    const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()}};
    auto ls = runapp({"cache", "ls"}, env, t.path);
    CHECK(ls.code == 0);
    CHECK(contains(ls.out, " 0 entries"));
    check_pass(runapp(small_vecadd, env, t.path));
    check_pass(runapp({"reduction", "--size", "1000", "--reps", "1", "--warmup", "0", "--device",
                       "opencl:0", "--variant", "sequential_i32"},
                      env, t.path));
    const auto entries = entries_in(cache);
    REQUIRE(entries.size() >= 2);
    ls = runapp({"cache", "ls"}, env, t.path);
    INFO(ls.out << ls.err);
    CHECK(ls.code == 0);
    CHECK(contains(ls.out, " " + std::to_string(entries.size()) + " entries"));
    for (const auto& e : entries)
        CHECK(contains(ls.out, e.filename().string()));
    CHECK(contains(ls.out, "vecadd.cl"));
    CHECK(contains(ls.out, "reduction.cl"));
    const auto clear = runapp({"cache", "clear"}, env, t.path);
    INFO(clear.out << clear.err);
    CHECK(clear.code == 0);
    CHECK(contains(clear.out, "removed " + std::to_string(entries.size()) + " entries"));
    CHECK(entries_in(cache).empty());
    ls = runapp({"cache", "ls"}, env, t.path);
    CHECK(contains(ls.out, " 0 entries"));
    // The next run builds again and the cache fills again.
    const auto res = json_results(runapp(with(small_vecadd, {"--format", "json"}), env, t.path));
    CHECK(res[0]["cache_hit"] == false);
    CHECK(!entries_in(cache).empty());
}

// ---------------------------------------------------------------------------------------------
// 2. DUET_KERNEL_DIR: results are verified, so a wrong kernel fails
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
// 3. --timeout
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
