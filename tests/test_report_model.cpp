// The typed model of a result file (apps/runapp/run_info.hpp): the provenance is read once into
// typed fields, which the sheet (columns, peaks, CUDA/OpenCL twins) and the writers use; the
// JSON writer keeps the provenance as written; odd values and oversized lists are bounded.
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "output.hpp"
#include "result_file.hpp"
#include "runapp_child.hpp"
#include "sheet.hpp"

using nlohmann::json;

namespace {

json gpu_node() {
    return json::parse(read_file(DUET_SOURCE_DIR "/tests/data/report_gpu_node.json"));
}

runapp::Run one(const json& doc) {
    auto runs = runapp::parse_result_text(doc.dump());
    REQUIRE(runs.size() == 1);
    return std::move(runs[0]);
}

std::string rejection(const json& doc) {
    try {
        runapp::parse_result_text(doc.dump());
    } catch (const runapp::BadResultFile& e) {
        return e.what();
    }
    return "accepted";
}

} // namespace

TEST_CASE("report model: a result file's provenance is read once into typed fields") {
    const runapp::Run run = one(gpu_node());
    const runapp::RunInfo& i = run.info;
    CHECK(i.machine.host == "gpu-node-7");
    CHECK(i.machine.cpu == "AMD EPYC 9454 48-Core Processor");
    CHECK(i.machine.os == "Debian GNU/Linux 12 (bookworm)");
    CHECK(i.date() == "2026-11-22 10:00");
    CHECK(i.duet_version == "0.9.0");
    CHECK(i.command == "runapp compare matmul vecadd --format json");
    REQUIRE(i.devices.size() == 2);
    CHECK(i.devices[0].id == "cuda:0");
    CHECK(i.devices[0].backend == "cuda");
    CHECK(i.devices[0].pci_bus_id == "0000:19:00.0");
    CHECK(i.devices[0].peak_gbs == doctest::Approx(3352.3));
    CHECK(i.devices[1].backend == "opencl");
    CHECK(i.devices[1].uuid == i.devices[0].uuid);
    CHECK(i.devices[1].peak_gflops == 0);
    CHECK(i.failures.empty());

    // The sheet pairs the GPU seen through both backends, and OpenCL borrows CUDA's peaks.
    const runapp::Sheet s = runapp::make_sheet({run});
    REQUIRE(s.twins.size() == 1);
    CHECK(s.twins[0] == std::make_pair(std::string("opencl:0"), std::string("cuda:0")));
    const runapp::Column* ocl = s.column("opencl:0");
    REQUIRE(ocl != nullptr);
    CHECK(s.device(*ocl).platform == "NVIDIA CUDA");
    CHECK(ocl->peak_gflops == doctest::Approx(66908.2));
}

TEST_CASE("report model: odd provenance values read as text or unknown, never crash") {
    json d = gpu_node();
    d["devices"][0]["driver"] = 550;
    d["devices"][0]["peak_gbs"] = "fast";
    d["devices"][0]["peak_gflops"] = -1;
    d["devices"][0]["platform"] = nullptr;
    d["devices"][1]["uuid"] = json::array();
    d["devices"][1]["pci_bus_id"] = "";
    d["failures"] = {"rank 1: matmul on opencl:0: build failed", 3, "rank 1: vecadd failed"};
    const runapp::Run run = one(d);
    const auto& dev = run.info.devices[0];
    CHECK(dev.driver == "550");
    CHECK(dev.peak_gbs == 0);
    CHECK(dev.peak_gflops == 0);
    CHECK(dev.platform.empty());
    CHECK(run.info.failures == std::vector<std::string>{"rank 1: matmul on opencl:0: build failed",
                                                        "rank 1: vecadd failed"});
    // Neither UUID nor PCI bus id left to match: no twins.
    CHECK(runapp::make_sheet({run}).twins.empty());
}

TEST_CASE("report model: the provenance's shape is checked and its device list bounded") {
    json d = gpu_node();
    d["machine"] = json::array({"gpu-node-7"});
    CHECK(rejection(d) == "field 'machine' is missing or not an object");
    d = gpu_node();
    d["devices"] = {{"a", d["devices"][0]}};
    CHECK(rejection(d) == "field 'devices' is missing or not an array");
    d = gpu_node();
    d["devices"] = json::array();
    for (int n = 0; n < 4097; ++n)
        d["devices"].push_back({{"id", "opencl:" + std::to_string(n)}});
    CHECK(rejection(d) == "more than 4096 devices");
    d["devices"].erase(d["devices"].begin());
    CHECK(one(d).info.devices.size() == 4096);
}

TEST_CASE("report model: the JSON writer keeps the provenance as written") {
    json d = gpu_node();
    d["title"] = "H100 ladders";
    d["devices"][0]["clock_mhz"] = 1980;
    std::vector<runapp::Run> runs = {one(d)};
    json back = runapp::runs_to_json(runs);
    back.erase("results");
    d.erase("results");
    CHECK(back == d);

    // Two ranks of one host merged: rows and failures, typed and in what JSON writes.
    json rank = gpu_node();
    rank["failures"] = {"rank 1: matmul on opencl:0: build failed"};
    const std::size_t rows = runs[0].results.size();
    runapp::merge_into(runs[0], one(rank));
    CHECK(runs[0].results.size() == 2 * rows);
    CHECK(runs[0].info.failures.size() == 1);
    CHECK(runapp::runs_to_json(runs)["failures"] == rank["failures"]);
    // A rank without failures adds none, and no empty list.
    runapp::merge_into(runs[0], one(gpu_node()));
    CHECK(runs[0].info.failures.size() == 1);
    std::vector<runapp::Run> plain = {one(gpu_node())};
    runapp::merge_into(plain[0], one(gpu_node()));
    CHECK_FALSE(runapp::runs_to_json(plain).contains("failures"));
}

TEST_CASE("report model: a row read back carries what to_json wrote (program, x CPU, copy)") {
    duet::apps::Result r;
    r.app = "vecadd";
    r.variant = "naive";
    r.device_id = "opencl:0";
    r.kernel_ms.median = 0.5;
    r.verified = r.pass = true;
    r.provenance = "disk_cache";
    r.x_cpu = 12.5;
    r.native_copy_gbs = 20.25;
    const duet::apps::Result back = runapp::row_from_json(runapp::to_json(r));
    CHECK(back.provenance == "disk_cache");
    CHECK(back.x_cpu == 12.5);
    CHECK(back.native_copy_gbs == 20.25);
    CHECK(runapp::to_json(back) == runapp::to_json(r));
    // Written before these fields existed: the defaults (no reference, nothing measured).
    json old = runapp::to_json(r);
    for (const char* key : {"provenance", "x_cpu", "native_copy_gbs"})
        old.erase(key);
    const duet::apps::Result plain = runapp::row_from_json(old);
    CHECK(plain.provenance == "compiled");
    CHECK(plain.x_cpu == 0);
    CHECK(plain.native_copy_gbs == 0);
    old["x_cpu"] = -1;
    CHECK_THROWS_AS(runapp::row_from_json(old), runapp::BadResultFile);
}
