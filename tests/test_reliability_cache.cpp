// The program cache under real runapp processes: eight at once filling one empty cache,
// damaged entries (corrupt, truncated, foreign) rebuilt and never used, unusable or missing
// directories, and `runapp cache ls|clear`. The other reliability cases are
// test_reliability_runs.cpp and test_fuzz.cpp (the same test_reliability executable).
#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <duet/backend/program_cache.hpp>

#include "runapp_child.hpp"

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
