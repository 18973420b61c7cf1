// Hostile result files and outputs (docs/design/security.md): huge numbers, sparse grids and dense
// JSON that exhausted memory; fields that forged lines of the table and cells of the CSV; an
// --output or --html that hung on a FIFO, ignored a full disk or overwrote its own input.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runapp_child.hpp"
#include "security_util.hpp"

using duet_test::check_no_crash;
using nlohmann::json;

namespace {

json laptop() {
    return json::parse(read_file(DUET_SOURCE_DIR "/tests/data/report_laptop.json"));
}

// Splits a CSV line as a spreadsheet does (RFC 4180 quotes).
std::vector<std::string> csv_cells(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            cells.back() += c, ++i;
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            cells.emplace_back();
        else
            cells.back() += c;
    }
    return cells;
}

} // namespace

TEST_CASE("security: report --html of 1.7e308 and of a sparse grid is bounded and quick") {
    TempDir t("reporthuge");
    json d = laptop();
    d["results"][0]["gflops"] = 1.7e308;
    d["results"][1]["kernel_ms"]["max"] = 1.7e308;
    d["results"][1]["effective_gbs"] = 1e300;
    write_file(t.path / "huge.json", d.dump());
    const auto at = [&](const std::string& name) { return (t.path / name).string(); };
    auto r = runapp({"report", at("huge.json"), "--html", at("huge.html")}, {}, t.path, 60);
    check_no_crash(r);
    CHECK(r.code == 0);
    CHECK(fs::file_size(t.path / "huge.html") < 1000000);

    // 4,000 rows, each its own variant and device: a grid of 16 million holes.
    json rows = json::array();
    for (int i = 0; i < 4000; ++i) {
        json row = d["results"][2];
        row["variant"] = "v" + std::to_string(i);
        row["device_id"] = "opencl:" + std::to_string(i);
        rows.push_back(row);
    }
    d["results"] = rows;
    write_file(t.path / "sparse.json", d.dump());
    r = runapp({"report", at("sparse.json"), "--html", at("sparse.html")}, {}, t.path, 60);
    check_no_crash(r);
    INFO(r.err);
    CHECK(r.code == 0);
    const auto in = fs::file_size(t.path / "sparse.json"),
               page = fs::file_size(t.path / "sparse.html");
    INFO("input " << in << " bytes, page " << page << " bytes");
    CHECK(page < 4 * in);
    CHECK(contains(read_file(t.path / "sparse.html"), "too sparse to chart"));
    CHECK(r.out.size() < in); // the table too (it was 680 MB)
    CHECK(contains(r.out, "too sparse for a grid"));
}

TEST_CASE("security: the result reader's memory is bounded by its input's size") {
    TempDir t("reportdense");
    // 8 MB of each shape: empty objects (about 300 MB once parsed, before any schema check),
    // one-element arrays and bare numbers (an array's first element has no comma before it;
    // 50 MB of "[0]" took 1.35 GB).
    for (const std::string shape : {"{}", "[0]", "0"}) {
        std::string dense = "{\"schema\":\"duet-results\",\"results\":[";
        while (dense.size() < (std::size_t{8} << 20))
            dense += shape + ",";
        dense += shape + "]}";
        write_file(t.path / "dense.json", dense);
        auto r = runapp({"report", (t.path / "dense.json").string()}, {}, t.path, 60);
        check_no_crash(r);
        INFO(shape << ": " << r.err);
        CHECK(r.code == 2);
        CHECK(contains(r.err, "too many values for its size"));
        MESSAGE(shape << ": " << dense.size() << " bytes, peak RSS " << r.peak_rss_kb << " KiB");
#if !defined(__SANITIZE_ADDRESS__) // AddressSanitizer's shadow and quarantine inflate the RSS
        CHECK(r.peak_rss_kb * 1024 < 20 * static_cast<long>(dense.size()));
#endif
    }
    // A real file, written compactly, is still read.
    write_file(t.path / "compact.json", laptop().dump());
    const auto r = runapp({"report", (t.path / "compact.json").string()}, {}, t.path, 60);
    CHECK(r.code == 0);
}

TEST_CASE("security: a result file cannot forge lines of the table or cells of the CSV") {
    TempDir t("reportforge");
    json d = laptop();
    d["results"][0]["variant"] = "naive\nmatmul on opencl:9 (fake)\nfake  PASS";
    d["results"][1]["variant"] = "=HYPERLINK(\"http://x\",\"y\"),extra";
    d["results"][2]["device"] = "@SUM(A1),\"quoted\"\r\n-1+1";
    write_file(t.path / "forged.json", d.dump());
    const std::string forged = (t.path / "forged.json").string();
    auto r = runapp({"report", forged}, {}, t.path, 60);
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_FALSE(contains(r.out, "\nfake  PASS"));
    CHECK_FALSE(contains(r.out, "\nmatmul on opencl:9"));
    CHECK(contains(r.out, "naive\\nmatmul on opencl:9 (fake)\\nfake  PASS"));
    r = runapp({"report", forged, "--format", "csv"}, {}, t.path, 60);
    CHECK(r.code == 0);
    std::istringstream lines(r.out);
    std::string line;
    std::getline(lines, line);
    const auto columns = csv_cells(line).size();
    std::size_t n = 0;
    while (std::getline(lines, line)) {
        INFO(line);
        const auto cells = csv_cells(line);
        CHECK(cells.size() == columns); // no line split, no extra column
        for (const auto& c : cells)
            CHECK((c.empty() || std::string("=+-@").find(c[0]) == std::string::npos));
        ++n;
    }
    CHECK(n == d["results"].size());
    CHECK(contains(r.out, "'=HYPERLINK"));
}

TEST_CASE("security: outputs that are FIFOs, full disks or the input itself are refused") {
    TempDir t("reportout");
    write_file(t.path / "in.json", laptop().dump());
    const std::string before = read_file(t.path / "in.json"), in = (t.path / "in.json").string(),
                      fifo = (t.path / "fifo").string();
    for (const auto& opt : {"--html", "--output"}) {
        const auto r =
            runapp({"report", in, opt, (t.path / "." / "in.json").string()}, {}, t.path, 60);
        INFO(r.err);
        CHECK(r.code == 2);
        CHECK(contains(r.err, "is the input file"));
        CHECK(read_file(t.path / "in.json") == before);
    }
    REQUIRE(::mkfifo((t.path / "fifo").c_str(), 0600) == 0);
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"report", in, "--output", fifo},
             {"report", in, "--html", fifo},
             {"compile", "vecadd", "--target", "gfx1100", "--output", fifo},
             {"tune", "reduction", "--size", "4096", "--device", "opencl:0", "--output", fifo}}) {
        if (args[0] == "tune" && !has_opencl0())
            continue;
        const auto r = runapp(args, {}, t.path, 60);
        check_no_crash(r);
        INFO(r.cmd << "\n" << r.err);
        CHECK(r.code == 2);
        CHECK(contains(r.err, fifo + " is a FIFO"));
    }
    const auto r = runapp({"compile", "vecadd", "--target", "gfx1100", "--output", "/dev/full"}, {},
                          t.path, 120);
    INFO(r.out << r.err);
    CHECK(r.code == 3);
    CHECK(contains(r.err, "--output file /dev/full failed"));
}
