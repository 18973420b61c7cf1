// Hostile and careless environments (docs/SECURITY.md): a cache directory others can write,
// entries signed with another key, links planted at entry names, cache clear next to files that
// are not Duet's, FIFOs in place of files, control characters in defines, truncated plugins and
// ICD libraries, allocations beyond memory, a kernel that never ends, unhelpful environment
// variables. Each case failed (crash, hang, wrong file touched, silent) before the fix.
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
#include <duet/backend/host_memory.hpp>
#include <duet/backend/program_cache.hpp>
#include <duet/duet.hpp>

#include "runapp_child.hpp"

using duet::ProgramCache;

namespace {

const std::vector<unsigned char> payload = {1, 2, 3, 0, 255, 7, 9};

std::vector<fs::path> entries_in(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".bin")
            out.push_back(e.path());
    return out;
}

mode_t mode_of(const fs::path& p) {
    struct stat st {};
    ::lstat(p.c_str(), &st);
    return st.st_mode & 07777;
}

// Runs `fn` in a child process; true when it returned true within `seconds` (a hang is killed).
template <class Fn> bool in_child_within(double seconds, Fn fn) {
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(fn() ? 0 : 1);
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(seconds)) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

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

void check_no_crash(const Proc& r) {
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.signal == 0);
    CHECK_FALSE(r.timed_out);
    CHECK(r.code >= 0);
    CHECK(r.code <= 3);
}

} // namespace

// ---- the cache directory ----

TEST_CASE("security: the cache directory is created 0700 and entries 0600, whatever the umask") {
    TempDir t("umask");
    const fs::path dir = t.path / "a" / "b";
    const mode_t old = ::umask(0);
    ProgramCache c(dir.string());
    const auto key = ProgramCache::key({"umask"});
    c.store(key, payload, "d");
    ::umask(old);
    REQUIRE(c.enabled());
    CHECK(mode_of(t.path / "a") == 0700);
    CHECK(mode_of(dir) == 0700);
    CHECK(mode_of(dir / (key + ".bin")) == 0600);
    CHECK(mode_of(dir / "cache.key") == 0600);
    CHECK(c.load(key).has_value());
}

TEST_CASE("security: a cache directory others can write, or someone else's, is refused") {
    TempDir t("shared");
    SUBCASE("group/other writable") {
        const fs::path dir = t.path / "shared";
        fs::create_directories(dir);
        ::chmod(dir.c_str(), 0777);
        ProgramCache c(dir.string());
        CHECK_FALSE(c.enabled());
        CHECK(contains(c.why_off(), dir.string()));
        CHECK(contains(c.why_off(), "chmod 700"));
        c.store(ProgramCache::key({"x"}), payload, "d");
        CHECK(entries_in(dir).empty());
    }
    SUBCASE("owned by someone else") {
        const fs::path dir = t.path / "foreign";
        fs::create_directories(dir);
        ::chmod(dir.c_str(), 0700);
        if (::geteuid() == 0)
            REQUIRE(::chown(dir.c_str(), 65534, 65534) == 0);
        const fs::path use = ::geteuid() == 0 ? dir : fs::path("/");
        ProgramCache c(use.string());
        CHECK_FALSE(c.enabled());
        CHECK(contains(c.why_off(), "not by you"));
    }
    SUBCASE("under a directory others can write (not sticky)") {
        const fs::path open = t.path / "open";
        fs::create_directories(open);
        ::chmod(open.c_str(), 0777);
        ProgramCache c((open / "mine").string());
        CHECK_FALSE(c.enabled());
        CHECK(contains(c.why_off(), open.string()));
    }
    SUBCASE("through a symbolic link someone else owns (they could repoint it)") {
        // The link leads to a private directory of the user's own, so every check on the
        // real path passes; the link's owner could still swap its target afterwards.
        const fs::path mine = t.path / "mine", link = t.path / "planted";
        fs::create_directories(mine);
        ::chmod(mine.c_str(), 0700);
        fs::create_directory_symlink(mine, link);
        if (::geteuid() != 0)
            return; // only root can give a link to someone else
        REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);
        ProgramCache c((link / "cache").string());
        CHECK_FALSE(c.enabled());
        CHECK(contains(c.why_off(), "symbolic link " + link.string()));
        ProgramCache own((mine / "cache").string()); // the same directory, reached directly
        CHECK(own.enabled());
    }
}

TEST_CASE("security: a run with a shared cache directory still passes, uncached, with a warning") {
    DUET_NEED_OPENCL();
    TempDir t("sharedrun");
    const fs::path dir = t.path / "cache";
    fs::create_directories(dir);
    ::chmod(dir.c_str(), 0777);
    const auto r = runapp(small_vecadd, {{"DUET_CACHE_DIR", dir.string()}}, t.path);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "PASS"));
    CHECK(contains(r.err, dir.string()));
    CHECK(contains(r.err, "chmod 700"));
    CHECK(entries_in(dir).empty());
}

// ---- entries ----

TEST_CASE("security: an entry signed with another cache's key is not loaded") {
    TempDir t("forge");
    ProgramCache a((t.path / "a").string()), b((t.path / "b").string());
    REQUIRE(a.enabled());
    REQUIRE(b.enabled());
    const auto key = ProgramCache::key({"forged"});
    a.store(key, payload, "planted");
    REQUIRE(a.load(key));
    fs::copy_file(t.path / "a" / (key + ".bin"), t.path / "b" / (key + ".bin"));
    CHECK_FALSE(b.load(key));
    // Nor is an entry moved to another key's name in its own cache.
    const auto other = ProgramCache::key({"other"});
    fs::copy_file(t.path / "a" / (key + ".bin"), t.path / "a" / (other + ".bin"));
    CHECK_FALSE(a.load(other));
}

TEST_CASE("security: links planted at entry and temporary names are never followed") {
    TempDir t("links");
    const fs::path dir = t.path / "cache", victim = t.path / "victim.txt";
    ProgramCache c(dir.string());
    REQUIRE(c.enabled());
    write_file(victim, "precious");
    const auto key = ProgramCache::key({"linked"});
    // The old names: ".<key>.<pid>.<n>.tmp" and the entry itself.
    for (int n = 0; n < 16; ++n)
        fs::create_symlink(victim, dir / ("." + key + "." + std::to_string(::getpid()) + "." +
                                          std::to_string(n) + ".tmp"));
    fs::create_symlink(victim, dir / (key + ".bin"));
    CHECK_FALSE(c.load(key)); // O_NOFOLLOW: a link is not an entry
    c.store(key, payload, "d");
    CHECK(read_file(victim) == "precious");
    CHECK(fs::is_regular_file(fs::symlink_status(dir / (key + ".bin"))));
    CHECK(c.load(key).has_value());
}

TEST_CASE("security: cache clear removes only Duet entries, never other files or links") {
    TempDir t("clear");
    const fs::path dir = t.path / "cache", victim = t.path / "victim.bin";
    ProgramCache c(dir.string());
    REQUIRE(c.enabled());
    write_file(victim, "precious");
    write_file(dir / "x.bin", "a user's file");
    fs::create_symlink(victim, dir / "link.bin");
    c.store(ProgramCache::key({"one"}), payload, "d");
    CHECK(c.clear() == 1);
    CHECK(read_file(dir / "x.bin") == "a user's file");
    CHECK(fs::is_symlink(dir / "link.bin"));
    CHECK(read_file(victim) == "precious");
    // The same through runapp.
    c.store(ProgramCache::key({"two"}), payload, "d");
    const auto r = runapp({"cache", "clear"}, {{"DUET_CACHE_DIR", dir.string()}}, t.path, 60);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "removed 1 "));
    CHECK(fs::exists(dir / "x.bin"));
    CHECK(fs::is_symlink(dir / "link.bin"));
    CHECK(read_file(victim) == "precious");
}

TEST_CASE("security: a FIFO in place of an entry or of tuned.json does not hang") {
    TempDir t("fifo");
    const fs::path dir = t.path / "cache";
    ProgramCache c(dir.string());
    REQUIRE(c.enabled());
    const auto key = ProgramCache::key({"fifo"});
    REQUIRE(::mkfifo((dir / (key + ".bin")).c_str(), 0600) == 0);
    CHECK(in_child_within(10, [&] { return !c.load(key).has_value(); }));
    CHECK(in_child_within(10, [&] { return c.list().size() == 1; })); // ls and clear too
    CHECK(in_child_within(10, [&] { return c.clear() == 0; }));
    CHECK(fs::is_fifo(dir / (key + ".bin")));

    // A kernel source given as a FIFO (KernelSources::from_files) is refused, not waited on.
    const fs::path src = t.path / "kernel.cl";
    REQUIRE(::mkfifo(src.c_str(), 0600) == 0);
    CHECK(in_child_within(10, [&] {
        try {
            duet::KernelSources::from_files(src.string(), "");
        } catch (const duet::Error& e) {
            return contains(e.what(), "not a regular file");
        }
        return false;
    }));

    REQUIRE(::mkfifo((dir / "tuned.json").c_str(), 0600) == 0);
    if (has_opencl0()) {
        const auto r = runapp(small_vecadd, {{"DUET_CACHE_DIR", dir.string()}}, t.path, 60);
        check_no_crash(r);
        INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
        CHECK(r.code == 0);
        CHECK(contains(r.err, "tuned.json"));
    }
}

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
