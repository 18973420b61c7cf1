// Results that never lie, round four (issue 50): a kernel that changes its const inputs on a
// device that reads them in place fails and leaves later rows pristine; every timed run starts
// from the poison, and one that skipped its work fails; errors that cancel in the row and column
// sums (a rectangle of +-1000) fail the random-weighted sums; report shows every row of a
// repeated key and says when an MPI file is partial.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "app.hpp"
#include "conv5x5.hpp"
#include "honest_util.hpp"
#include "matmul_reference.hpp"
#include "native/native.hpp"
#include "problem.hpp"
#include "report.hpp"
#include "run.hpp"
#include "runapp_shell.hpp"
#include "test_util.hpp"

using namespace duet::apps;
using duet_test::ChangedKernel;
using duet_test::quick;

namespace {

// Whether `dev` reads a page-aligned host array in place (Device::read_in_place).
bool reads_in_place(duet::Device& dev) {
    static const auto page = std::make_shared<const HostVector<float>>(1024, 1.0f);
    return dev.read_in_place(page, page->data(), page->size() * sizeof(float)) != nullptr;
}

// The four corners of the rectangle rows {i1, i2} x columns {j1, j2} of a row-major output of
// `cols` columns moved by +e, -e, -e, +e: every row and column sum stays the same.
void rectangle(std::vector<float>& out, std::size_t cols, std::size_t i1, std::size_t i2,
               std::size_t j1, std::size_t j2, float e) {
    out[i1 * cols + j1] += e;
    out[i1 * cols + j2] -= e;
    out[i2 * cols + j1] -= e;
    out[i2 * cols + j2] += e;
}

// The same rectangle written by a kernel: `acc` plus the corner's share, for output (row, col).
std::string rectangle_code(const std::string& row, const std::string& col, int i1, int i2, int j1,
                           int j2) {
    const auto at = [&](int i, int j) {
        return "(" + row + " == " + std::to_string(i) + " && " + col + " == " + std::to_string(j) +
               ")";
    };
    return "(" + at(i1, j1) + " || " + at(i2, j2) + " ? 1000.0f : " + at(i1, j2) + " || " +
           at(i2, j1) + " ? -1000.0f : 0.0f)";
}

} // namespace

TEST_CASE("inputs: a kernel that rewrites its const inputs fails, naming the input; later rows "
          "read them as made") {
    const App& app = find_app("vecadd");
    const RunConfig cfg = quick(app, "100000");
    const auto made = random_floats(100000, cfg.seed); // input 1 as the problem makes it
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->info().id().c_str()) {
            {
                ChangedKernel changed("vecadd.cl", "c[i] = a[i] + b[i];",
                                      "{ ((__global float*)a)[i] = 1.0f - b[i]; c[i] = 1.0f; }");
                const auto bad = app.run(*dev, app.variants().front(), cfg);
                INFO(bad.note);
                CHECK(!bad.pass);
                if (reads_in_place(*dev))
                    CHECK(bad.note.find("changed input 1") != std::string::npos);
            }
            const auto a = shared_floats(100000, cfg.seed); // the array every row reads
            CHECK(std::equal(a->begin(), a->end(), made.begin()));
            const auto good = app.run(*dev, app.variants().front(), cfg);
            INFO(good.note);
            CHECK(good.pass);
        }
    }
}

TEST_CASE("timed runs: each starts from the poison, outside its timed span") {
    RunConfig cfg;
    cfg.reps = 4;
    cfg.warmup = 2;
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->info().id().c_str()) {
            auto q = dev->create_queue(duet::QueueOptions::timed());
            auto buf = dev->alloc_bytes(4096);
            int before = 0, after = 0, launches = 0;
            AroundRuns around;
            around.before = [&] { CHECK(before++ == after); };
            around.after = [&](int run) { CHECK(run == after++); };
            Result r;
            time_runs(
                r, *q, cfg,
                [&] {
                    ++launches;
                    const unsigned char zero = 0;
                    auto e = q->fill_bytes(*buf, &zero, 1, buf->size());
                    return std::pair{e, e};
                },
                around);
            CHECK(before == 4);
            CHECK(after == 4);
            CHECK(launches == 6);
        }
    }
}

TEST_CASE("timed runs: a run that skipped its work fails the row, with the run named") {
    const App& app = find_app("vecadd");
    RunConfig cfg = quick(app, "1024");
    cfg.reps = 3;
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->info().id().c_str()) {
            StepRun s(*dev, app, app.variants().front(), cfg);
            duet::Buffer* out = s.output(4096);
            auto scratch = dev->alloc_bytes(4096);
            const std::vector<float> ones(1024, 1.0f);
            int run = -1;
            // Warm-up none; timed runs 1 and 3 write the output, run 2 writes elsewhere.
            s.time([&] {
                ++run;
                auto e = s.queue().write_bytes(run == 1 ? *scratch : *out, ones.data(), 4096);
                return std::pair{e, e};
            });
            s.r.pass = s.r.verified = true;
            s.check_guards();
            INFO(s.r.note);
            CHECK(!s.r.pass);
            CHECK(s.r.note.find("timed run 2 of 3 did not write output 1") != std::string::npos);
        }
    }
}

TEST_CASE("timed runs: a kernel that skips its work once the output holds a value is not fast") {
    // matmul naive, returning at once where C already holds a number (not the poison's NaN).
    const App& app = find_app("matmul");
    RunConfig cfg = quick(app, "192");
    cfg.reps = 3;
    cfg.warmup = 1;
    for (auto* dev : duet_test::devices_of("opencl")) {
        if (dev->info().platform.find("Oclgrind") != std::string::npos)
            continue; // a simulator's times say nothing
        SUBCASE(dev->info().id().c_str()) {
            const auto honest = app.run(*dev, app.variants().front(), cfg);
            ChangedKernel changed("matmul_naive.cl", "if (row < M && col < N) {",
                                  "if (row < M && col < N && isnan(C[row * N + col])) {");
            const auto lazy = app.run(*dev, app.variants().front(), cfg);
            INFO(honest.kernel_ms.median << " ms honest, " << lazy.kernel_ms.median << " ms lazy");
            CHECK(honest.pass);
            CHECK(lazy.pass); // every run started from the poison, so each did the work
            CHECK(lazy.kernel_ms.median > honest.kernel_ms.median / 5);
        }
    }
}

TEST_CASE("weighted sums: a +-1000 rectangle outside matmul's default sample at 2100^3 fails") {
    const std::size_t n = 2100;
    RunConfig cfg; // the default --verify
    Result note;
    REQUIRE(verify_level(cfg, double(n) * n * n, 2147483648.0, note, "matmul") == Verify::sample);
    const auto a = random_floats(n * n, cfg.seed), b = random_floats(n * n, cfg.seed + 1);
    std::vector<float> c(n * n);
    native::sgemm(a.data(), b.data(), c.data(), n, n, n);
    const auto ref = matmul_ref::compute_reference(
        a, b, n, n, n, check_indices(n * n, Verify::sample, cfg.seed), cfg.seed);
    // Corners none of the sampled entries is.
    const std::set<std::size_t> sampled(ref->indices.begin(), ref->indices.end());
    std::size_t i1 = 700, i2 = 1400, j1 = 600, j2 = 1500;
    while (sampled.count(i1 * n + j1) || sampled.count(i1 * n + j2) || sampled.count(i2 * n + j1) ||
           sampled.count(i2 * n + j2))
        ++i1;
    const auto check = [&](bool weighted) {
        Result r;
        r.tolerance = 1.0;
        compare_outputs(r, c, ref->indices, ref->value, &ref->bound);
        SumCheck sums = matmul_ref::matmul_sums(*ref->sums, n);
        if (!weighted)
            sums.weighted.clear();
        check_sums(r, c, sums);
        return r;
    };
    CHECK(check(true).pass); // the right product passes
    rectangle(c, n, i1, i2, j1, j2, 1000.0f);
    CHECK(check(false).pass); // what the plain sums alone let through (the PASS)
    const Result r = check(true);
    INFO(r.note);
    CHECK(!r.pass);
    CHECK(r.note.find("random-weighted") != std::string::npos);
}

TEST_CASE("weighted sums: a +-1000 rectangle outside conv5x5's sample fails") {
    const std::size_t W = 301, H = 203;
    const auto img = random_floats(W * H, 7), filter = random_floats(25, 8);
    std::vector<float> out(W * H);
    for (std::size_t y = 0; y < H; ++y)
        for (std::size_t x = 0; x < W; ++x) {
            double s = 0;
            for (long long dy = 0; dy < 5; ++dy)
                for (long long dx = 0; dx < 5; ++dx)
                    s += double(filter[dy * 5 + dx]) *
                         img[std::clamp<long long>((long long)y + dy - 2, 0, H - 1) * W +
                             std::clamp<long long>((long long)x + dx - 2, 0, W - 1)];
            out[y * W + x] = float(s);
        }
    Result r;
    r.pass = true;
    check_sums(r, out, conv5x5_sums(img, filter, W, H, 9));
    CHECK(r.pass);
    rectangle(out, W, 50, 150, 40, 250, 1000.0f);
    SumCheck plain = conv5x5_sums(img, filter, W, H, 9);
    plain.weighted.clear();
    check_sums(r, out, plain);
    CHECK(r.pass); // the plain sums alone are blind to it
    check_sums(r, out, conv5x5_sums(img, filter, W, H, 9));
    INFO(r.note);
    CHECK(!r.pass);
}

TEST_CASE("weighted sums: matmul and conv5x5 kernels with a +-1000 rectangle fail --verify "
          "sample") {
    struct Case {
        const char *app, *file, *from, *size;
        std::string to;
    };
    const std::vector<Case> cases = {
        {"matmul", "matmul_naive.cl", "C[row * N + col] = acc;", "200x150x64",
         "C[row * N + col] = acc + " + rectangle_code("row", "col", 60, 120, 40, 130) + ";"},
        {"conv5x5", "conv5x5.cl", "out[y * width + x] = sum;", "120x90",
         "out[y * width + x] = sum + " + rectangle_code("y", "x", 20, 60, 30, 90) + ";"}};
    for (const auto& c : cases) {
        ChangedKernel changed(c.file, c.from, c.to);
        const App& app = find_app(c.app);
        for (auto* dev : duet_test::devices_of("opencl")) {
            SUBCASE((dev->info().id() + " " + c.app).c_str()) {
                RunConfig cfg = quick(app, c.size);
                cfg.verify = Verify::sample;
                cfg.verify_explicit = true;
                const auto bad = app.run(*dev, app.variants().front(), cfg);
                INFO(bad.note);
                CHECK(bad.sampled);
                CHECK(!bad.pass);
            }
        }
    }
}

TEST_CASE("report: every row of a repeated key is shown, a FAIL never under a PASS") {
    Result pass, fail;
    pass.app = fail.app = "vecadd";
    pass.variant = fail.variant = "naive";
    pass.device_id = fail.device_id = "opencl:0";
    pass.size_label = fail.size_label = "1000";
    pass.bytes = fail.bytes = 12000;
    pass.kernel_ms.median = fail.kernel_ms.median = 1.0;
    pass.verified = fail.verified = true;
    pass.pass = true;
    fail.pass = false;
    for (const auto& rows : {std::vector<Result>{fail, pass}, std::vector<Result>{pass, fail}}) {
        std::ostringstream out;
        runapp::print_comparison(out, rows, nullptr);
        INFO(out.str());
        CHECK(out.str().find("FAIL") != std::string::npos);
        CHECK(out.str().find("naive (2nd row)") != std::string::npos);
    }
}

TEST_CASE("report: a partial MPI file says which ranks and devices are missing") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(DUET_BINARY_DIR) / "test-honest-partial";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string runapp = duet_test::runapp_path(), file = (dir / "run.json").string();
    const auto [code, text] = duet_test::shell(
        runapp + " run vecadd --size 4096 --reps 1 --warmup 0 --variant naive --format json " +
        "--output " + file + " --quiet");
    REQUIRE_MESSAGE(code == 0, text);
    nlohmann::json doc = nlohmann::json::parse(std::ifstream(file));
    doc["partial"] = "the rows that had finished when this was written";
    doc["mpi_ranks"] = {{"ranks", 2}, {"finished", {0}}, {"rows", {1, 0}}};
    doc["devices"].push_back(doc["devices"][0]);
    doc["devices"].back()["id"] = "opencl:7";
    std::ofstream(dir / "partial.json") << doc.dump();
    const auto [rcode, report] =
        duet_test::shell(runapp + " report " + (dir / "partial.json").string() + " --quiet");
    INFO(report);
    CHECK(rcode == 3);
    CHECK(report.find("is partial") != std::string::npos);
    CHECK(report.find("ranks that did not finish: 1 (0 rows sent) (1 of 2)") != std::string::npos);
    CHECK(report.find("devices it lists without a row: opencl:7") != std::string::npos);
    fs::remove_all(dir);
}
