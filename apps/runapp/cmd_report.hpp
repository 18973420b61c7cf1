#pragma once
// Presenting runs read back (runapp report's files, or the rows MPI ranks gathered): the merged
// table, CSV or JSON on stdout or --output, and the HTML page with --html.
#include <vector>

#include "cli.hpp"
#include "result_file.hpp"

namespace runapp {

// Writes the runs as the command line asks; returns 3 when a run records failures (a device
// error), else 0. A write that fails is an Error (exit 3).
int present_runs(const Cli& c, std::vector<Run> runs);

} // namespace runapp
