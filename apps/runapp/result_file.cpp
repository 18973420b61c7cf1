#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output.hpp"
#include "result_file.hpp"

namespace runapp {

namespace {

using duet::apps::Result;
using nlohmann::json;

constexpr std::size_t max_file_bytes = std::size_t(256) << 20;
constexpr int max_depth = 32; // a result file nests 4 levels; a deeper one is not Duet's
constexpr std::size_t max_rows = 1000000;
constexpr std::size_t max_devices = 4096; // one machine's devices
constexpr std::size_t max_string =
    4096; // longer strings are cut (a hostile file's page stays small)

[[noreturn]] void bad(const std::string& what) {
    throw BadResultFile(what);
}

// What parsing `text` would allocate, estimated per token from nlohmann::json's layout as
// measured (malloc's overhead included): an object's map, a member's map node with its key, an
// array's vector, a string value's heap string, an array element (16 bytes, three times over:
// a growing vector holds its old and its doubled buffer at once). Checked before parsing with
// the depth, so that a hostile file neither makes a parser or printer recurse deeper than
// max_depth nor grows to many times its size (50 MB of "{}" objects were 1.67 GB once parsed,
// 50 MB of "[0]" 1.35 GB).
constexpr std::size_t cost_object = 64, cost_array = 56, cost_member = 112, cost_string = 64,
                      cost_element = 48;
constexpr std::size_t max_cost_per_byte = 16;

void check_shape(const std::string& text) {
    int depth = 0;
    bool in_string = false, escaped = false, opened = false;
    std::array<bool, max_depth + 2> array{}; // array[d]: the container at depth d is an array
    std::size_t cost = 0;
    for (char c : text) {
        if (in_string) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                in_string = false;
            continue;
        }
        if (opened && c != ' ' && c != '\n' && c != '\r' && c != '\t') {
            opened = false; // an array's first element has no comma before it
            if (c != ']')
                cost += cost_element;
        }
        if (c == '"') {
            in_string = true;
            cost += cost_string;
        } else if (c == '[' || c == '{') {
            cost += c == '{' ? cost_object : cost_array;
            if (++depth > max_depth)
                bad("nested deeper than " + std::to_string(max_depth) +
                    " levels: not a Duet result file");
            array[depth] = opened = c == '[';
        } else if (c == ']' || c == '}') {
            depth = std::max(depth - 1, 0);
        } else if (c == ':') {
            cost += cost_member;
        } else if (c == ',' && array[depth]) {
            cost += cost_element;
        }
    }
    if (cost > max_cost_per_byte * text.size() + (std::size_t(1) << 20))
        bad("too many values for its size (" + std::to_string(text.size()) +
            " bytes would take about " + std::to_string(cost >> 20) +
            " MiB once read): not a Duet result file");
}

// Control characters (a terminal's escape sequences) become '?', and long strings are cut.
void sanitize(json& j) {
    if (j.is_string()) {
        auto& s = j.get_ref<std::string&>();
        if (s.size() > max_string)
            s = s.substr(0, max_string) + "...";
        for (auto& c : s)
            if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                c = '?';
    } else if (j.is_structured()) {
        for (auto& e : j)
            sanitize(e);
    }
}

const char* type_name(const json& j) {
    return j.is_null()      ? "null"
           : j.is_boolean() ? "a boolean"
           : j.is_number()  ? "a number"
           : j.is_string()  ? "a string"
           : j.is_array()   ? "an array"
                            : "an object";
}

std::string text(const json& row, const char* key, bool required = false) {
    auto it = row.find(key);
    if (it == row.end()) {
        if (required)
            bad(std::string("field '") + key + "' is missing");
        return {};
    }
    if (!it->is_string())
        bad(std::string("field '") + key + "' is " + type_name(*it) + ", expected a string");
    return it->get<std::string>();
}

// A finite number >= 0; null (an implausible figure) and a missing field are 0.
double number(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null())
        return 0;
    if (!it->is_number())
        bad(std::string("field '") + key + "' is " + type_name(*it) + ", expected a number");
    const double v = it->get<double>();
    if (!std::isfinite(v) || v < 0)
        bad(std::string("field '") + key + "' is " + std::to_string(v) +
            ", expected a number >= 0");
    return v;
}

bool flag(const json& obj, const char* key) {
    auto it = obj.find(key);
    if (it == obj.end())
        return false;
    if (!it->is_boolean())
        bad(std::string("field '") + key + "' is " + type_name(*it) + ", expected true or false");
    return it->get<bool>();
}

duet::Stats stats(const json& row, const char* key) {
    auto it = row.find(key);
    duet::Stats s;
    if (it == row.end())
        return s;
    if (!it->is_object())
        bad(std::string("field '") + key + "' is " + type_name(*it) + ", expected an object");
    s.median = number(*it, "median");
    s.min = number(*it, "min");
    s.max = number(*it, "max");
    s.mean = number(*it, "mean");
    s.count = static_cast<std::size_t>(std::min(number(*it, "runs"), 1e9));
    return s;
}

void check_schema(const json& doc, const char* want) {
    if (!doc.is_object())
        bad(std::string("the document is ") + type_name(doc) + ", not a Duet result file");
    auto s = doc.find("schema");
    if (s == doc.end() || !s->is_string())
        bad("no \"schema\" field: not a Duet result file (or one written before runapp 0.x had "
            "schemas; rerun it with this runapp and --format json)");
    if (*s != want)
        bad("schema '" + s->get<std::string>() + "', expected '" + want + "'");
    auto v = doc.find("schema_version");
    if (v == doc.end() || !v->is_number_integer())
        bad("no integer \"schema_version\"");
    if (*v != result_schema_version)
        bad("schema version " + v->dump() + "; this runapp reads version " +
            std::to_string(result_schema_version) + " (use the runapp that wrote it)");
}

} // namespace

Result row_from_json(const json& j) {
    if (!j.is_object())
        bad(std::string("a row is ") + type_name(j) + ", expected an object");
    Result r;
    r.app = text(j, "app", true);
    r.variant = text(j, "variant", true);
    r.device_id = text(j, "device_id", true);
    r.device_name = text(j, "device");
    r.backend = text(j, "backend");
    r.size_label = text(j, "size");
    r.local_label = text(j, "local");
    r.clock = text(j, "clock");
    r.build_options = text(j, "build_options");
    r.error_kind = text(j, "error_kind");
    r.note = text(j, "note");
    const std::string status = text(j, "status", true);
    r.kernel_ms = stats(j, "kernel_ms");
    r.host_ms = stats(j, "host_ms");
    r.h2d_ms = number(j, "h2d_ms");
    r.d2h_ms = number(j, "d2h_ms");
    r.h2d_bytes = number(j, "h2d_gbs") * r.h2d_ms * 1e6;
    r.d2h_bytes = number(j, "d2h_gbs") * r.d2h_ms * 1e6;
    r.wall_ms = number(j, "wall_ms");
    if (const auto parts = j.find("wall_parts_ms"); parts != j.end()) {
        if (!parts->is_object())
            bad(std::string("field 'wall_parts_ms' is ") + type_name(*parts) +
                ", expected an object");
        for (const auto& [name, part] : Result::WallParts::named)
            r.wall_parts.*part = number(*parts, name);
    }
    r.build_ms = number(j, "build_ms");
    r.max_error = number(j, "max_error");
    r.tolerance = number(j, "tolerance");
    r.seed = static_cast<std::uint64_t>(std::min(number(j, "seed"), 9.0e15));
    r.cache_hit = flag(j, "cache_hit");
    if (j.contains("provenance")) // compiled, memory_cache, disk_cache, ...
        r.provenance = text(j, "provenance");
    if (j.contains("kernel_text")) // a dialect: one text through both APIs
        r.kernel_text = text(j, "kernel_text");
    r.x_cpu = number(j, "x_cpu");
    r.native_copy_gbs = number(j, "native_copy_gbs");
    // The amounts per run, back from the figures to_json derived from them.
    const double ms = r.kernel_ms.median;
    r.flops = number(j, "gflops") * ms * 1e6;
    r.bytes = number(j, "effective_gbs") * ms * 1e6;
    r.pixels = number(j, "mpixels_per_s") * ms * 1e3;
    if (status == "pass") {
        r.verified = r.pass = true;
    } else if (status == "fail") {
        r.verified = true;
    } else if (status == "skipped") {
        r.skipped = true;
    } else if (status == "implausible") {
        r.implausible = true;
        r.verified = flag(j, "verified");
        r.pass = flag(j, "pass");
    } else if (status != "unverified") {
        bad("field 'status' is '" + status +
            "', expected pass, fail, skipped, unverified or implausible");
    }
    r.sampled = text(j, "checked") == "sample";
    if (status == "pass" || status == "unverified")
        if (!(ms > 0))
            bad("a row that ran (status " + status + ") has no kernel time");
    return r;
}

Run run_from_json(json doc) {
    check_schema(doc, result_schema);
    Run run;
    for (const char* key : {"time", "duet_version", "command"})
        if (auto it = doc.find(key); it != doc.end() && !it->is_string())
            bad(std::string("field '") + key + "' is " + type_name(*it) + ", expected a string");
    if (auto it = doc.find("machine"); it == doc.end() || !it->is_object())
        bad("field 'machine' is missing or not an object");
    if (auto it = doc.find("devices"); it == doc.end() || !it->is_array())
        bad("field 'devices' is missing or not an array");
    if (doc["devices"].size() > max_devices)
        bad("more than " + std::to_string(max_devices) + " devices");
    for (const auto& d : doc["devices"])
        if (!d.is_object())
            bad("an entry of 'devices' is " + std::string(type_name(d)) + ", expected an object");
    auto rows = doc.find("results");
    if (rows == doc.end() || !rows->is_array())
        bad("no 'results' array");
    if (rows->size() > max_rows)
        bad("more than " + std::to_string(max_rows) + " rows");
    std::size_t i = 0;
    try {
        // Each row's JSON is freed once it is a Result: the file is not held twice.
        for (auto& row : *rows) {
            run.results.push_back(row_from_json(row));
            row = json();
            ++i;
        }
    } catch (const BadResultFile& e) {
        bad("results[" + std::to_string(i) + "]: " + e.what());
    }
    doc.erase("results");
    run.info = run_info_from_json(std::move(doc));
    return run;
}

void merge_into(Run& into, Run&& from) {
    for (auto& r : from.results)
        into.results.push_back(std::move(r));
    if (from.info.failures.empty())
        return;
    auto& written = into.info.document["failures"]; // what the JSON writer writes
    if (!written.is_array())
        written = json::array();
    for (auto& f : from.info.failures) {
        written.push_back(f);
        into.info.failures.push_back(std::move(f));
    }
}

std::vector<Run> parse_result_text(const std::string& text) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        bad("empty: no JSON at all");
    check_shape(text);
    json doc = json::parse(text, nullptr, false);
    if (doc.is_discarded()) {
        try {
            const json again =
                json::parse(text); // again, for the parser's message (where it stopped)
        } catch (const json::exception& e) {
            bad(std::string("not JSON or truncated (") + e.what() + ")");
        }
        bad("not JSON or truncated");
    }
    sanitize(doc);
    if (doc.is_object() && doc.value("schema", json()) == report_schema) {
        check_schema(doc, report_schema);
        auto runs = doc.find("runs");
        if (runs == doc.end() || !runs->is_array())
            bad("no 'runs' array");
        std::vector<Run> out;
        for (std::size_t i = 0; i < runs->size(); ++i) {
            try {
                out.push_back(run_from_json(std::move((*runs)[i])));
            } catch (const BadResultFile& e) {
                bad("runs[" + std::to_string(i) + "]: " + e.what());
            }
        }
        return out;
    }
    return {run_from_json(std::move(doc))};
}

std::vector<Run> read_result_file(const std::string& path) {
    // Opened without blocking (a FIFO in its place), then checked on the open file, and read
    // no further than the bound even if it grows meanwhile.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        bad("cannot read it (no such file?)");
    struct stat st {};
    std::string text;
    const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
    if (regular && static_cast<std::size_t>(st.st_size) <= max_file_bytes) {
        char chunk[65536];
        ssize_t n = 0;
        while (text.size() <= max_file_bytes &&
               ((n = ::read(fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR)))
            if (n > 0)
                text.append(chunk, static_cast<std::size_t>(n));
    }
    ::close(fd);
    if (!regular)
        bad("not a regular file");
    if (static_cast<std::size_t>(st.st_size) > max_file_bytes || text.size() > max_file_bytes)
        bad("larger than 256 MiB: not a Duet result file");
    auto runs = parse_result_text(text);
    for (auto& r : runs)
        r.file = path;
    return runs;
}

json runs_to_json(const std::vector<Run>& runs) {
    auto one = [](const Run& r) {
        json doc = r.info.document;
        doc["results"] = json::array();
        for (const auto& row : r.results)
            doc["results"].push_back(to_json(row));
        return doc;
    };
    if (runs.size() == 1)
        return one(runs[0]);
    json doc = {{"schema", report_schema}, {"schema_version", result_schema_version}};
    doc["runs"] = json::array();
    for (const auto& r : runs)
        doc["runs"].push_back(one(r));
    return doc;
}

} // namespace runapp
