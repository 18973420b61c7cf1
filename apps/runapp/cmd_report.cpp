// runapp report FILE.json...: merges result files from any machines into one table and page.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <duet/duet.hpp>

#include "cmd_report.hpp"
#include "commands.hpp"
#include "html_page.hpp"
#include "output.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "sheet.hpp"

namespace runapp {

namespace {

// Every run's CSV rows, each led by the machine and the date it ran on.
void write_csv(std::ostream& out, const std::vector<Run>& runs) {
    if (!runs.empty())
        out << "machine,date," << csv_header() << "\n";
    for (const auto& run : runs)
        for (const auto& r : run.results)
            out << csv_field(run.info.machine.host) << "," << csv_field(run.info.date()) << ","
                << csv_row(r) << "\n";
}

// Ranks of an MPI run's partial document ("mpi_ranks", rank_rows.hpp) that had not finished,
// with the rows each sent; "" when the document does not record them.
std::string missing_ranks(const nlohmann::json& doc) {
    const auto m = doc.find("mpi_ranks");
    if (m == doc.end() || !m->is_object() || !m->contains("ranks") || !(*m)["ranks"].is_number() ||
        !m->contains("finished") || !(*m)["finished"].is_array())
        return {};
    const double ranks = (*m)["ranks"].get<double>();
    if (!(ranks >= 1 && ranks <= 100000))
        return {};
    std::vector<bool> finished(static_cast<std::size_t>(ranks), false);
    for (const auto& f : (*m)["finished"])
        if (f.is_number_unsigned() && f.get<std::size_t>() < finished.size())
            finished[f.get<std::size_t>()] = true;
    const auto rows = m->find("rows");
    std::string list;
    std::size_t missing = 0;
    for (std::size_t i = 0; i < finished.size(); ++i) {
        if (finished[i] || ++missing > 16)
            continue;
        std::string sent = "?";
        if (rows != m->end() && rows->is_array() && i < rows->size() && (*rows)[i].is_number())
            sent = (*rows)[i].dump();
        list += (list.empty() ? "" : ", ") + std::to_string(i) + " (" + sent + " rows sent)";
    }
    if (missing == 0)
        return "every rank had finished its rows";
    return "ranks that did not finish: " + list + (missing > 16 ? ", ..." : "") + " (" +
           std::to_string(missing) + " of " + std::to_string(finished.size()) + ")";
}

// What a run marked partial (an MPI run's rows written as they finished, whose run did not end:
// a rank crashed or hung) is missing: its ranks and the devices it lists without a row; "" for a
// complete run.
std::string partial_note(const Run& run) {
    const auto& doc = run.info.document;
    if (!doc.is_object() || !doc.contains("partial"))
        return {};
    std::string note = (run.file.empty() ? std::string("a run") : run.file) +
                       " is partial: the run did not end (a rank crashed or hung)";
    const std::string ranks = missing_ranks(doc);
    note += "; " + (ranks.empty() ? "which ranks had finished is not recorded" : ranks);
    std::string devices;
    for (const auto& d : run.info.devices) {
        const bool has_rows = std::any_of(run.results.begin(), run.results.end(),
                                          [&](const auto& r) { return r.device_id == d.id; });
        if (!has_rows && !d.id.empty())
            devices += (devices.empty() ? "" : ", ") + d.id;
    }
    if (!devices.empty())
        note += "; devices it lists without a row: " + devices;
    return note;
}

void write_table(std::ostream& out, const Sheet& s) {
    for (const auto& run : s.runs)
        if (const std::string note = partial_note(run); !note.empty())
            out << printable(note) << "\n\n";
    if (s.runs.size() > 1) {
        out << "runs:\n";
        for (const auto& run : s.runs) {
            const RunInfo& i = run.info;
            out << "  "
                << printable((i.machine.host.empty() ? "?" : i.machine.host) + " " + i.date() +
                             ": " + i.machine.cpu + ", " + i.machine.os + ", duet " +
                             i.duet_version + (run.file.empty() ? "" : " (" + run.file + ")"))
                << "\n";
        }
        out << "\n";
    }
    print_comparison(out, s.rows, &s.twins);
}

void write_format(std::ostream& out, const Cli& c, const Sheet& s) {
    if (c.format == Format::json)
        out << dump_json(runs_to_json(s.runs)) << "\n";
    else if (c.format == Format::csv)
        write_csv(out, s.runs);
    else
        write_table(out, s);
}

// `report X.json --html X.json` would replace the input with the page it was read for.
void refuse_overwriting_inputs(const Cli& c) {
    for (const auto& [out, what] : {std::pair{c.output, "--output"}, std::pair{c.html, "--html"}})
        for (const auto& in : c.positional) {
            std::error_code ec;
            if (!out.empty() && std::filesystem::equivalent(out, in, ec))
                throw duet::Error::usage(std::string(what) + " " + out + " is the input file " +
                                         in + ": writing it would destroy it; give another name");
        }
}

} // namespace

int present_runs(const Cli& c, std::vector<Run> runs) {
    Sheet s = make_sheet(std::move(runs));
    label_repeated_rows(s.rows); // every row of a repeated key shown, on the page too
    write_format(std::cout, c, s);
    check_written(std::cout, "standard output");
    if (!c.output.empty()) {
        std::ofstream out;
        open_output(out, c.output, "--output file");
        write_format(out, c, s);
        close_written(out, "--output file " + c.output);
        std::cerr << "results written to " << c.output << "\n";
    }
    if (!c.html.empty()) {
        std::ofstream out;
        open_output(out, c.html, "--html file");
        write_html(out, s);
        close_written(out, "--html file " + c.html);
        std::cerr << "HTML report written to " << c.html << "\n";
    }
    int code = 0;
    for (const auto& run : s.runs)
        if (const std::string note = partial_note(run); !note.empty()) {
            std::cerr << "runapp: error: " << printable(note) << "\n";
            code = 3;
        }
    for (const auto& run : s.runs)
        for (const auto& line : run.info.failures) {
            const std::string& host = run.info.machine.host;
            std::cerr << "runapp: error: " << (host.empty() ? "" : host + ": ") << line << "\n";
            code = 3;
        }
    return code;
}

int cmd_report(const Cli& c) {
    if (c.positional.empty())
        throw duet::Error::usage(
            "which files? runapp report FILE.json... (the --format json output "
            "of runapp run or compare)");
    refuse_overwriting_inputs(c);
    Progress progress(c.quiet);
    progress.set_total(static_cast<int>(c.positional.size()));
    std::vector<Run> runs;
    std::vector<std::string> bad;
    for (const auto& file : c.positional) {
        try {
            auto read = read_result_file(file);
            std::size_t rows = 0;
            for (auto& r : read) {
                rows += r.results.size();
                runs.push_back(std::move(r));
            }
            progress.line(file + ": " + std::to_string(rows) + " rows");
        } catch (const BadResultFile& e) {
            bad.push_back(file + ": " + e.what());
            progress.line(file + ": rejected");
        }
    }
    for (const auto& b : bad)
        std::cerr << "runapp: error: " << b << "\n";
    if (!bad.empty() && c.strict)
        throw duet::Error::usage(std::to_string(bad.size()) + " of " +
                                 std::to_string(c.positional.size()) +
                                 " file(s) rejected (--strict: nothing written)");
    if (runs.empty())
        throw duet::Error::usage("no result file could be read; give the --format json output of "
                                 "runapp run or compare");
    if (!bad.empty())
        std::cerr << "runapp: " << bad.size() << " file(s) rejected; the others' rows are shown "
                  << "(--strict makes this an error)\n";
    return present_runs(c, std::move(runs));
}

} // namespace runapp
