// Files in the cache directory and kernel files (docs/design/security.md): temporary files a killed
// write left, names that hold terminal escapes, a tuned.json others can write, a cache path
// through someone else's link and "..", and a kernel file that is someone else's link.
#include <filesystem>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <duet/backend/private_files.hpp>
#include <duet/backend/program_cache.hpp>

#include "runapp_child.hpp"
#include "security_util.hpp"

using duet::ProgramCache;
using duet_test::check_no_crash;

TEST_CASE("security: cache clear removes the temporary files a killed write left, only those") {
    TempDir t("cachetmp");
    const fs::path c = t.path / "cache";
    fs::create_directories(c);
    ::chmod(c.c_str(), 0700);
    // What write_private_file and the key's creation leave when killed between open and rename.
    const std::vector<std::string> ours = {".0123456789abcdef0123456789abcdef.bin.AbC123",
                                           ".tuned.json.x1Y2z3", ".cache.key.new.4242",
                                           "..cache.key.new.4242.Qw3rTy"};
    const std::vector<std::string> theirs = {".notes.txt", "data.bin.AbC123", ".xyz.bin.AbC123",
                                             ".tuned.json.toolong7"};
    for (const auto& n : ours)
        write_file(c / n, "partial");
    for (const auto& n : theirs)
        write_file(c / n, "keep me");
    write_file(t.path / "target", "keep me too");
    fs::create_symlink(t.path / "target", c / ".fedcba9876543210.bin.QWERTY");
    const EnvChanges env = {{"DUET_CACHE_DIR", c.string()}};
    auto r = runapp({"cache", "ls"}, env, t.path, 60);
    INFO(r.out << r.err);
    CHECK(r.code == 0);
    for (const auto& n : ours)
        CHECK(contains(r.out, n));
    CHECK(contains(r.out, "unfinished write"));
    r = runapp({"cache", "clear"}, env, t.path, 60);
    CHECK(r.code == 0);
    for (const auto& n : ours)
        CHECK_FALSE(fs::exists(c / n));
    for (const auto& n : theirs)
        CHECK(fs::exists(c / n));
    CHECK(fs::is_symlink(c / ".fedcba9876543210.bin.QWERTY"));
    CHECK(read_file(t.path / "target") == "keep me too");
}

TEST_CASE("security: cache ls prints terminal control characters escaped") {
    TempDir t("cachels");
    const fs::path c = t.path / "cache";
    fs::create_directories(c);
    ::chmod(c.c_str(), 0700);
    write_file(c / "\x1b]0;owned\x07\x1b[2J.bin", "not an entry");
    const auto r = runapp({"cache", "ls"}, {{"DUET_CACHE_DIR", c.string()}}, t.path, 60);
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\x07') == std::string::npos);
    CHECK(contains(r.out, "\\x1b]0;owned\\x07"));
}

TEST_CASE("security: a private file others can write (tuned.json, an entry) is not read") {
    TempDir t("tunedmode");
    const fs::path f = t.path / "tuned.json";
    write_file(f, "{\"entries\": []}");
    ::chmod(f.c_str(), 0600);
    std::string why;
    CHECK(duet::read_private_file(f.string(), 1 << 20, &why));
    ::chmod(f.c_str(), 0666);
    CHECK_FALSE(duet::read_private_file(f.string(), 1 << 20, &why));
    CHECK(contains(why, "writable by group or others"));
    CHECK(contains(why, "chmod go-w " + f.string()));
}

TEST_CASE("security: DUET_CACHE_DIR through LINK/.. is judged where the kernel resolves it") {
    TempDir t("cachedotdot");
    const fs::path real = t.path / "real", inner = real / "inner", link = t.path / "link";
    fs::create_directories(inner);
    ::chmod(real.c_str(), 0700);
    fs::create_directory_symlink(inner, link);
    // link/.. is real/ (the link's target's parent), not t.path: the cache is made there.
    ProgramCache mine((link / ".." / "cache").string());
    CHECK(mine.enabled());
    CHECK(fs::is_directory(real / "cache"));
    CHECK_FALSE(fs::exists(t.path / "cache"));
    if (::geteuid() != 0) {
        MESSAGE("not root: someone else's link cannot be made; that half is skipped");
        return;
    }
    REQUIRE(::lchown(link.c_str(), 65534, 65534) == 0);
    ProgramCache theirs((link / ".." / "x").string());
    CHECK_FALSE(theirs.enabled());
    CHECK(contains(theirs.why_off(), "symbolic link " + link.string()));
    CHECK_FALSE(fs::exists(real / "x"));
}

TEST_CASE("security: runapp compile refuses a kernel file that is someone else's link") {
    if (::geteuid() != 0) {
        MESSAGE("not root: someone else's link cannot be made; skipped");
        return;
    }
    TempDir t("compilelink");
    write_file(t.path / "secret.txt", "TOPSECRET-LINE-1\nTOPSECRET-LINE-2\n");
    const fs::path k = t.path / "k.cl";
    fs::create_symlink(t.path / "secret.txt", k);
    REQUIRE(::lchown(k.c_str(), 65534, 65534) == 0);
    const auto r = runapp({"compile", k.string(), "--target", "spirv"}, {}, t.path, 60);
    check_no_crash(r);
    INFO(r.out << r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "symbolic link " + k.string()));
    CHECK_FALSE(contains(r.out + r.err, "TOPSECRET"));
}
