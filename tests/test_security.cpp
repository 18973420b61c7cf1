// Hostile and careless environments (docs/design/security.md): control characters in defines,
// truncated plugins and ICD libraries, allocations beyond memory, a kernel that never ends,
// unhelpful environment variables. Each case failed (crash, hang, silent) before the fix. The
// program cache's cases are in test_security_cache.cpp.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <duet/backend/build_options.hpp>
#include <duet/backend/elf_check.hpp>
#include <duet/backend/program_cache.hpp>
#include <duet/duet.hpp>
#include <duet/host_memory.hpp>

#include "runapp_child.hpp"
#include "security_util.hpp"

using duet::ProgramCache;
using duet_test::check_no_crash;
using duet_test::in_child_within;

namespace {

// The built plugin, for truncated copies.
fs::path built_plugin(const std::string& name) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(DUET_BINARY_DIR, ec); !ec && it != fs::end(it);
         it.increment(ec))
        if (it->path().filename() == "libduet_" + name + ".so" && it->is_regular_file())
            return it->path();
    return {};
}

// The first n bytes of `from`, as a new file `to`.
void truncated_copy(const fs::path& from, const fs::path& to, std::size_t n) {
    std::string s = read_file(from);
    s.resize(std::min(n, s.size()));
    write_file(to, s);
}

} // namespace

// ---- defines ----

TEST_CASE("security: control characters and option syntax in a define are refused") {
    for (const std::string& v : std::vector<std::string>{
             "1\v-include/etc/passwd", "1\f-Dx", "1\r", "a\tb", "1 -O0", "-include", "\"x\"",
             "a\\b", "caf\xc3\xa9", std::string("1\0x", 3)})
        CHECK_THROWS_AS(duet::check_define("X", v), duet::Error);
    for (const std::string n : {"", "1X", "X-Y", "X\v", "A B"})
        CHECK_THROWS_AS(duet::check_define(n, "1"), duet::Error);
    for (const std::string v : {"", "1", "-1", "-0.5f", "float", "4u", "(1<<2)"})
        CHECK_NOTHROW(duet::check_define("X", v));
    TempDir t("define");
    const auto r = runapp(with(small_vecadd, {"--define", "X=1\v-include/etc/passwd"}),
                          {{"DUET_CACHE_DIR", (t.path / "c").string()}}, t.path, 60);
    check_no_crash(r);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "\\x0b"));
}

// ---- plugins and ICD libraries ----

TEST_CASE("security: a truncated plugin is reported, not a SIGBUS, by list and doctor") {
    const fs::path plugin = built_plugin("opencl");
    if (plugin.empty()) {
        MESSAGE("no OpenCL plugin built: skipped");
        return;
    }
    TempDir t("plugin");
    truncated_copy(plugin, t.path / plugin.filename(), fs::file_size(plugin) / 2);
    CHECK(contains(duet::check_shared_library((t.path / plugin.filename()).string()), "truncated"));
    CHECK(duet::check_shared_library(plugin.string()).empty());
    const EnvChanges env = {{"DUET_BACKEND_PATH", t.path.string()},
                            {"DUET_CACHE_DIR", (t.path / "c").string()}};
    for (const auto& cmd : {std::vector<std::string>{"list"}, std::vector<std::string>{"doctor"}}) {
        const auto r = runapp(cmd, env, t.path, 120);
        check_no_crash(r);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(contains(r.out + r.err, (t.path / plugin.filename()).string()));
        CHECK(contains(r.out + r.err, "damaged"));
    }
}

TEST_CASE("security: a truncated ICD library is kept from the loader and named, not a SIGBUS") {
    std::string listed;
    std::ifstream("/etc/OpenCL/vendors/pocl.icd") >> listed;
    const std::string lib = listed.empty() ? "" : duet::find_shared_library(listed);
    if (lib.empty()) {
        MESSAGE("no PoCL ICD library: skipped");
        return;
    }
    TempDir t("icd");
    const fs::path bad = t.path / "libbroken-icd.so";
    truncated_copy(lib, bad, fs::file_size(lib) / 2);
    fs::create_directories(t.path / "vendors");
    write_file(t.path / "vendors" / "broken.icd", bad.string() + "\n");
    write_file(t.path / "vendors" / "pocl.icd", lib + "\n");
    const EnvChanges env = {{"OCL_ICD_VENDORS", (t.path / "vendors").string()},
                            {"OCL_ICD_FILENAMES", std::nullopt},
                            {"DUET_CACHE_DIR", (t.path / "c").string()}};
    for (const auto& cmd : {std::vector<std::string>{"list"}, std::vector<std::string>{"doctor"}}) {
        const auto r = runapp(cmd, env, t.path, 180);
        check_no_crash(r);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(contains(r.out + r.err, bad.string()));
        CHECK(contains(r.out + r.err, "damaged"));
    }
    // The good library still gives its device.
    const auto r = runapp({"list", "--format", "json"}, env, t.path, 180);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "opencl:0"));
}

// ---- memory and time ----

TEST_CASE("security: a buffer beyond the host's memory on a CPU device is a fast, clear error") {
    for (auto* dev : duet::devices()) {
        if (dev->info().type != "CPU")
            continue;
        const std::uint64_t avail = duet::host_memory_available();
        REQUIRE(avail > 0);
        const std::uint64_t ask =
            std::min<std::uint64_t>(avail + (avail / 2), dev->info().max_alloc_bytes);
        if (ask <= avail) {
            MESSAGE(dev->label() << ": its largest allocation is within the host's memory");
            continue;
        }
        const auto t0 = std::chrono::steady_clock::now();
        try {
            auto b = dev->alloc_bytes(static_cast<std::size_t>(ask));
            FAIL("allocated " << ask << " bytes with " << avail << " available");
        } catch (const duet::Error& e) {
            CHECK(contains(e.what(), "available"));
        }
        CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5));
    }
}

TEST_CASE("security: vecadd arrays that fit one by one but not together are refused at once") {
    DUET_NEED_OPENCL();
    // n floats fit (n x 4 <= avail), so each array alone passes its own check; a, b and c
    // together (n x 12) do not. Unchecked, the run filled memory for minutes before failing.
    const std::uint64_t avail = duet::host_memory_available();
    const std::uint64_t n = std::min<std::uint64_t>(INT32_MAX, avail / 8);
    if (avail == 0 || n * 4 > avail || n * 12 <= avail) {
        MESSAGE("no size between one array and three fits this host's memory: skipped");
        return;
    }
    TempDir t("workset");
    const auto r = runapp({"vecadd", "--size", std::to_string(n), "--variant", "naive", "--reps",
                           "1", "--warmup", "0", "--device", "opencl:0"},
                          {{"DUET_CACHE_DIR", (t.path / "c").string()}}, t.path, 90);
    check_no_crash(r);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "vecadd's a, b and c"));
    CHECK(contains(r.err, "is available"));
}

TEST_CASE("security: --timeout ends a kernel that never returns on the CPU device") {
    DUET_NEED_OPENCL();
    TempDir t("hang");
    const fs::path src = DUET_SOURCE_DIR;
    fs::copy(src / "kernels_cl", t.path / "kernels_cl", fs::copy_options::recursive);
    fs::copy(src / "kernels_cu", t.path / "kernels_cu", fs::copy_options::recursive);
    const fs::path f = t.path / "kernels_cl" / "vecadd.cl";
    std::string text = read_file(f);
    const auto at = text.find("c[i] = a[i] + b[i];");
    REQUIRE(at != std::string::npos);
    // Stores on every pass: a loop the compiler may not remove.
    text.replace(at, 19, "for (int k = 0; ; k = (k + 1) & 7) c[(i + k) % n] = a[i] + b[i] + k;");
    write_file(f, text);
    const auto r =
        runapp({"vecadd", "--variant", "naive", "--size", "1000", "--reps", "1", "--warmup", "0",
                "--device", "opencl:0", "--timeout", "5"},
               {{"DUET_KERNEL_DIR", t.path.string()}, {"DUET_CACHE_DIR", (t.path / "c").string()}},
               t.path, 90);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.signal == 0);
    CHECK(r.code == 3);
    CHECK(contains(r.err, "timed out"));
    CHECK_FALSE(contains(r.out, "PASS"));
}

// ---- messages ----

TEST_CASE("security: environment variables that do not help get a message that does") {
    TempDir t("env");
    const EnvChanges base = {{"DUET_CACHE_DIR", (t.path / "c").string()}};
    auto env = [&](EnvChanges more) {
        more.insert(base.begin(), base.end());
        return more;
    };
    auto r = runapp({"list"}, env({{"DUET_LOG_LEVEL", "loud"}}), t.path, 120);
    CHECK(r.code == 0);
    CHECK(contains(r.err, "DUET_LOG_LEVEL=loud"));
    CHECK(contains(r.err, "warn"));

    r = runapp({"list"}, env({{"DUET_BACKEND_PATH", (t.path / "nowhere").string()}}), t.path, 120);
    CHECK(r.code == 0);
    CHECK(contains(r.err, (t.path / "nowhere").string()));

    if (has_opencl0()) {
        fs::create_directories(t.path / "empty");
        r = runapp(small_vecadd, env({{"DUET_KERNEL_DIR", (t.path / "empty").string()}}), t.path,
                   120);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        check_no_crash(r);
        CHECK(r.code != 0);
        CHECK(contains(r.err, "DUET_KERNEL_DIR=" + (t.path / "empty").string()));
        CHECK(contains(r.err, "kernels_cl"));
    }

    fs::create_directories(t.path / "c");
    ::chmod((t.path / "c").c_str(), 0700);
    write_file(t.path / "c" / "tuned.json", "{ damaged");
    if (has_opencl0()) {
        r = runapp(small_vecadd, base, t.path, 120);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.code == 0);
        CHECK(contains(r.err, (t.path / "c" / "tuned.json").string()));
        CHECK(contains(r.err, "rm "));
    }
}
