// runapp --kernel-text: every device builds one dialect's files of Duet's kernels. On an OpenCL
// device OpenCL C is its own language (the same rows, marked); CUDA C++ reaches it only through
// SPIR-V or (NVIDIA's OpenCL) PTX, which PoCL takes neither of: each step is SKIPPED with those
// reasons, never run or PASSed.
// bench/gpu_one_text.sh runs the OpenCL C text through both APIs of a GPU.
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "kernel_text.hpp"
#include "runapp_cli.hpp"

TEST_CASE("runapp --kernel-text: one dialect's text on every device, or the reason it cannot") {
    auto r = runapp("run vecadd --kernel-text spir-v --size 1000");
    CHECK(r.code == 2);
    CHECK(r.out.find("--kernel-text 'spir-v'") != std::string::npos);
    CHECK(r.out.find("opencl-c, cuda-c++") != std::string::npos);
    r = runapp("report x.json --kernel-text opencl-c");
    CHECK(r.code == 2); // an option report does not use
    if (!has_opencl()) {
        MESSAGE("no OpenCL device");
        return;
    }
    r = runapp("run vecadd --device opencl:0 --kernel-text opencl-c --size 1000 --reps 2 "
               "--format json");
    INFO(r.out);
    REQUIRE(r.code == 0);
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(!j["results"].empty());
    for (const auto& row : j["results"]) {
        CHECK(row["status"] == "pass");
        CHECK(row["kernel_text"] == "opencl-c");
    }
    r = runapp("run vecadd --device opencl:0 --kernel-text opencl-c --size 1000 --reps 2");
    CHECK(r.code == 0);
    CHECK(r.out.find(", kernel text opencl-c") != std::string::npos);
    // compare's table and the page keep one text's rows apart from the twins' of the same step.
    r = runapp("compare vecadd --devices opencl:0 --kernel-text opencl-c --size 1000 --reps 2 "
               "--quiet");
    CHECK(r.code == 0);
    CHECK(r.out.find("naive [opencl-c]") != std::string::npos);
    CHECK(r.out.find("every device built the step's opencl-c text") != std::string::npos);
    // PoCL takes no SPIR-V (no cl_khr_il_program) and no PTX: CUDA C++ cannot reach it.
    r = runapp("run vecadd --device opencl:0 --kernel-text cuda-c++ --size 1000 --reps 2 "
               "--format json");
    INFO(r.out);
    const bool ran = r.code == 0;
    if (ran) {
        MESSAGE("opencl:0 takes SPIR-V or PTX: CUDA C++ ran through it");
        j = nlohmann::json::parse(r.out);
        for (const auto& row : j["results"])
            CHECK((row["status"] == "pass" || row["status"] == "skipped"));
        return;
    }
    CHECK(r.code == 3); // nothing of the app ran on the device
    CHECK(r.out.find("nothing ran: every variant of vecadd was skipped") != std::string::npos);
    j = nlohmann::json::parse(r.out.substr(0, r.out.rfind("\n}") + 2)); // then the error lines
    REQUIRE(!j["results"].empty());
    for (const auto& row : j["results"]) {
        CHECK(row["status"] == "skipped");
        CHECK(row["kernel_text"] == "cuda-c++");
        CHECK(row["note"].get<std::string>().find("takes no SPIR-V") != std::string::npos);
        const std::string note = row["note"];
        // Not NVIDIA's OpenCL, or it is and clang or libclc is missing.
        CHECK((note.find("takes no PTX") != std::string::npos ||
               note.find("Debian:") != std::string::npos));
    }
}

TEST_CASE("runapp --kernel-text: a refused step names the compiler's line that says why") {
    using duet::apps::first_error_line;
    CHECK(first_error_line("warning: unused\nk.cl:3:1: error: no float8\n1 error\n") ==
          "k.cl:3:1: error: no float8");
    // A crashing tool's stack trace names report_fatal_error long before its message.
    CHECK(first_error_line(" #7 0x7f llvm::report_fatal_error(llvm::Twine const&, bool)\n"
                           "LLVM ERROR: unsupported type\n") == "LLVM ERROR: unsupported type");
    CHECK(first_error_line("\n  \nsomething failed\n") == "something failed");
    CHECK(first_error_line("").empty());
}
