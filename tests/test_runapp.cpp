// runapp as a user runs it: every command (help, version, list, info, doctor, cache, run,
// compare), every output format, program provenance, and stable device ids across ICD set-ups.
// Bad command lines and failures are test_runapp_errors.cpp (the same test_runapp executable).
#include <filesystem>
#include <fstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <duet/duet.hpp>

#include "app.hpp"
#include "runapp_cli.hpp"

namespace {

namespace fs = std::filesystem;

nlohmann::json run_json(const std::string& env_and_args) {
    const auto [code, out] = duet_test::shell(env_and_args);
    INFO(env_and_args << "\n" << out);
    REQUIRE(code == 0);
    nlohmann::json j;
    REQUIRE_NOTHROW(j = nlohmann::json::parse(out));
    return j;
}

// The ICD file of PoCL among the system's vendors, "" when PoCL is not installed.
std::string pocl_icd_line() {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/etc/OpenCL/vendors", ec)) {
        std::ifstream in(e.path());
        std::string line;
        std::getline(in, line);
        if (line.find("pocl") != std::string::npos)
            return line;
    }
    return "";
}

} // namespace

TEST_CASE("runapp: help, version, list, doctor, cache") {
    auto r = runapp("--help");
    CHECK(r.code == 0);
    CHECK(r.out.find("runapp list") != std::string::npos);
    r = runapp("--version");
    CHECK(r.code == 0);
    CHECK(r.out.find(duet::version) != std::string::npos);
    r = runapp("list");
    CHECK(r.code == 0);
    CHECK(r.out.find("cuda:") != std::string::npos);
    CHECK(r.out.find("opencl:") != std::string::npos);
    r = runapp("list --format json");
    CHECK(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j["backends"].size() == 2);
    for (const auto& b : j["backends"])
        if (b["devices"] == 0)
            CHECK(!b["reason"].get<std::string>().empty());
    r = runapp("list steps"); // every step record of every app, as design/ladders.md lists them
    CHECK(r.code == 0);
    CHECK(r.out == duet::apps::steps_markdown());
    CHECK(r.out.find("| `best` | `matmul_best` |") != std::string::npos);
    CHECK(r.out.find("| `atomic_f32` | `reduce_atomic_f32` |") != std::string::npos);
    r = runapp("--help"); // the app list comes from the registry
    CHECK(r.out.find("apps: vecadd, matmul, conv5x5, reduction") != std::string::npos);
    r = runapp("cache ls");
    CHECK(r.code == 0);
    r = runapp("info --format json"); // the device profile's rows it matched, the plain one first
    if (r.code == 0)
        CHECK(nlohmann::json::parse(r.out)["Device profile"].get<std::string>().rfind("default",
                                                                                      0) == 0);
    r = runapp("doctor --format json");
    CHECK((r.code == 0 || r.code == 3));
    CHECK(nlohmann::json::parse(r.out).contains("steps"));
}

TEST_CASE("runapp: runs vecadd with every output format") {
    if (!has_opencl()) {
        MESSAGE("no OpenCL device");
        return;
    }
    auto r = runapp("--backend opencl --device 0 vecadd --size 1000 --reps 3");
    CHECK(r.code == 0);
    CHECK(r.out.find("PASS") != std::string::npos);
    CHECK(r.out.find("naive") != std::string::npos);
    r = runapp(
        "run vecadd --device opencl:0 --size 1000,4097 --variant naive --format json --reps 2");
    REQUIRE(r.code == 0);
    const auto j = nlohmann::json::parse(r.out);
    CHECK(j.contains("duet_version"));
    CHECK(j.contains("time"));
    REQUIRE(j["results"].size() == 2);
    for (const auto& res : j["results"]) {
        CHECK(res["pass"] == true);
        CHECK(res["backend"] == "opencl");
        CHECK(res["kernel_ms"]["runs"] == 2);
        CHECK(res.contains("build_options"));
        CHECK(res.contains("cache_hit"));
        CHECK(res["effective_gbs"].get<double>() > 0);
    }
    r = runapp("vecadd --device opencl:0 --size 999 --format csv --reps 2");
    CHECK(r.code == 0);
    CHECK(r.out.rfind("app,variant,backend", 0) == 0);
    r = runapp("compare vecadd --size 2000 --reps 2 --quiet");
    CHECK(r.code == 0);
    CHECK(r.out.find("vecadd, size 2000") != std::string::npos);
}

TEST_CASE("runapp: list prints csv and json as asked, with every device's stable id") {
    auto r = runapp("list --format csv");
    REQUIRE(r.code == 0);
    CHECK(r.out.rfind("index,id,stable_id,type,name,", 0) == 0);
    const auto devs = duet::devices();
    std::size_t lines = 0;
    for (char ch : r.out)
        lines += ch == '\n';
    CHECK(lines == devs.size() + 1);
    for (auto* d : devs) {
        INFO(d->label());
        CHECK(r.out.find("," + duet::stable_id(*d) + ",") != std::string::npos);
        // The stable id selects the device it names.
        CHECK(&duet::select_device(duet::stable_id(*d)) == d);
    }
    r = runapp("list");
    CHECK(r.code == 0);
    CHECK(r.out.find("stable id") != std::string::npos);
}

TEST_CASE("runapp: doctor says whether NVRTC is there and when it is needed") {
    // The CUDA plugin's own check (its diagnose), shown wherever the plugin loads: beside its
    // driver line, with or without a driver.
    const auto r = runapp("doctor");
    CHECK((r.code == 0 || r.code == 3));
    if (r.out.find("CUDA driver") == std::string::npos) {
        MESSAGE("no CUDA plugin in this build: no NVRTC line to check");
        return;
    }
    CHECK(r.out.find("NVRTC") != std::string::npos);
    CHECK((r.out.find("NVRTC: found: ") != std::string::npos ||
           r.out.find("needed only for CUDA kernels compiled at run time") != std::string::npos));
}

TEST_CASE(
    "runapp: program provenance is compiled, then memory cache in the process, then disk cache") {
    if (!has_opencl())
        return;
    const fs::path cache = fresh_dir("provenance-cache");
    const std::string cmd = "DUET_CACHE_DIR=" + cache.string() + " " + runapp_path() +
                            " vecadd --device opencl:0 --variant naive --size 1000,2000 --reps 1 "
                            "--warmup 0 --format json";
    auto j = run_json(cmd);
    REQUIRE(j["results"].size() == 2);
    CHECK(j["results"][0]["provenance"] == "compiled");
    CHECK(j["results"][0]["cache_hit"] == false);
    CHECK(j["results"][1]["provenance"] == "memory_cache"); // the second size, same process
    CHECK(j["results"][1]["cache_hit"] == true);
    j = run_json(cmd); // a second process finds the binary on disk
    CHECK(j["results"][0]["provenance"] == "disk_cache");
    CHECK(j["results"][1]["provenance"] == "memory_cache");
    const auto [code, csv] =
        duet_test::shell("DUET_CACHE_DIR=" + cache.string() + " " + runapp_path() +
                         " vecadd --device opencl:0 "
                         "--variant naive --size 1000 --reps 1 --format csv");
    CHECK(code == 0);
    CHECK(csv.find(",cache_hit,provenance,") != std::string::npos);
    CHECK(csv.find(",1,disk_cache,") != std::string::npos);
    fs::remove_all(cache);
}

TEST_CASE("runapp: a stable id names the same device when another ICD is installed") {
    const std::string pocl = pocl_icd_line();
    const fs::path oclgrind = fs::path(DUET_BINARY_DIR) / "oclgrind-vendors" / "oclgrind.icd";
    if (pocl.empty() || !fs::exists(oclgrind)) {
        MESSAGE("PoCL or Oclgrind is not installed: skipped");
        return;
    }
#if defined(__SANITIZE_ADDRESS__)
    MESSAGE("under AddressSanitizer Oclgrind's own leaks would fail runapp: skipped (the plain "
            "pass runs it)");
    return;
#endif
    // Two machines' worth of ICDs: PoCL alone, and PoCL with Oclgrind listed before it.
    const fs::path one = fresh_dir("icd-pocl"), two = fresh_dir("icd-both");
    std::ofstream(one / "pocl.icd") << pocl << "\n";
    std::ofstream(two / "pocl.icd") << pocl << "\n";
    fs::copy_file(oclgrind, two / "a-oclgrind.icd");
    const auto env = [](const fs::path& d) {
        return "OCL_ICD_VENDORS=" + d.string() + " OCL_ICD_FILENAMES= " + runapp_path();
    };
    const auto alone = run_json(env(one) + " list --format json");
    std::string pocl_id, pocl_name;
    for (const auto& d : alone["devices"])
        if (d["backend"] == "opencl") {
            pocl_id = d["stable_id"];
            pocl_name = d["name"];
        }
    REQUIRE(!pocl_id.empty());
    CHECK(pocl_id.rfind("opencl:portable-computing-language/", 0) == 0);

    const auto both = run_json(env(two) + " list --format json");
    std::string pocl_position;
    int opencl_devices = 0;
    for (const auto& d : both["devices"]) {
        if (d["backend"] != "opencl")
            continue;
        ++opencl_devices;
        if (d["name"] == pocl_name)
            pocl_position = d["id"];
        else
            CHECK(d["stable_id"] != pocl_id); // Oclgrind's id is its own
    }
    CHECK(opencl_devices == 2);
    // The stable id picks PoCL in both set-ups...
    for (const auto* d : {&one, &two}) {
        const auto info = run_json(env(*d) + " info " + pocl_id + " --format json");
        CHECK(info["Name"] == pocl_name);
        CHECK(info["Stable id"] == pocl_id);
    }
    // ...while opencl:0 is whichever platform the loader lists first.
    if (pocl_position != "opencl:0") {
        const auto info = run_json(env(two) + " info opencl:0 --format json");
        CHECK(info["Name"] != pocl_name);
    } else {
        MESSAGE("the ICD loader listed PoCL first; opencl:0 did not move this time");
    }
}
