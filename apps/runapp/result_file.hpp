#pragma once
// Result files read back (runapp report, MPI ranks' rows): the `--format json` output of run and
// compare, checked as hostile input. A file of another schema version, truncated, too deep, too
// big, of wrong types or not Duet's is a BadResultFile saying what was wrong; nothing crashes.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "run_info.hpp"

namespace runapp {

// One run: where it came from, its provenance and its rows, all typed.
struct Run {
    std::string file; // the file it was read from ("" for this process's run)
    RunInfo info;     // machine, time, command, devices (the document without "results")
    std::vector<duet::apps::Result> results;
};

struct BadResultFile : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// What a merged report is written as (`runapp report --format json` with several runs): its
// runs, each a result document; runapp report reads it back as well.
inline constexpr const char* report_schema = "duet-report";

// Reads and checks one file (at most 256 MiB); throws BadResultFile.
std::vector<Run> read_result_file(const std::string& path);
// Checks and parses the text of a result or report document; throws BadResultFile.
std::vector<Run> parse_result_text(const std::string& text);
// One result document (schema, provenance, results) checked and typed; throws BadResultFile.
Run run_from_json(nlohmann::json doc);
// `from`'s rows and failures added to `into` (two ranks of one host: one run).
void merge_into(Run& into, Run&& from);
// One row, to_json's inverse; throws BadResultFile naming the field and what was wrong.
duet::apps::Result row_from_json(const nlohmann::json& j);
// A result document of one run; a report document of several.
nlohmann::json runs_to_json(const std::vector<Run>& runs);

} // namespace runapp
