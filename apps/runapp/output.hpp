#pragma once
// Printing results: aligned tables for people, JSON (with provenance) and CSV for scripts.
#include <fstream>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app.hpp"
#include "cli.hpp"

namespace runapp {

// `s` with line breaks, tabs and other control characters written as \n, \t, \xNN: one line,
// no terminal escape sequence (text from result files, drivers and users).
std::string printable(const std::string& s);
// One CSV field, the only way text reaches a CSV line: control characters escaped as by
// printable() (one row, one line), quoted when it holds a comma or a quote (RFC 4180), and a
// leading = + - @ neutralised with an apostrophe (a spreadsheet would run it as a formula).
std::string csv_field(const std::string& v);
// The CSV header line and one result's line (no line break): every text through csv_field.
std::string csv_header();
std::string csv_row(const duet::apps::Result& r);

// A simple aligned text table; every cell is printed through printable().
class Table {
  public:
    explicit Table(std::vector<std::string> header) : rows_{std::move(header)} {}
    void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(std::ostream& out) const;
    bool empty() const { return rows_.size() <= 1; }

  private:
    std::vector<std::vector<std::string>> rows_;
};

// printf-style formatting into a std::string.
std::string fmt(const char* f, double v);
// The result's throughput as "123.4 GB/s", "5.6 TFLOP/s", "789 Mpx/s" (the app's main metric).
std::string throughput(const duet::apps::Result& r);
// The main metric as a number and its unit, for ratios.
double throughput_value(const duet::apps::Result& r);
// One result in JSON, with everything needed to reproduce it.
nlohmann::json to_json(const duet::apps::Result& r);
// What `--format json` writes is a Duet result file: "schema" names it, "schema_version" is
// raised when a field changes meaning or goes (runapp report rejects other versions).
inline constexpr const char* result_schema = "duet-results";
inline constexpr int result_schema_version = 1;
// Provenance common to a whole run: schema, duet version, time, command line, machine (host,
// CPU, OS), devices (driver, ICD library, peaks).
nlohmann::json provenance(int argc, char** argv);
// The "x CPU" column: the speed-up over the native CPU reference ("1.00x" on the reference row
// itself, "-" without one).
std::string x_cpu_label(const duet::apps::Result& r);
// The check column: PASS, FAIL, SKIPPED, UNCHECKED (--verify off) or IMPLAUSIBLE.
std::string check_label(const duet::apps::Result& r);
// " @32x8" for a launch shape (Result::local_label), "" for none: how the side-by-side tables
// name the shape a step ran in.
std::string at_shape(const std::string& local_label);
// JSON text with every invalid UTF-8 byte replaced by U+FFFD (device names, notes and defines
// come from drivers and users): the output is always valid JSON.
std::string dump_json(const nlohmann::json& j, int indent = 2);
// Flushes `out`; a write that failed (full disk, closed pipe) is a runtime Error naming `what`
// and the system's reason (runapp exits 3).
void check_written(std::ostream& out, const std::string& what);
// Opens `path` for `what` ("--output file"): a FIFO, socket or directory is refused (usage
// error, exit 2) rather than waited on; a path that cannot be opened is a usage error naming it.
void open_output(std::ofstream& out, const std::string& path, const std::string& what);
// Closes `out` and checks it as check_written does.
void close_written(std::ofstream& out, const std::string& what);
// Prints results in the chosen format.
void print_results(std::ostream& out, const std::vector<duet::apps::Result>& results, Format f,
                   const nlohmann::json& prov);

} // namespace runapp
