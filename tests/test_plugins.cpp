// Plugin discovery: a backend that is not part of Duet (tests/fake_backend, built into a folder
// of its own) is found through DUET_BACKEND_PATH, listed, selected, diagnosed by doctor and
// refused cleanly when asked to run, with no change to Duet or runapp.
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runapp_shell.hpp"

namespace {

std::string with_fake(const std::string& args) {
    return "DUET_BACKEND_PATH=" DUET_FAKE_PLUGIN_DIR " DUET_CACHE_DIR= " +
           duet_test::runapp_path() + " " + args;
}

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
