// Plugin discovery: a backend that is not part of Duet (tests/fake_backend, built into a folder
// of its own) is found when DUET_BACKEND_PATH names its file, listed, selected, diagnosed by
// doctor and refused cleanly when asked to run, with no change to Duet or runapp. And the trust
// checks on DUET_BACKEND_PATH (docs/design/security.md): no plugin of another name from a
// directory, no relative entry, no directory or file someone else can change.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runapp_shell.hpp"

namespace {

namespace fs = std::filesystem;

const std::string fake_plugin = DUET_FAKE_PLUGIN_DIR "/libduet_fake.so";

std::string with_path(const std::string& path, const std::string& args) {
    return "DUET_BACKEND_PATH='" + path + "' DUET_CACHE_DIR= " + duet_test::runapp_path() + " " +
           args;
}

std::string with_fake(const std::string& args) {
    return with_path(fake_plugin, args);
}

// A fresh directory under /tmp (0755, the user's), removed at the end.
struct Scratch {
    fs::path path;
    Scratch() {
        std::string t = (fs::temp_directory_path() / "duet-plugins-XXXXXX").string();
        REQUIRE(::mkdtemp(t.data()));
        path = t;
        ::chmod(path.c_str(), 0755);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

bool contains(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("plugins: an out-of-tree plugin in DUET_BACKEND_PATH is listed next to Duet's own") {
    auto [code, out] = duet_test::shell(with_fake("list"));
    INFO(out);
    CHECK(code == 0);
    CHECK(contains(out, "fake:0"));
    CHECK(contains(out, "Fake Accelerator 1"));
    CHECK(contains(out, "opencl")); // Duet's own plugins are still found next to libduet

    std::tie(code, out) = duet_test::shell(with_fake("list --format json 2>/dev/null"));
    REQUIRE(code == 0);
    const auto j = nlohmann::json::parse(out);
    bool fake = false;
    for (const auto& b : j["backends"])
        fake = fake || (b["name"] == "fake" && b["devices"] == 1);
    CHECK(fake);
    CHECK(j["backends"].size() == 3);
}

TEST_CASE(
    "plugins: the out-of-tree device is selected by id, described, diagnosed and refuses work") {
    auto [code, out] = duet_test::shell(with_fake("info fake:0"));
    INFO(out);
    CHECK(code == 0);
    CHECK(contains(out, "Accelerator"));

    std::tie(code, out) = duet_test::shell(with_fake("doctor"));
    INFO(out);
    CHECK(contains(out, "[PASS] fake self-check"));
    CHECK(contains(out, "[PASS] backend fake: 1 device(s), fake 1.0"));
    CHECK(contains(out, "[FAIL] test kernel on fake:0"));
    CHECK(code == 3);

    std::tie(code, out) = duet_test::shell(with_fake("run vecadd --device fake:0 --size 1024"));
    INFO(out);
    CHECK(code == 3);
    CHECK(contains(out, "the fake device runs nothing"));
}

TEST_CASE("plugins: without the path the plugin is not loaded") {
    const auto [code, out] =
        duet_test::shell("DUET_CACHE_DIR= " + duet_test::runapp_path() + " list");
    INFO(out);
    CHECK(code == 0);
    CHECK_FALSE(contains(out, "fake:0"));
}

TEST_CASE("plugins: a plugin of another name in a DUET_BACKEND_PATH directory is not loaded") {
    Scratch s;
    fs::copy_file(fake_plugin, s.path / "libduet_fake.so");
    const auto [code, out] = duet_test::shell(with_path(s.path.string(), "list"));
    INFO(out);
    CHECK(code == 0);
    CHECK_FALSE(contains(out, "fake:0"));
    CHECK(contains(out, (s.path / "libduet_fake.so").string() + " not loaded"));
    CHECK(contains(out, "name the file itself in DUET_BACKEND_PATH"));
}

TEST_CASE("plugins: a relative DUET_BACKEND_PATH entry is refused, whatever it holds") {
    Scratch s;
    fs::create_directories(s.path / "plugins");
    fs::copy_file(fake_plugin, s.path / "plugins" / "libduet_opencl.so");
    for (const std::string entry : {"plugins", "plugins/libduet_opencl.so"}) {
        const auto [code, out] =
            duet_test::shell("cd " + s.path.string() + " && " + with_path(entry, "list"));
        INFO(out);
        CHECK(code == 0);
        CHECK_FALSE(contains(out, "Fake Accelerator"));
        CHECK(contains(out, "DUET_BACKEND_PATH entry " + entry + " refused"));
        CHECK(contains(out, "relative"));
    }
}

TEST_CASE("plugins: a directory or plugin file someone else can change is refused") {
    Scratch s;
    const fs::path open = s.path / "open", foreign = s.path / "foreign";
    fs::create_directories(open);
    fs::create_directories(foreign);
    fs::copy_file(fake_plugin, open / "libduet_opencl.so");
    fs::copy_file(fake_plugin, s.path / "libduet_fake.so");
    ::chmod(open.c_str(), 0777);
    auto refused = [](const std::string& entry, const std::string& why) {
        const auto [code, out] = duet_test::shell(with_path(entry, "list"));
        INFO(out);
        CHECK(code == 0);
        CHECK_FALSE(contains(out, "Fake Accelerator")); // its code never ran
        CHECK(contains(out, "DUET_BACKEND_PATH entry " + entry + " refused"));
        CHECK(contains(out, why));
        CHECK(contains(out, "opencl")); // Duet's own plugins still load
    };
    refused(open.string(), "writable by group or others");
    ::chmod((s.path / "libduet_fake.so").c_str(), 0666);
    refused((s.path / "libduet_fake.so").string(), "writable by group or others");
    ::chmod((s.path / "libduet_fake.so").c_str(), 0755);
    ::chmod(open.c_str(), 0755);
    ::chmod(s.path.c_str(), 0777); // now every entry lies under a directory others can change
    refused(open.string(), "which someone else can change");
    refused((s.path / "libduet_fake.so").string(), "which someone else can change");
    ::chmod(s.path.c_str(), 0755);
    if (::geteuid() != 0)
        return; // only root can give a directory to someone else
    fs::copy_file(fake_plugin, foreign / "libduet_opencl.so");
    REQUIRE(::chown(foreign.c_str(), 65534, 65534) == 0);
    refused(foreign.string(), "not by you");
}

TEST_CASE("plugins: a known name that someone else can change, in a trusted directory, is not "
          "loaded") {
    // The directory passes its checks (the user's, 0755); the file in it does not: writable by
    // others, a link into a directory others can write, or (as root) someone else's file.
    Scratch s;
    const fs::path open = s.path / "open", writable = s.path / "writable",
                   linked = s.path / "linked", foreign = s.path / "foreign";
    for (const auto& d : {open, writable, linked, foreign})
        fs::create_directories(d);
    ::chmod(open.c_str(), 0777);
    fs::copy_file(fake_plugin, open / "libduet_opencl.so");
    fs::copy_file(fake_plugin, writable / "libduet_opencl.so");
    ::chmod((writable / "libduet_opencl.so").c_str(), 0666);
    fs::create_symlink(open / "libduet_opencl.so", linked / "libduet_opencl.so");
    std::vector<std::pair<fs::path, std::string>> cases = {
        {writable, "writable by group or others"}, {linked, "which someone else can change"}};
    if (::geteuid() == 0) {
        fs::copy_file(fake_plugin, foreign / "libduet_opencl.so");
        REQUIRE(::chown((foreign / "libduet_opencl.so").c_str(), 65534, 65534) == 0);
        cases.emplace_back(foreign, "not by you");
    }
    for (const auto& [dir, why] : cases) {
        const auto [code, out] = duet_test::shell(with_path(dir.string(), "list"));
        INFO(out);
        CHECK(code == 0);
        CHECK_FALSE(contains(out, "Fake Accelerator")); // its code never ran
        CHECK(contains(out, "plugin " + (dir / "libduet_opencl.so").string() + " refused"));
        CHECK(contains(out, why));
        CHECK(contains(out, "opencl:0")); // Duet's own OpenCL plugin, next to libduet, loads
    }
}
