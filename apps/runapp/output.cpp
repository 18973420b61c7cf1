#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

#include <sys/stat.h>

#include <duet/duet.hpp>

#include "machine.hpp"
#include "output.hpp"

namespace runapp {

using duet::apps::Result;

std::string printable(const std::string& s) {
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '\n')
            out += "\\n";
        else if (c == '\r')
            out += "\\r";
        else if (c == '\t')
            out += "\\t";
        else if (c < 0x20 || c == 0x7f) {
            char b[8];
            std::snprintf(b, sizeof b, "\\x%02x", c);
            out += b;
        } else
            out += ch;
    }
    return out;
}

std::string csv_field(const std::string& v) {
    // A spreadsheet runs a cell that starts with = + - @ (or a tab or CR before one) as a
    // formula: such a text is kept as text by a leading apostrophe (OWASP's advice).
    // Line breaks and control characters escaped as printable() does: one row, one line.
    const bool formula = !v.empty() && std::string("=+-@\t\r").find(v[0]) != std::string::npos;
    const std::string t = printable(formula ? "'" + v : v);
    if (t.find_first_of(",\"") == std::string::npos)
        return t;
    std::string q = "\"";
    for (char ch : t)
        q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return q + "\"";
}

void Table::print(std::ostream& out) const {
    // Every cell printable: a newline in a result file's field cannot start a forged line.
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : rows_) {
        rows.emplace_back();
        for (const auto& cell : r)
            rows.back().push_back(printable(cell));
    }
    std::vector<std::size_t> width;
    for (const auto& r : rows)
        for (std::size_t i = 0; i < r.size(); ++i) {
            if (width.size() <= i)
                width.push_back(0);
            width[i] = std::max(width[i], r[i].size());
        }
    for (std::size_t k = 0; k < rows.size(); ++k) {
        std::string line;
        for (std::size_t i = 0; i < rows[k].size(); ++i) {
            std::string cell = rows[k][i];
            if (i + 1 < rows[k].size())
                cell.resize(width[i], ' ');
            line += cell + (i + 1 < rows[k].size() ? "  " : "");
        }
        out << line << "\n";
        if (k == 0) {
            std::size_t total = 0;
            for (auto w : width)
                total += w + 2;
            out << std::string(total > 2 ? total - 2 : 0, '-') << "\n";
        }
    }
}

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

double throughput_value(const Result& r) {
    if (r.flops > 0)
        return r.gflops();
    if (r.pixels > 0)
        return r.mpixels();
    return r.gbs();
}

std::string x_cpu_label(const Result& r) {
    if (r.backend == "native")
        return "1.00x";
    return r.x_cpu > 0 ? fmt(r.x_cpu >= 100  ? "%.0fx"
                             : r.x_cpu >= 10 ? "%.1fx"
                                             : "%.2fx",
                             r.x_cpu)
                       : "-";
}

std::string at_shape(const std::string& local_label) {
    return local_label.empty() ? "" : " @" + local_label;
}

std::string check_label(const Result& r) {
    if (r.skipped)
        return "SKIPPED";
    if (r.verified && !r.pass)
        return "FAIL";
    if (r.implausible)
        return "IMPLAUSIBLE";
    if (!r.verified)
        return "UNCHECKED";
    return r.sampled ? "PASS (sample)" : "PASS";
}

std::string dump_json(const nlohmann::json& j, int indent) {
    return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void open_output(std::ofstream& out, const std::string& path, const std::string& what) {
    // Opening a FIFO for writing waits for a reader, perhaps for ever; a socket or directory
    // cannot be written. Devices (/dev/null, a terminal) are written as files are.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
        throw duet::Error::usage(what + " " + path + " is " +
                                 (S_ISFIFO(st.st_mode)  ? "a FIFO"
                                  : S_ISDIR(st.st_mode) ? "a directory"
                                                        : "not a regular file") +
                                 ": give the name of a regular file");
    out.open(path, std::ios::binary | std::ios::trunc);
    if (!out)
        throw duet::Error::usage("cannot write " + what + " " + path + ": " + std::strerror(errno) +
                                 "; check the directory and permissions");
}

void close_written(std::ofstream& out, const std::string& what) {
    errno = 0;
    out.close();
    check_written(out, what);
}

void check_written(std::ostream& out, const std::string& what) {
    const int before = out ? 0 : errno; // a stream already failed (at close): its reason
    errno = 0;
    out.flush();
    if (&out == &std::cout && std::fflush(stdout) != 0)
        out.setstate(std::ios::badbit);
    if (!out) {
        const int err = errno ? errno : before;
        throw duet::Error(duet::ErrorKind::runtime, "", "", 0, "",
                          "writing the results to " + what + " failed" +
                              (err ? std::string(" (") + std::strerror(err) + ")" : std::string()) +
                              "; the results are incomplete");
    }
}

std::string throughput(const Result& r) {
    if (r.implausible)
        return "implausible";
    if (r.kernel_ms.median <= 0)
        return "-";
    if (r.flops > 0)
        return r.gflops() >= 1000 ? fmt("%.2f TFLOP/s", r.gflops() / 1000)
                                  : fmt("%.1f GFLOP/s", r.gflops());
    if (r.pixels > 0)
        return fmt("%.0f Mpx/s", r.mpixels());
    if (r.bytes > 0)
        return fmt("%.1f GB/s", r.gbs());
    return "-";
}

nlohmann::json to_json(const Result& r) {
    nlohmann::json j;
    j["app"] = r.app;
    j["variant"] = r.variant;
    j["backend"] = r.backend;
    j["device_id"] = r.device_id;
    j["device"] = r.device_name;
    j["size"] = r.size_label;
    j["local"] = r.local_label;
    j["seed"] = r.seed;
    j["kernel_ms"] = {{"median", r.kernel_ms.median},
                      {"min", r.kernel_ms.min},
                      {"max", r.kernel_ms.max},
                      {"mean", r.kernel_ms.mean},
                      {"runs", r.kernel_ms.count}};
    j["clock"] = r.skipped ? std::string() : r.clock; // a skipped row has no time
    j["host_ms"] = {{"median", r.host_ms.median}, {"min", r.host_ms.min}, {"max", r.host_ms.max}};
    j["status"] = r.status();
    j["h2d_ms"] = r.h2d_ms;
    j["d2h_ms"] = r.d2h_ms;
    j["h2d_gbs"] = r.h2d_ms > 0 ? r.h2d_bytes / (r.h2d_ms * 1e6) : 0.0;
    j["d2h_gbs"] = r.d2h_ms > 0 ? r.d2h_bytes / (r.d2h_ms * 1e6) : 0.0;
    j["wall_ms"] = r.wall_ms;
    if (r.wall_parts.total() > 0) // device rows (native rows have no parts)
        for (const auto& [name, part] : Result::WallParts::named)
            j["wall_parts_ms"][name] = r.wall_parts.*part;
    j["build_ms"] = r.build_ms;
    j["cache_hit"] = r.cache_hit;
    j["provenance"] = r.provenance;
    if (!r.kernel_text.empty())
        j["kernel_text"] = r.kernel_text;
    j["build_options"] = r.build_options;
    // An implausible time gives no figure: null, never a number.
    const auto figure = [&](double v) {
        return r.implausible ? nlohmann::json() : nlohmann::json(v);
    };
    if (r.flops > 0 && !r.skipped)
        j["gflops"] = figure(r.gflops());
    if (r.bytes > 0 && !r.skipped)
        j["effective_gbs"] = figure(r.gbs());
    if (r.pixels > 0 && !r.skipped)
        j["mpixels_per_s"] = figure(r.mpixels());
    j["skipped"] = r.skipped;
    j["verified"] = r.verified;
    // How much of the output was compared with the reference: "full" or "sample" (the status
    // stays "pass"; the table says "PASS (sample)").
    if (r.verified)
        j["checked"] = r.sampled ? "sample" : "full";
    j["pass"] = r.pass;
    j["max_error"] = r.max_error;
    j["tolerance"] = r.tolerance;
    j["error_kind"] = r.error_kind;
    // The speed-up over the native CPU reference of the same app and size (null: none).
    j["x_cpu"] = r.x_cpu > 0 ? nlohmann::json(r.x_cpu) : nlohmann::json();
    if (r.native_copy_gbs > 0)
        j["native_copy_gbs"] = r.native_copy_gbs;
    if (!r.note.empty())
        j["note"] = r.note;
    return j;
}

std::string csv_header() {
    return "app,variant,backend,device_id,device,size,local,seed,kernel_ms_median,kernel_ms_min,"
           "kernel_ms_max,h2d_ms,d2h_ms,wall_ms,build_ms,cache_hit,provenance,gflops,effective_gbs,"
           "mpixels_per_s,verified,pass,max_error,tolerance,status,clock,x_cpu,native_copy_gbs,"
           "checked";
}

std::string csv_row(const Result& r) {
    const bool figure = !r.implausible && !r.skipped;
    std::ostringstream out;
    out << csv_field(r.app) << ',' << csv_field(r.variant) << ',' << csv_field(r.backend) << ','
        << csv_field(r.device_id) << ',' << csv_field(r.device_name) << ','
        << csv_field(r.size_label) << ',' << csv_field(r.local_label) << ',' << r.seed << ','
        << r.kernel_ms.median << ',' << r.kernel_ms.min << ',' << r.kernel_ms.max << ',' << r.h2d_ms
        << ',' << r.d2h_ms << ',' << r.wall_ms << ',' << r.build_ms << ',' << (r.cache_hit ? 1 : 0)
        << ',' << csv_field(r.provenance) << ',' << (figure ? r.gflops() : 0) << ','
        << (figure ? r.gbs() : 0) << ',' << (figure ? r.mpixels() : 0) << ','
        << (r.verified ? 1 : 0) << ',' << (r.pass ? 1 : 0) << ',' << r.max_error << ','
        << r.tolerance << ',' << csv_field(r.status()) << ','
        << csv_field(r.skipped ? std::string() : r.clock) << ','
        << (r.x_cpu > 0 ? fmt("%.4g", r.x_cpu) : "") << ','
        << (r.native_copy_gbs > 0 ? fmt("%.4g", r.native_copy_gbs) : "") << ','
        << (r.verified ? (r.sampled ? "sample" : "full") : "");
    return out.str();
}

nlohmann::json provenance(int argc, char** argv) {
    nlohmann::json p;
    p["schema"] = result_schema;
    p["schema_version"] = result_schema_version;
    p["duet_version"] = duet::version;
    const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    char buf[64];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    p["time"] = buf;
    std::string cmd;
    for (int i = 0; i < argc; ++i) {
        if (i)
            cmd += ' ';
        cmd += argv[i];
    }
    p["command"] = cmd;
    p["machine"] = machine_info();
    nlohmann::json devs = nlohmann::json::array();
    for (auto* d : duet::devices()) {
        const auto& i = d->info();
        devs.push_back({{"index", duet::global_index(*d)},
                        {"id", i.id()},
                        {"stable_id", duet::stable_id(*d)},
                        {"name", i.name},
                        {"backend", i.backend},
                        {"platform", i.platform},
                        {"platform_version", i.platform_version},
                        {"driver", i.driver_version},
                        {"device_version", i.device_version},
                        {"library", i.library},
                        {"uuid", i.uuid},
                        {"pci_bus_id", i.pci_bus_id},
                        {"type", i.type},
                        {"compute_units", i.compute_units},
                        {"clock_mhz", i.clock_mhz},
                        {"peak_gbs", i.peak_bandwidth_gbs()},
                        {"peak_gflops", peak_gflops(i)}});
    }
    p["devices"] = devs;
    return p;
}

void print_results(std::ostream& out, const std::vector<Result>& results, Format f,
                   const nlohmann::json& prov) {
    if (f == Format::json) {
        nlohmann::json j = prov;
        j["results"] = nlohmann::json::array();
        for (const auto& r : results)
            j["results"].push_back(to_json(r));
        out << dump_json(j) << "\n";
        return;
    }
    if (f == Format::csv) {
        out << csv_header() << "\n";
        for (const auto& r : results)
            out << csv_row(r) << "\n";
        return;
    }
    std::string last_header;
    // "x CPU" (the speed-up over the native CPU reference) when the run has reference rows.
    const bool with_ref = std::any_of(results.begin(), results.end(),
                                      [](const Result& r) { return r.backend == "native"; });
    const auto header = [&] {
        std::vector<std::string> h = {"variant",   "size",     "local",      "kernel ms (med)",
                                      "min",       "max",      "throughput", "eff. GB/s",
                                      "h2d GB/s",  "d2h GB/s", "build ms",   "program",
                                      "max error", "check"};
        if (with_ref)
            h.insert(h.begin() + 7, "x CPU");
        return h;
    };
    Table t(header());
    auto flush = [&] {
        if (!t.empty()) {
            t.print(out);
            out << "\n";
        }
        t = Table(header());
    };
    for (const auto& r : results) {
        const std::string header = r.app + " on " + r.device_id + " (" + r.device_name + ")" +
                                   (r.kernel_text.empty() ? "" : ", kernel text " + r.kernel_text);
        if (header != last_header) {
            flush();
            out << printable(header) << ", seed " << r.seed << "\n";
            last_header = header;
        }
        // No time for a row that did not run, or whose time is implausible (the note has it).
        const bool timed = !r.skipped && !r.implausible;
        const auto ms = [&](double v) { return timed ? fmt("%.4f", v) : std::string("-"); };
        std::vector<std::string> row = {
            r.variant,
            r.size_label,
            r.local_label,
            ms(r.kernel_ms.median),
            ms(r.kernel_ms.min),
            ms(r.kernel_ms.max),
            r.skipped ? "-" : throughput(r),
            r.bytes > 0 && !r.implausible ? fmt("%.1f", r.gbs()) : "-",
            r.h2d_ms > 0 ? fmt("%.2f", r.h2d_bytes / (r.h2d_ms * 1e6)) : "-",
            r.d2h_ms > 0 ? fmt("%.2f", r.d2h_bytes / (r.d2h_ms * 1e6)) : "-",
            r.backend == "native" || r.skipped ? "-" : fmt("%.1f", r.build_ms),
            r.backend == "native" || r.skipped ? "-" : r.provenance,
            r.verified ? fmt("%.3g", r.max_error) + " " + r.error_kind : "-",
            check_label(r)};
        if (with_ref)
            row.insert(row.begin() + 7, x_cpu_label(r));
        t.add(row);
    }
    flush();
    for (const auto& r : results)
        if (!r.skipped && r.clock != "device events" && r.backend != "native")
            out << printable("clock (" + r.app + " " + r.variant + " on " + r.device_id +
                             "): " + r.clock)
                << "\n";
    for (const auto& r : results)
        if (!r.note.empty())
            out << printable("note (" + r.app + " " + r.variant + " on " + r.device_id +
                             "): " + r.note)
                << "\n";
}

} // namespace runapp
