// The native CPU reference (apps/native/): every app's reference row is checked like a device's
// and passes at odd sizes, the speed-ups over it (x_cpu) are set only where both rows ran and
// passed, the copy bandwidth is measured, and the table, JSON and CSV carry them.
#include <atomic>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "native/native.hpp"
#include "native/reference.hpp"
#include "output.hpp"
#include "report.hpp"
#include "runapp_shell.hpp"

using namespace duet::apps;

namespace {

Result device_row(const std::string& variant, double ms, bool pass = true) {
    Result r;
    r.app = "vecadd";
    r.variant = variant;
    r.backend = "opencl";
    r.device_id = "opencl:0";
    r.device_name = "dev";
    r.size_label = "1000";
    r.bytes = 12000;
    r.kernel_ms.median = ms;
    r.kernel_ms.count = 1;
    r.verified = true;
    r.pass = pass;
    return r;
}

} // namespace

TEST_CASE("native: every app's reference passes the app's own check at odd sizes") {
    const std::map<std::string, std::vector<std::string>> sizes = {
        {"vecadd", {"1", "1000", "65537"}},
        {"matmul", {"1x1x1", "37x53x29", "129x65x257"}},
        {"conv5x5", {"1x1", "3x7", "37x53", "130x67"}},
        {"reduction", {"1", "1000", "1000003"}},
    };
    for (const auto* app : all_apps())
        for (const auto& size : sizes.at(app->name()))
            for (const std::string variant : {"cpu_i32", "cpu_f32"}) { // reduction's steps
                if (app->name() != "reduction" && variant.ends_with("_f32"))
                    continue; // one native row for the others
                RunConfig cfg;
                cfg.size = app->parse_size(size);
                cfg.reps = 2;
                cfg.warmup = 1;
                const Result r = app->run_native(cfg, variant);
                INFO(app->name() << " " << size << " " << r.variant << ": " << r.max_error << " of "
                                 << r.tolerance << " " << r.note);
                CHECK(r.backend == "native");
                CHECK(r.device_id == "native");
                CHECK(r.device_name.find("host CPU (") == 0);
                CHECK(r.size_label == dims_label(cfg.size));
                CHECK(r.verified);
                CHECK(r.pass);
                CHECK(r.kernel_ms.count == 2);
                CHECK(r.kernel_ms.median > 0);
            }
}

TEST_CASE("native: the reduction's reference is per type; matmul names its library") {
    const App& red = find_app("reduction");
    CHECK(red.native_variant("cpu_i32") == "native_i32");
    CHECK(red.native_variant("shuffle_f32") == "native_f32");
    CHECK(find_app("vecadd").native_variant("vec4") == "native");
    RunConfig cfg;
    cfg.size = {64};
    cfg.reps = 1;
    const Result m = find_app("matmul").run_native(cfg, "best");
#if DUET_HAVE_OPENBLAS
    CHECK(m.device_name.find("OpenBLAS") != std::string::npos);
#else
    CHECK(m.device_name.find("blocked C++ loop") != std::string::npos);
#endif
    CHECK(m.device_name.find(native::host_cpu().isa) != std::string::npos);
    CHECK(m.pass);
}

TEST_CASE("native: x_cpu only where the row and its reference ran and passed; copy measured") {
    std::vector<Result> rows = {device_row("naive", 2.0), device_row("vec4", 0.5),
                                device_row("cpu", 1.0, false)};
    Result skipped = device_row("tiled", 0);
    skipped.skipped = true;
    skipped.pass = false;
    rows.push_back(skipped);
    RunConfig base;
    base.reps = 3;
    base.warmup = 1;
    std::vector<std::string> notes;
    const auto refs = run_native_references(rows, base, notes);
    CHECK(notes.empty());
    REQUIRE(refs.size() == 1); // one per app, size and native variant
    const Result& ref = refs[0];
    CHECK(ref.variant == "native");
    CHECK(ref.size_label == "1000");
    REQUIRE(ref.pass);
    CHECK(rows[0].x_cpu == doctest::Approx(ref.kernel_ms.median / 2.0));
    CHECK(rows[1].x_cpu == doctest::Approx(ref.kernel_ms.median / 0.5));
    CHECK(rows[2].x_cpu == 0); // failed: no speed-up
    CHECK(rows[3].x_cpu == 0); // skipped
    CHECK(rows[0].native_copy_gbs > 0);
    CHECK(ref.native_copy_gbs == rows[0].native_copy_gbs);
    CHECK(ref.note.find("native copy of the same") != std::string::npos);

    // JSON: a number, or null where there is none; CSV has the columns.
    CHECK(runapp::to_json(rows[1])["x_cpu"].get<double>() == doctest::Approx(rows[1].x_cpu));
    CHECK(runapp::to_json(rows[2])["x_cpu"].is_null());
    CHECK(runapp::to_json(ref)["backend"] == "native");
    std::vector<Result> all = rows;
    all.push_back(ref);
    std::ostringstream csv;
    runapp::print_results(csv, all, runapp::Format::csv, nlohmann::json::object());
    CHECK(csv.str().find(",x_cpu,native_copy_gbs,checked\n") != std::string::npos);
    // The comparison: an "x CPU" column, the reference under the table, not as a device column.
    std::ostringstream table;
    runapp::print_comparison(table, all);
    INFO(table.str());
    CHECK(table.str().find("x CPU") != std::string::npos);
    CHECK(table.str().find("native CPU reference native: host CPU (") != std::string::npos);
    CHECK(table.str().find("native ms") == std::string::npos);
}

TEST_CASE("native: the copy bandwidth copies and reports its method") {
    const auto c = native::copy_bandwidth(std::size_t{1} << 21, 2);
    CHECK(c.gbs > 0);
    CHECK(c.other_gbs > 0);
    CHECK(c.gbs >= c.other_gbs);
    CHECK(c.bytes >= (std::size_t{1} << 21));
    CHECK(!c.method.empty());
}

TEST_CASE("native: on_threads runs every part once per call, on kept threads, and rethrows") {
    const unsigned n = std::max(2u, native::host_cpu().threads);
    for (int call = 0; call < 50; ++call) {
        std::vector<std::atomic<int>> ran(n);
        native::on_threads(n, [&](unsigned t) { ran[t].fetch_add(1); });
        for (unsigned t = 0; t < n; ++t)
            REQUIRE(ran[t].load() == 1);
    }
    // Fewer threads than the pool has: the others stay out.
    std::atomic<int> calls{0};
    native::on_threads(1, [&](unsigned t) { calls += int(t) + 1; });
    CHECK(calls.load() == 1);
    // A call inside a call (its own threads), and a part that throws.
    std::atomic<int> inner{0};
    native::on_threads(n, [&](unsigned t) {
        if (t == 0)
            native::on_threads(n, [&](unsigned) { inner.fetch_add(1); });
    });
    CHECK(inner.load() == int(n));
    CHECK_THROWS_WITH(native::on_threads(n,
                                         [&](unsigned t) {
                                             if (t == n - 1)
                                                 throw std::runtime_error("part failed");
                                         }),
                      "part failed");
    // The pool still works after a part threw.
    std::atomic<int> after{0};
    native::on_threads(n, [&](unsigned) { after.fetch_add(1); });
    CHECK(after.load() == int(n));
}

TEST_CASE("native: runapp run --reference adds the reference row and the x CPU figures") {
    const auto [code, out] =
        duet_test::shell(duet_test::runapp_path() + " run vecadd --size 5000 --reps 2 --warmup 1 "
                                                    "--reference --quiet --format json");
    INFO(out);
    REQUIRE(code == 0);
    const auto j = nlohmann::json::parse(out);
    bool native = false, device = false;
    for (const auto& r : j["results"]) {
        if (r["backend"] == "native") {
            native = true;
            CHECK(r["status"] == "pass");
        } else if (r["status"] == "pass") {
            device = true;
            CHECK(r["x_cpu"].get<double>() > 0);
            CHECK(r["native_copy_gbs"].get<double>() > 0);
        }
    }
    CHECK(native);
    CHECK(device);
    // Without --reference: no reference row, x_cpu null.
    const auto [code2, out2] = duet_test::shell(
        duet_test::runapp_path() + " run vecadd --size 5000 --reps 1 --quiet --format json");
    REQUIRE(code2 == 0);
    const auto doc2 = nlohmann::json::parse(out2); // named: a temporary's member would dangle
    for (const auto& r : doc2["results"]) {
        CHECK(r["backend"] != "native");
        CHECK(r["x_cpu"].is_null());
    }
}
