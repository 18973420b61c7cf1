// Reliability and diagnostics, through the real runapp binary: the program cache under
// concurrent processes, damaged entries and unusable directories; DUET_KERNEL_DIR with a wrong
// kernel (the check must catch it); --timeout; and a seeded fuzz of the command line, where
// every run must end by itself with an exit code of 0-3 that agrees with the verdicts printed.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <duet/backend/program_cache.hpp>

#include "app.hpp"
#include "runapp_child.hpp"

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

// ---------------------------------------------------------------------------------------------
// 4. Fuzzing the command line
// ---------------------------------------------------------------------------------------------

namespace {

struct Verdicts {
    int pass = 0, fail = 0;
};

// PASS/FAIL in a table (as whole words: "CL_BUILD_PROGRAM_FAILURE" is not a verdict), results
// of --format json and rows of --format csv.
void scan_verdicts(const std::string& text, Verdicts& v) {
    static const std::regex word(R"(\b(PASS|FAIL)\b)");
    std::istringstream lines(text);
    std::string line;
    int pass_col = -1, verified_col = -1;
    auto split = [](const std::string& s) {
        std::vector<std::string> f;
        std::stringstream ss(s);
        std::string x;
        while (std::getline(ss, x, ','))
            f.push_back(x);
        return f;
    };
    while (std::getline(lines, line)) {
        for (auto it = std::sregex_iterator(line.begin(), line.end(), word);
             it != std::sregex_iterator(); ++it)
            ((*it)[1] == "PASS" ? v.pass : v.fail)++;
        if (line.rfind("app,variant,", 0) == 0) {
            const auto h = split(line);
            for (int i = 0; i < static_cast<int>(h.size()); ++i) {
                if (h[i] == "pass")
                    pass_col = i;
                if (h[i] == "verified")
                    verified_col = i;
            }
        } else if (pass_col >= 0) {
            const auto f = split(line);
            if (static_cast<int>(f.size()) > std::max(pass_col, verified_col) &&
                f[verified_col] == "1")
                (f[pass_col] == "1" ? v.pass : v.fail)++;
        }
    }
    const auto first = text.find_first_not_of(" \n");
    if (first != std::string::npos && text[first] == '{') {
        try {
            const auto j = nlohmann::json::parse(text);
            if (j.contains("results"))
                for (const auto& r : j["results"])
                    if (r.value("verified", false) && !r.value("skipped", false))
                        (r.value("pass", false) ? v.pass : v.fail)++;
        } catch (const std::exception&) {
        }
    }
}

// Values for each option: `good` ones that some command accepts, `bad` ones that are malformed
// or out of range. Good sizes stay small so that runs that are accepted finish quickly on a CPU.
struct Choice {
    std::vector<std::string> good, bad;
};

// The apps of the registry, by name.
std::vector<std::string> app_names() {
    std::vector<std::string> names;
    for (const auto* app : duet::apps::all_apps())
        names.push_back(app->name());
    return names;
}

struct Pools {
    std::vector<std::string> apps = app_names();
    std::vector<std::string> odd_apps = {
        "fft",          "",  "VECADD",   "vecadd,matmul", "vec add",
        "ｖｅｃａｄｄ", "-", "vecadd\t", "reduction_i32", "123"};
    Choice sizes = {{"100", "64", "2^6", "17", "1", "33", "3x5", "16x16x16", "5x7x9", "1x1x1",
                     "100x3", "2^4x2^3", "2^6,17", "64,100", "1,2,3", "7x1", "1x7"},
                    {"1x1x1x1",
                     "2^",
                     "0x5",
                     "1e3",
                     "99999999999999",
                     "18446744073709551615",
                     "17179869184G",
                     "17179869186G",
                     "999999999999G",
                     "4095G",
                     "2^40",
                     "2^41",
                     "2^-1",
                     "3^2",
                     "-1",
                     "",
                     "12x",
                     "x12",
                     "x",
                     "0",
                     " 64",
                     "64 ",
                     "٣",
                     "６４",
                     "1,,2",
                     "64,",
                     ",",
                     "0x0",
                     "1.5",
                     "0x10",
                     "1kx",
                     "+5",
                     "5M5",
                     "1T",
                     "64\n",
                     "2^99999999999",
                     "00000000000064",
                     "2^31",
                     "65536x32768"}};
    Choice locals = {{"16", "8x8", "4x4", "1", "2", "32", "16x16,8x8", "2x8", "2^3x2", "64", "1x1"},
                     {"0x4", "4x", "x4", "0", "4x4x4", "1000000", "8,,16", "", ",", "-4", "٤",
                      "4294967297", "1e2", "99999999999999", "3", "2^40x2^40"}};
    Choice devices = {{"opencl:0", "0", "opencl", "pthread", "cpu", "OPENCL:0"},
                      {"opencl:",
                       ":0",
                       "cuda:-1",
                       "cuda:0",
                       "cuda",
                       "1",
                       "99",
                       "-1",
                       "uuid:",
                       "uuid:zz",
                       "",
                       ":",
                       "opencl:00",
                       "opencl:0x1",
                       "opencl: 0",
                       "opencl:-0",
                       "opencl:99999999999",
                       "ｏｐｅｎｃｌ:0",
                       "opencl:0,opencl:0",
                       "all",
                       "opencl:0,",
                       ",",
                       "0,,0"}};
    Choice backends = {{"opencl"}, {"cuda", "metal", "", "OpenCL", "cuda,opencl", "opencl "}};
    // Variants by app: valid ones whose programs build quickly, and malformed lists. The
    // ladder tops of reduction (unroll_all, built for each work-group size) and conv5x5 (tiled
    // and best, for each local size) take PoCL tens of seconds to build: test_apps runs them.
    std::map<std::string, std::vector<std::string>> variants = {
        {"vecadd", {"naive", "vec4", "all", "naive,vec4", "vec4,naive"}},
        {"matmul", {"naive", "tiled16", "best", "all", "naive,tiled16", "reg4x4"}},
        {"conv5x5", {"naive", "const", "rows", "naive,rows"}},
        {"reduction",
         {"sequential_i32", "shuffle_f32", "atomic_i32", "interleaved_f32,atomic_i32"}}};
    std::vector<std::string> bad_variants = {
        ",",       "naive,",     ",naive",      "bogus",       "",     "ALL", "naive,,vec4", "vec4",
        "tiled16", "sequential", "interleaved", "naive, vec4", "NAIVE"};
    // What runs when the fuzz gives no --variant, so that builds stay cheap.
    std::map<std::string, std::string> default_variant = {
        {"conv5x5", "naive,const,rows"}, {"reduction", "sequential_i32,shuffle_f32,atomic_f32"}};
    Choice reps = {{"1", "2"}, {"0", "-1", "1.5", "１", "", "99999999999", "1e1", "0x1"}};
    Choice warmups = {{"0", "1", "00"}, {"-1", "x", "", "99999999999"}};
    Choice verifies = {{"full", "sample", "off"}, {"maybe", "", "FULL", "json"}};
    Choice formats = {{"table", "json", "csv"}, {"xml", "", "JSON", "full"}};
    Choice seeds = {{"0", "7", "2147483647"}, {"-1", "99999999999", "abc", "2147483648", ""}};
    Choice defines = {{"TILE=16", "X", "X=1", "TILE=8"},
                      {"=3", "A B=1", "", "Y=\"q\"", "=", "Z=a\\b", "ÄÖ=1"}};
    Choice timeouts = {{"600", "0x258", "1e3", "1e-9"},
                       {"0", "-1", "nan", "inf", "abc", "", "1e9", "600s"}};
    std::vector<std::string> junk = {"--frobnicate",
                                     "-x",
                                     "--",
                                     "---size",
                                     "--size=",
                                     "--size=64",
                                     "-",
                                     "--Size",
                                     "—size",
                                     "--reps=",
                                     "--=",
                                     "-1",
                                     "--quiet",
                                     "--help",
                                     "--version",
                                     "x",
                                     "",
                                     " ",
                                     "🙂",
                                     "--device=opencl:0",
                                     "--format=json",
                                     "--local=4x",
                                     "--variant=naive,,vec4",
                                     "--timeout=600",
                                     "--output",
                                     "--html"};
};

std::vector<std::string> generate(std::mt19937& rng, const Pools& p, const fs::path& tmp,
                                  const fs::path& out_file) {
    auto pick = [&](const std::vector<std::string>& v) -> std::string {
        return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
    };
    auto chance = [&](double x) { return std::uniform_real_distribution<double>(0, 1)(rng) < x; };
    auto choose = [&](const Choice& c) { return chance(0.6) ? pick(c.good) : pick(c.bad); };
    std::vector<std::string> a;
    bool runs_app = false;
    const int shape = std::uniform_int_distribution<int>(0, 99)(rng);
    std::string app;
    if (shape < 60) {
        app = chance(0.9) ? pick(p.apps) : pick(p.odd_apps);
        if (chance(0.3))
            a.push_back("run");
        a.push_back(app);
        runs_app = true;
    } else if (shape < 70) {
        a.push_back("compare");
        app = chance(0.9) ? pick(p.apps) : pick(p.odd_apps);
        a.push_back(app);
        runs_app = true;
    } else if (shape < 75) {
        a = {"info", choose(p.devices)};
    } else if (shape < 80) {
        a = {"list"};
    } else if (shape < 84) {
        a = {"cache", chance(0.5) ? "ls" : pick({"clear", "explode", "", "ls ls", "LS"})};
    } else if (shape < 88) {
        a = {"bandwidth"};
    } else if (shape < 90) {
        a = {"doctor"};
    } else if (shape < 93) {
        app = "vecadd matmul";
        a = {"vecadd", "matmul"};
    } else if (shape < 96) {
        a = {pick({"help", "version", "--help", "--version", "run", "info"})};
    } // else: options only
    // Reps, warmup and the variants first: the fuzzed options after them replace them.
    a.insert(a.end(), {"--reps", "1", "--warmup", "0"});
    if (runs_app && p.default_variant.count(app))
        a.insert(a.end(), {"--variant", p.default_variant.at(app)});
    if (chance(0.7))
        a.insert(a.end(), {"--device", "opencl:0"});
    bool sized = false;
    const int n = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int i = 0; i < n; ++i) {
        const int o = std::uniform_int_distribution<int>(0, 16)(rng);
        switch (o) {
        case 0:
        case 1:
        case 2:
            a.insert(a.end(), {"--size", choose(p.sizes)});
            sized = true;
            break;
        case 3:
            a.insert(a.end(), {"--local", choose(p.locals)});
            break;
        case 4:
            a.insert(a.end(), {"--device", choose(p.devices)});
            break;
        case 5:
            a.insert(a.end(), {"--backend", choose(p.backends)});
            break;
        case 6:
        case 7: {
            const auto valid = p.variants.find(app);
            a.insert(a.end(), {"--variant", valid != p.variants.end() && chance(0.6)
                                                ? pick(valid->second)
                                                : pick(p.bad_variants)});
            break;
        }
        case 8:
            a.insert(a.end(), {"--reps", choose(p.reps)});
            break;
        case 9:
            a.insert(a.end(), {"--warmup", choose(p.warmups)});
            break;
        case 10:
            a.insert(a.end(), {"--verify", choose(p.verifies)});
            break;
        case 11:
            a.insert(a.end(), {"--format", choose(p.formats)});
            break;
        case 12:
            a.insert(a.end(), {"--seed", choose(p.seeds)});
            break;
        case 13: // new build options mean new builds: only vecadd's program is cheap to build
            if (app == "vecadd" || app.empty())
                a.insert(a.end(), {"--define", choose(p.defines)});
            else
                a.insert(a.end(), {"--timeout", choose(p.timeouts)});
            break;
        case 14:
            a.push_back(chance(0.5) ? "--output" : "--html");
            a.push_back(chance(0.6) ? out_file.string()
                                    : pick({(tmp / "no" / "such" / "dir" / "x").string(),
                                            tmp.string(), ""}));
            break;
        case 15:
            a.insert(a.end(), {"--devices", choose(p.devices)});
            break;
        default:
            a.push_back(pick(p.junk));
            break;
        }
    }
    // An option without its value at the end of the line.
    if (chance(0.05))
        a.push_back(pick(
            {"--size", "--device", "--variant", "--local", "--define", "--timeout", "--format"}));
    if (runs_app && !sized)
        a.insert(a.end(), {"--size", app == "matmul" ? "48" : app == "conv5x5" ? "40x30" : "1000"});
    return a;
}

} // namespace

TEST_CASE(
    "reliability: command-line edge cases: overflowing sizes, limits, lists with empty items") {
    // The parser alone, for the wrap-around that would have become a 12 GiB run.
    CHECK_THROWS_WITH(duet::apps::parse_dims("17179869185G"), doctest::Contains("too large"));
    CHECK_THROWS_WITH(duet::apps::parse_dims("1x17179869185G"), doctest::Contains("too large"));
    CHECK(duet::apps::parse_dims("1073741824k") == std::vector<std::size_t>{std::size_t{1} << 40});
    CHECK(duet::apps::parse_dims("1048576M") == std::vector<std::size_t>{std::size_t{1} << 40});
    CHECK(duet::apps::parse_dims("1024G") == std::vector<std::size_t>{std::size_t{1} << 40});
    CHECK_THROWS(duet::apps::parse_dims("1025G"));
    DUET_NEED_OPENCL();
    TempDir t("edges");
    const EnvChanges env = {{"DUET_CACHE_DIR", (t.path / "cache").string()}};
    struct Case {
        std::vector<std::string> args;
        int code;
        const char* says;
    };
    const Case cases[] = {
        // Twelve digits and a G used to wrap around 64 bits: 17179869185G read as 1G (a 12 GiB
        // vecadd), 17179869186G as 2G and 17179869184G as "zero". (The wrap to 1G is not run
        // here: were the bug back, the run would try to take 24 GiB.)
        {{"vecadd", "--size", "17179869186G"}, 2, "too large"},
        {{"conv5x5", "--size", "17179869184G"}, 2, "too large"},
        {{"vecadd", "--size", "999999999999G"}, 2, "too large"},
        {{"reduction", "--size", "1073741824k"},
         2,
         "outside"}, // 2^40: the parser takes it, the app not
        {{"vecadd", "--size", "2^31"}, 2, "over 2^31-1"},
        {{"reduction", "--size", "2^31"}, 2, "2^31-1"},
        {{"conv5x5", "--size", "65536x32768"}, 2, "over 2^31-1 pixels"},
        {{"matmul", "--size", "2^40"}, 2, "over 2^31-1 elements"},
        {{"vecadd", "--size", "1x1x1x1"}, 2, "one size"},
        {{"vecadd", "--size", "2^"}, 2, "powers of two"},
        {{"vecadd", "--size", "0x5"}, 2, "zero"},
        {{"vecadd", "--size", "1e3"}, 2, "not a number"},
        {{"vecadd", "--local", "0x4"}, 2, "zero"},
        {{"vecadd", "--local", "4x"}, 2, "empty dimension"},
        {{"vecadd", "--variant", "naive,,vec4"}, 2, "no variant ''"},
        {{"vecadd", "--device", "opencl:"}, 2, "not a number"},
        {{"vecadd", "--device", ":0"}, 2, "no device matches"},
        // An empty item in --devices used to mean the default device, silently.
        {{"compare", "vecadd", "--devices", "opencl:0,"}, 2, "empty item"},
        {{"compare", "vecadd", "--devices", ","}, 2, "empty item"},
        // compare filtered devices by the --backend name as typed: "OpenCL" matched none.
        {{"compare", "vecadd", "--backend", "OpenCL"}, 0, "PASS"},
        {{"vecadd", "--backend", "OpenCL"}, 0, "PASS"},
        // The largest seed --seed allows was refused (ten digits).
        {{"vecadd", "--seed", "2147483647"}, 0, "seed 2147483647"},
        {{"vecadd", "--seed", "2147483648"}, 2, "--seed"},
    };
    for (const auto& c : cases) {
        auto args = c.args;
        if (std::find(args.begin(), args.end(), "--device") == args.end() && args[0] != "compare")
            args.insert(args.end(), {"--device", "opencl:0"});
        if (std::find(args.begin(), args.end(), "--size") == args.end())
            args.insert(args.end(), {"--size", "100"});
        args.insert(args.end(), {"--reps", "1", "--warmup", "0"});
        const auto r = runapp(args, env, t.path, 60);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.code == c.code);
        CHECK(contains(r.out + r.err, c.says));
    }
}

TEST_CASE(
    "reliability: fuzzed command lines end by themselves with a code that matches the output") {
    TempDir t("fuzz");
    const fs::path cache = t.path / "cache";
    const EnvChanges env = {{"DUET_CACHE_DIR", cache.string()}, {"DUET_KERNEL_DIR", std::nullopt}};
    const char* seed_env = std::getenv("DUET_FUZZ_SEED");
    const char* count_env = std::getenv("DUET_FUZZ_COUNT");
    const unsigned seed =
        seed_env ? static_cast<unsigned>(std::strtoul(seed_env, nullptr, 10)) : 20261123u;
    const int count = count_env ? std::atoi(count_env) : 200;
    MESSAGE("fuzz seed " << seed << ", " << count
                         << " command lines (DUET_FUZZ_SEED, DUET_FUZZ_COUNT)");

    // Edge cases that must be in every run, then the seeded random ones.
    std::vector<std::vector<std::string>> cases = {
        {"vecadd", "--size", "17179869186G", "--device", "opencl:0", "--reps", "1", "--warmup",
         "0"},
        {"conv5x5", "--size", "17179869184G", "--device", "opencl:0"},
        {"vecadd", "--size", "1x1x1x1"},
        {"vecadd", "--size", "2^"},
        {"vecadd", "--size", "0x5"},
        {"vecadd", "--size", "1e3"},
        {"vecadd", "--variant", "naive,,vec4", "--size", "100", "--reps", "1", "--warmup", "0"},
        {"vecadd", "--local", "0x4", "--size", "100"},
        {"vecadd", "--local", "4x", "--size", "100"},
        {"vecadd", "--device", "opencl:", "--size", "100"},
        {"vecadd", "--device", ":0", "--size", "100"},
        {"vecadd", "--device", "cuda:-1", "--size", "100"},
        {"vecadd", "--size", ""},
        {"vecadd", "--size", "６４"},
        {"matmul", "--size", "2^40", "--device", "opencl:0"},
        {"reduction", "--size", "2^31", "--device", "opencl:0"},
        {"vecadd", "--size", "2^31", "--device", "opencl:0"},
        {"conv5x5", "--size", "65536x32768", "--device", "opencl:0"},
        {"--timeout", "1e-9", "list"},
        {"info", ""},
        {"compare", "vecadd", "--devices", ",", "--size", "100"},
        {"compare", "vecadd", "--devices", "opencl:0,", "--size", "100"},
        {"bandwidth", "--size", "1", "--reps", "1", "--warmup", "0"},
        {"bandwidth", "--size", "0x5"},
    };
    std::mt19937 rng(seed);
    const Pools pools;
    const std::size_t fixed = cases.size();
    auto out_file = [&](std::size_t i) { return t.path / ("out-" + std::to_string(i) + ".txt"); };
    while (cases.size() < fixed + static_cast<std::size_t>(count))
        cases.push_back(generate(rng, pools, t.path, out_file(cases.size())));

    // Two at a time: the machine this runs on may have two cores.
    std::vector<Proc> results(cases.size());
    std::atomic<std::size_t> next{0};
    std::mutex failure_mutex;
    std::string spawn_failure;
    auto worker = [&] {
        for (std::size_t i; (i = next++) < cases.size();) {
            try {
                results[i] = Child(cases[i], env, t.path).wait(90);
                // Under LeakSanitizer its tracer thread itself can crash while it stops a
                // process whose driver threads are exiting ("Tracer caught signal 11 ...
                // LeakSanitizer has encountered a fatal error", exit 1, seen 3 times in 200 on a
                // cold PoCL cache): that says nothing of runapp, so the line runs once more.
                if (results[i].err.find("LeakSanitizer has encountered a fatal error") !=
                    std::string::npos)
                    results[i] = Child(cases[i], env, t.path).wait(90);
            } catch (const std::exception& e) {
                std::lock_guard lock(failure_mutex);
                spawn_failure = e.what();
            }
        }
    };
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (int w = 0; w < 2; ++w)
        workers.emplace_back(worker);
    for (auto& w : workers)
        w.join();
    REQUIRE(spawn_failure.empty());

    // DUET_FUZZ_LOG=FILE keeps every command line, its exit code and the first line it printed.
    std::ofstream log;
    if (const char* path = std::getenv("DUET_FUZZ_LOG"))
        log.open(path);
    std::map<int, int> by_code;
    double slowest = 0;
    std::string slowest_cmd;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const Proc& r = results[i];
        by_code[r.signal ? -r.signal : r.code]++;
        if (r.seconds > slowest) {
            slowest = r.seconds;
            slowest_cmd = r.cmd;
        }
        if (log)
            log << "exit " << r.code << " signal " << r.signal << " " << r.seconds
                << " s: " << r.cmd << "\n    "
                << (r.err.empty() ? r.out.substr(0, r.out.find('\n'))
                                  : r.err.substr(0, r.err.find('\n')))
                << "\n";
        Verdicts v;
        scan_verdicts(r.out, v);
        scan_verdicts(read_file(out_file(i)), v); // --output FILE, where the case wrote one
        INFO("case " << i << ": " << r.cmd << "\nexit " << r.code << " signal " << r.signal
                     << std::string(r.timed_out ? " TIMED OUT" : "") << " after " << r.seconds
                     << " s\nstdout: " << r.out.substr(0, 3000)
                     << "\nstderr: " << r.err.substr(0, 3000));
        CHECK_FALSE(r.timed_out);
        CHECK(r.signal == 0);
        CHECK((r.code >= 0 && r.code <= 3));
        if (r.timed_out || r.signal)
            continue;
        if (contains(r.err, "timed out after")) { // --timeout fired: that is exit 3, whatever ran
            CHECK(r.code == 3);
            continue;
        }
        // Exit 1 means a result was wrong, and it says which.
        if (v.fail > 0)
            CHECK(r.code == 1);
        if (r.code == 1)
            CHECK(v.fail > 0);
        // Results that all passed: exit 0, unless an error after them is reported.
        if (v.pass > 0 && v.fail == 0 && r.code != 0) {
            CHECK(r.code != 1);
            CHECK(contains(r.err, "runapp: error:"));
        }
        // Exit 2 and 3 always say why; a usage error comes before any result, except an
        // output file that cannot be written.
        if (r.code == 2 || r.code == 3)
            CHECK(contains(r.err, "runapp: error:"));
        if (r.code == 2 && !contains(r.err, "cannot write"))
            CHECK(v.pass + v.fail == 0);
        if (r.code == 2)
            CHECK(contains(r.err, "runapp --help"));
    }
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::string codes;
    for (auto [c, n] : by_code)
        codes += (c < 0 ? " signal " + std::to_string(-c) : " exit " + std::to_string(c)) + ": " +
                 std::to_string(n) + ",";
    MESSAGE(cases.size() << " command lines in " << secs << " s;" << codes << " slowest " << slowest
                         << " s: " << slowest_cmd);
}
