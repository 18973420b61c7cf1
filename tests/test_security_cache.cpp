// The program cache under hostile and careless conditions (docs/design/security.md): a cache
// directory others can write or someone else owns, a shared one, entries signed with another key,
// links planted at entry and temporary names, cache clear beside files that are not Duet's, FIFOs
// in place of entries or of tuned.json. Each case failed (wrong file touched, hang, silent) before
// its fix. The other hostile inputs are in test_security.cpp.
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
