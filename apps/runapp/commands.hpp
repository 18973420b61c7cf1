#pragma once
// runapp's commands; each returns the process exit code.
#include "cli.hpp"

namespace runapp {

int cmd_list(const Cli& c);
int cmd_info(const Cli& c);
int cmd_run(const Cli& c, int argc, char** argv);
int cmd_compare(const Cli& c, int argc, char** argv);
// runapp report FILE.json...: result files of any machines merged (cmd_report.cpp).
int cmd_report(const Cli& c);
// runapp tune APP: sweeps tunable parameters, stores the winners in tuned.json.
int cmd_tune(const Cli& c);
int cmd_bandwidth(const Cli& c);
int cmd_doctor(const Cli& c);
int cmd_cache(const Cli& c);
// runapp compile: vendor offline compilers on Duet's kernels (cmd_compile*.cpp).
int cmd_compile(const Cli& c);
// The device a command works on: --backend/--device, or the default device.
duet::Device& chosen_device(const Cli& c);

} // namespace runapp
