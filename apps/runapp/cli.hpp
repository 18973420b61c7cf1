#pragma once
// runapp's command line: one parser for every command, so every command rejects bad input the
// same way (a usage Error, exit code 2).
#include <optional>
#include <string>
#include <vector>

#include "app.hpp"

namespace runapp {

enum class Format { table, json, csv };

// Everything the command line said.
struct Cli {
    std::string command; // list, info, run, compare, bandwidth, doctor, cache, help, version
    std::vector<std::string> positional;            // after the command
    std::string backend;                            // --backend
    std::string device;                             // --device
    std::string devices = "all";                    // --devices (compare)
    std::vector<std::string> sizes;                 // --size, comma-separated
    std::string variant = "all";                    // --variant
    std::vector<std::array<std::size_t, 2>> locals; // --local WxH,...
    int reps = 10, warmup = 2;
    bool reps_given = false, warmup_given = false; // else a time budget (RunConfig) applies
    duet::apps::Verify verify = duet::apps::Verify::full;
    bool verify_given = false;
    Format format = Format::table;
    std::string output; // --output FILE
    std::string html;   // --html FILE
    std::uint64_t seed = 42;
    std::vector<std::pair<std::string, std::string>> defines; // --define NAME=VALUE
    double timeout_s = -1;   // --timeout: -1 not given (the default watchdog), 0 none
    std::string target;      // --target (compile)
    std::string kernel_text; // --kernel-text DIALECT: one text of Duet's kernels on every device
    bool quiet = false;      // --quiet: no progress lines
    bool reference = false;  // --reference (run): the native CPU reference rows
    bool strict = false;     // --strict (report): one bad file fails the command
};

// Parses argv; a bad option or value throws duet::Error::usage.
Cli parse(int argc, char** argv);
// A usage Error when --local gives a WxH shape with H > 1 to an app of 1-D work-groups.
void check_locals(const Cli& c, const std::vector<const duet::apps::App*>& apps);
// The help text.
std::string usage_text();

} // namespace runapp
