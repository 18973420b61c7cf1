// A bounded, seeded mutation fuzz of what reads untrusted text in-process: the result-file
// reader with the report it feeds (table, CSV, HTML page), the kernel-source scanners, and the
// command-line parser. Each target runs in a child process with a deadline, for a fixed number
// of inputs (a few seconds in all): a crash or a hang fails the test, as does an exception of
// another type than the target's documented error, or an output out of proportion to its input.
#include <algorithm>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <duet/backend/kernel_sources.hpp>
#include <duet/error.hpp>

#include "cli.hpp"
#include "html_page.hpp"
#include "output.hpp"
#include "result_file.hpp"
#include "runapp_child.hpp"
#include "security_util.hpp"
#include "sheet.hpp"

using duet_test::in_child_within;

namespace {

// Mutates `s` in place: flips, structural insertions, deletions, duplicated chunks, cuts, and
// now and then a long run of one character (long names and lines).
void mutate(std::mt19937& rng, std::string& s) {
    static const std::vector<std::string> tokens = {"{",
                                                    "}",
                                                    "[",
                                                    "]",
                                                    "\"",
                                                    ":",
                                                    ",",
                                                    "\\",
                                                    "\n",
                                                    "1.7e308",
                                                    "-1",
                                                    "1e999",
                                                    "null",
                                                    "true",
                                                    "#include \"",
                                                    "__kernel void ",
                                                    "__global__ void ",
                                                    "__attribute__((",
                                                    "((",
                                                    ")",
                                                    "\x1b[2J",
                                                    "\r\n",
                                                    "=HYPERLINK(",
                                                    "\xff\xfe",
                                                    "NaN",
                                                    "0"};
    auto pos = [&] { return std::uniform_int_distribution<std::size_t>(0, s.size())(rng); };
    const int n = std::uniform_int_distribution<int>(1, 8)(rng);
    for (int i = 0; i < n; ++i) {
        const std::size_t p = pos();
        switch (std::uniform_int_distribution<int>(0, 6)(rng)) {
        case 0:
            if (!s.empty())
                s[std::min(p, s.size() - 1)] ^= char(1 << (rng() % 8));
            break;
        case 1:
            s.insert(p, tokens[rng() % tokens.size()]);
            break;
        case 2:
            s.erase(p, rng() % 64);
            break;
        case 3: {
            const std::size_t a = pos(), len = std::min<std::size_t>(rng() % 512, s.size() - a);
            s.insert(p, s.substr(a, len));
            break;
        }
        case 4:
            if (rng() % 8 == 0)
                s.resize(p);
            break;
        case 5:
            if (rng() % 16 == 0)
                s.insert(p, std::string(1000 + rng() % 60000, "a(\"{[ 9"[rng() % 7]));
            break;
        default:
            break;
        }
    }
}

// One input through the reader and, when it is accepted, every way the report prints it.
// `accepted` counts the inputs the reader took (the fuzz must reach the printers too).
bool read_and_print(const std::string& text, int& accepted) {
    try {
        auto runs = runapp::parse_result_text(text);
        const runapp::Sheet sheet = runapp::make_sheet(std::move(runs));
        std::ostringstream out;
        runapp::write_html(out, sheet);
        for (const auto& run : sheet.runs)
            for (auto f : {runapp::Format::table, runapp::Format::csv, runapp::Format::json})
                runapp::print_results(out, run.results, f, run.info.document);
        ++accepted;
        // Output in proportion to the input: a page, a table, a CSV and a JSON of it.
        return out.str().size() <= 200 * text.size() + (1 << 20);
    } catch (const runapp::BadResultFile&) {
        return true;
    }
}

} // namespace

TEST_CASE("fuzz: the result-file reader and the report it feeds, 6,000 mutated files") {
    const std::vector<std::string> seeds = {
        read_file(DUET_SOURCE_DIR "/tests/data/report_laptop.json"),
        read_file(DUET_SOURCE_DIR "/tests/data/report_gpu_node.json"),
        read_file(DUET_SOURCE_DIR "/tests/data/report_hostile.json")};
    CHECK(in_child_within(60, [&] {
        std::mt19937 rng(1);
        int accepted = 0;
        for (int i = 0; i < 6000; ++i) {
            std::string s = seeds[i % seeds.size()];
            mutate(rng, s);
            if (!read_and_print(s, accepted))
                return false;
        }
        std::fprintf(stderr, "fuzz: the reader accepted %d of 6000 mutated files\n", accepted);
        return accepted >= 400;
    }));
}

TEST_CASE("fuzz: the kernel-source scanners, 6,000 mutated kernel files") {
    std::vector<std::string> seeds;
    for (auto lang : {duet::KernelLanguage::opencl_c, duet::KernelLanguage::cuda})
        for (const auto& f : duet::kernel_files(lang))
            seeds.push_back(f.text);
    REQUIRE(!seeds.empty());
    CHECK(in_child_within(60, [&] {
        std::mt19937 rng(2);
        for (int i = 0; i < 6000; ++i) {
            std::string s = seeds[i % seeds.size()];
            mutate(rng, s);
            for (auto lang : {duet::KernelLanguage::opencl_c, duet::KernelLanguage::cuda})
                for (const auto& name : duet::kernels_defined_in(s, lang))
                    if (name.empty() || s.find(name) == std::string::npos)
                        return false; // a name that is not in the text
            std::istringstream lines(s);
            for (std::string line; std::getline(lines, line);)
                if (auto h = duet::included_name(line); h && line.find(*h) == std::string::npos)
                    return false;
        }
        return true;
    }));
}

TEST_CASE("fuzz: the command-line parser, 20,000 mutated command lines") {
    const std::vector<std::string> seeds = {
        "run vecadd --size 2^20 --reps 3 --warmup 1 --device opencl:0 --format json",
        "compare matmul reduction --devices all --size 64x64x64 --verify sample --html p.html",
        "report a.json b.json --html page.html --format csv --strict --output o.csv",
        "tune matmul --size 512 --timeout 30 --quiet",
        "compile vecadd --target all --output x",
        "matmul --variant naive,tiled --local 16x16 --define TILE=16 --seed 7 --reference"};
    CHECK(in_child_within(60, [&] {
        std::mt19937 rng(3);
        int accepted = 0;
        for (int i = 0; i < 20000; ++i) {
            std::string s = seeds[i % seeds.size()];
            mutate(rng, s);
            std::vector<std::string> words = {"runapp"};
            std::istringstream in(s);
            for (std::string w; in >> w;)
                words.push_back(rng() % 4 ? w : w + "=" + w);
            std::vector<char*> argv;
            for (auto& w : words)
                argv.push_back(w.data());
            argv.push_back(nullptr);
            try {
                runapp::parse(static_cast<int>(words.size()), argv.data());
                ++accepted;
            } catch (const duet::Error& e) {
                if (e.kind() != duet::ErrorKind::usage)
                    return false;
            }
        }
        std::fprintf(stderr, "fuzz: the parser accepted %d of 20000 mutated lines\n", accepted);
        return accepted >= 200;
    }));
}
