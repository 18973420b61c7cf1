// ptxas on a PTX text, for the tests of the OpenCL backend's PTX routes (test_clang_ptx.cpp,
// test_nvcl_ptx.cpp): CHECKs that the CUDA toolkit's ptxas assembles it for sm_90, where the
// toolkit is installed (a MESSAGE says so where it is not).
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <duet/tool_run.hpp>

inline void check_ptxas_accepts(const std::string& ptx) {
    const std::filesystem::path ptxas = "/usr/local/cuda/bin/ptxas";
    if (!std::filesystem::exists(ptxas)) {
        MESSAGE("no " << ptxas << ": ptxas not run");
        return;
    }
    const duet::PrivateTempDir dir("duet-test-ptx", "the ptxas check");
    std::ofstream(dir.path() / "k.ptx") << ptx;
    const auto r =
        duet::run_tool({ptxas.string(), "-arch=sm_90", "-o", (dir.path() / "k.cubin").string(),
                        (dir.path() / "k.ptx").string()},
                       dir.path());
    INFO(r.output);
    CHECK(r.code == 0);
}
