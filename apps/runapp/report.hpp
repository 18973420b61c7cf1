#pragma once
// The side-by-side comparison: a text table per app (the HTML page is html_page.hpp).
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"

namespace runapp {

// One table per app and size: every variant on every device, with step and total speed-ups
// and the CUDA/OpenCL ratio where one GPU is seen through both.
// The twins are found among this machine's devices.
void print_comparison(std::ostream& out, const std::vector<duet::apps::Result>& results);
// (OpenCL device, CUDA device) pairs that are one GPU; null: look them up on this machine.
using Twins = std::vector<std::pair<std::string, std::string>>;
void print_comparison(std::ostream& out, const std::vector<duet::apps::Result>& results,
                      const Twins* twins);
// Rows that repeat another's key (app, size, variant and work-group, device: runapp writes such
// rows for `--variant naive,naive` or a size given twice) get the variant "naive (2nd row)", and
// so on, so that every table and page shows every row, never one row over another's FAIL.
void label_repeated_rows(std::vector<duet::apps::Result>& rows);
// The exit code of a run: 1 when a checked result was wrong; 3 when a figure was implausible
// or every variant of an app was skipped on a device (nothing ran there); else 0. `why` gets
// one line per reason (with the skip reasons).
int results_exit_code(const std::vector<duet::apps::Result>& results,
                      std::vector<std::string>& why);

} // namespace runapp
