// runapp compile: the parsers of each vendor tool's output (on captured samples), bad targets,
// a missing compiler, and a real build of one kernel on every target whose compiler is here.
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "cmd_compile.hpp"
#include "runapp_shell.hpp"

namespace {

struct Run {
    int code;
    std::string out;
};

Run run_runapp(const std::string& env, const std::string& args) {
    auto [code, out] = duet_test::shell(env + " " + duet_test::runapp_path() + " " + args);
    return {code, out};
}

using namespace runapp::compile;

} // namespace

TEST_CASE("compile: ocloc's patch tokens give SLM, scratch, SIMD width and the required group") {
    const std::string ptm =
        "Kernel #6\nKernelBinaryHeader:\n\t4 KernelUnpaddedSize 13432\n"
        "\tKernelName matmul_reg8x8\nUnidentified PatchToken:\n\t4 Token 18\n\t4 Size 16\n"
        "\tHex 0 0 0 0 0 40 0 0\nUnidentified PatchToken:\n\t4 Token 15\n\t4 Size 16\n"
        "\tHex 0 0 0 0 0 20 0 0\nUnidentified PatchToken:\n\t4 Token 23\n\t4 Size 140\n"
        "\tHex 10 0 0 0 10 0 0 0 1 0 0 0 20 0 0 0 0 0 0 0 1 0 0 0\n"
        "Kernel #7\n\tKernelName vecadd_naive\nUnidentified PatchToken:\n\t4 Token 23\n"
        "\t4 Size 140\n\tHex 0 0 0 0 0 0 0 0 0 0 0 0 10 0 0 0\n";
    const auto k = parse_ocloc_ptm(ptm);
    REQUIRE(k.size() == 2);
    CHECK(k[0].kernel == "matmul_reg8x8");
    CHECK(k[0].scratch == 0x4000);
    CHECK(k[0].local == 0x2000);
    CHECK(k[0].simd == 32);
    CHECK(k[0].max_wg == 256);
    CHECK(k[1].kernel == "vecadd_naive");
    CHECK(k[1].scratch == 0);
    CHECK(k[1].simd == 16);
    CHECK(k[1].max_wg == -1);
    CHECK(parse_ocloc_ptm("garbage\n").empty());
}

TEST_CASE("compile: clang's amdhsa metadata gives VGPR, SGPR, spills, LDS and the flat limit") {
    const std::string s =
        "\t.text\n---\namdhsa.kernels:\n  - .args:\n      - .address_space:  global\n"
        "        .name:           in\n        .offset:         0\n"
        "    .group_segment_fixed_size: 2048\n    .max_flat_workgroup_size: 256\n"
        "    .name:           matmul_tiled16\n    .private_segment_fixed_size: 16\n"
        "    .sgpr_count:     20\n    .sgpr_spill_count: 1\n    .vgpr_count:     32\n"
        "    .vgpr_spill_count: 2\n    .wavefront_size: 64\n"
        "  - .args:\n    .name:           k2\n    .vgpr_count:     4\n    .wavefront_size: 32\n"
        "amdhsa.target:   amdgcn-amd-amdhsa--gfx90a\n...\n";
    const auto k = parse_amdgpu_asm(s);
    REQUIRE(k.size() == 2);
    CHECK(k[0].kernel == "matmul_tiled16");
    CHECK(k[0].vgpr == 32);
    CHECK(k[0].sgpr == 20);
    CHECK(k[0].spill == 12);
    CHECK(k[0].scratch == 16);
    CHECK(k[0].local == 2048);
    CHECK(k[0].max_wg == 256);
    CHECK(k[0].simd == 64);
    CHECK(k[1].kernel == "k2");
    CHECK(k[1].simd == 32);
    CHECK(k[1].spill == -1);
}

TEST_CASE("compile: ptxas -v gives registers, spills and shared memory") {
    const std::string s =
        "ptxas info    : Compiling entry function 'matmul_best' for 'sm_80'\n"
        "ptxas info    : Function properties for matmul_best\n"
        "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 230 registers, used 1 barriers, 49152 bytes smem, 388 bytes cmem[0]\n"
        "ptxas info    : Compiling entry function 'vecadd_naive' for 'sm_80'\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 10 registers, used 0 barriers, 380 bytes cmem[0]\n";
    const auto k = parse_ptxas(s);
    REQUIRE(k.size() == 2);
    CHECK(k[0].kernel == "matmul_best");
    CHECK(k[0].vgpr == 230);
    CHECK(k[0].spill == 4);
    CHECK(k[0].scratch == 8);
    CHECK(k[0].local == 49152);
    CHECK(k[0].max_wg == 256);
    CHECK(k[1].local == 0);
    CHECK(k[1].max_wg == 1024);
    CHECK(nvidia_max_threads(255) == 256);
    CHECK(nvidia_max_threads(64) == 1024);
}

TEST_CASE("compile: the parsers read 50,000-character names and 100,000-character lines") {
    // std::regex recursed once per character here and overflowed the stack.
    const std::string name(50000, 'n'), line(100000, '7');
    auto k = parse_ptxas("ptxas info    : Compiling entry function '" + name + "' for 'sm_90'\n" +
                         line + "\nptxas info    : Used 40 registers, " + line + " bytes smem\n" +
                         "    0 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n");
    REQUIRE(k.size() == 1);
    CHECK(k[0].kernel == name);
    CHECK(k[0].vgpr == 40);
    CHECK(k[0].local <= 0); // a number too large to hold is not read, and does not crash
    CHECK(k[0].spill == 8);
    const auto a = parse_amdgpu_asm("amdhsa.kernels:\n  - .name: " + name + "\n    .vgpr_count: " +
                                    "12\n    ." + line + ":\n    .sgpr_count: " + line + "\n");
    REQUIRE(a.size() == 1);
    CHECK(a[0].kernel == name);
    CHECK(a[0].vgpr == 12);
    const auto p =
        parse_ocloc_ptm("KernelName " + name + "\n" + line + " Token 23\nHex zz " + line + "\n");
    REQUIRE(p.size() == 1);
    CHECK(p[0].kernel == name);
}

TEST_CASE("compile: an unknown target names the known ones and exits 2") {
    auto r = run_runapp("", "compile vecadd --target gfx9999");
    CHECK(r.code == 2);
    CHECK(r.out.find("gfx1100") != std::string::npos);
    CHECK(r.out.find("sm_90") != std::string::npos);
    r = run_runapp("", "compile nosuchapp --target spirv");
    CHECK(r.code == 2);
    r = run_runapp("", "compile " DUET_SOURCE_DIR "/kernels_cu/vecadd.cu --target intel");
    CHECK(r.code == 2);
    CHECK(r.out.find("choose nvidia") != std::string::npos);
}

TEST_CASE("compile: a FIFO given as the kernel file is refused at once, never waited on") {
    const std::filesystem::path fifo = std::filesystem::temp_directory_path() /
                                       ("duet_compile_fifo_" + std::to_string(::getpid()) + ".cl");
    std::filesystem::remove(fifo);
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    // `timeout` turns a hang (the old behaviour: open() waits for a writer) into exit 124.
    const auto r = run_runapp("timeout 60", "compile " + fifo.string() + " --target spirv");
    std::filesystem::remove(fifo);
    CHECK(r.code == 2);
    CHECK(r.out.find("not a regular file") != std::string::npos);
}

TEST_CASE("compile: a missing compiler is listed as unavailable with its package, not a failure") {
    const auto r = run_runapp("PATH=/nonexistent", "compile vecadd --target intel,amd,spirv");
    CHECK(r.code == 0);
    CHECK(r.out.find("unavailable skl: ocloc not found (install intel-opencl-icd)") !=
          std::string::npos);
    CHECK(r.out.find("clang-15 not found (install clang-15)") != std::string::npos);
}

TEST_CASE("compile: vecadd builds on every target whose compiler is installed") {
    for (const auto& t : targets()) {
        const auto r = run_runapp("", "compile vecadd --target " + t.name + " --format csv");
        INFO(t.name << ": " << r.out);
        CHECK(r.code == 0);
        const bool unavailable = r.out.find("unavailable") != std::string::npos;
        if (!unavailable)
            CHECK(r.out.find(t.name + ",vecadd." + (t.language == "opencl" ? "cl" : "cu") +
                             ",vecadd_naive,ok") != std::string::npos);
        else
            MESSAGE(t.name << " unavailable here");
    }
}

// Installing intel-opencl-icd for ocloc registers Intel's GPU driver (libigdrcl.so) on machines
// without an Intel GPU: doctor warns about it, but a library that is no ICD at all still fails.
TEST_CASE(
    "doctor: a vendor driver without its hardware is a warning; a library that is no ICD fails") {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(DUET_BINARY_DIR) / "doctor-vendors";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const char* igdrcl = "/usr/lib/x86_64-linux-gnu/intel-opencl/libigdrcl.so";
#if defined(__SANITIZE_ADDRESS__)
    // The driver dlopens with RTLD_DEEPBIND, which ASan refuses by ending the process (.ci/run).
    const bool asan = true;
#else
    const bool asan = false;
#endif
    if (asan) {
        MESSAGE("under AddressSanitizer Intel's GPU driver cannot be loaded: its no-hardware case "
                "is not checked");
    } else if (fs::exists(igdrcl)) {
        std::ofstream(dir / "intel.icd") << igdrcl << "\n";
        const auto r = run_runapp("OCL_ICD_VENDORS=" + dir.string(), "doctor");
        INFO(r.out);
        CHECK(r.out.find("[WARN] ICD " + (dir / "intel.icd").string()) != std::string::npos);
        CHECK(r.out.find("it reports no platform") != std::string::npos);
        CHECK(r.out.find("without its hardware") != std::string::npos);
        CHECK(r.out.find("[FAIL] ICD") == std::string::npos);
        fs::remove(dir / "intel.icd");
    } else {
        MESSAGE("intel-opencl-icd is not installed: its no-hardware case is not checked here");
    }
    std::ofstream(dir / "notanicd.icd") << "libz.so.1\n";
    const auto r = run_runapp("OCL_ICD_VENDORS=" + dir.string(), "doctor");
    INFO(r.out);
    CHECK(r.code == 3);
    CHECK(r.out.find("[FAIL] ICD " + (dir / "notanicd.icd").string()) != std::string::npos);
    fs::remove_all(dir);
}
