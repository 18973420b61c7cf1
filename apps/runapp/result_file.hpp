#pragma once
// Result files read back (runapp report, MPI ranks' rows): the `--format json` output of run and
// compare, checked as hostile input. A file of another schema version, truncated, too deep, too
// big, of wrong types or not Duet's is a BadResultFile saying what was wrong; nothing crashes.
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"

namespace runapp {

// One run: where it came from, its provenance and its rows.
struct Run {
    std::string file;    // the file it was read from ("" for this process's run)
    nlohmann::json prov; // the document without "results": machine, time, devices, command
    std::vector<duet::apps::Result> results;

    std::string host() const; // the machine's host name, "" when unknown
    std::string date() const; // "2026-11-23 13:04" (UTC), from "time"
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
// One result document (schema, provenance, results) checked; throws BadResultFile.
Run run_from_json(nlohmann::json doc);
// One row, to_json's inverse; throws BadResultFile naming the field and what was wrong.
duet::apps::Result row_from_json(const nlohmann::json& j);
// A result document of one run; a report document of several.
nlohmann::json runs_to_json(const std::vector<Run>& runs);

} // namespace runapp
