#pragma once
// The command lines the fuzz (test_fuzz.cpp) draws from: pools of good and bad values for each
// option and generate(), which picks a seeded random command line from them.
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "app.hpp"

namespace {

namespace fs = std::filesystem;

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
