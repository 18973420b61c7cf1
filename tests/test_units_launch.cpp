// Pure rules of launches and builds, no device: which argument a short argument list left out,
// which parameters a tile map fits, the compiler options BuildOptions refuses, the driver-chosen
// local size of a Range, and kernel files read beside the executable.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <duet/backend/build_options.hpp>
#include <duet/backend/launch_checks.hpp>
#include <duet/cuda/tile_map.hpp>
#include <duet/duet.hpp>

namespace {

duet::KernelParam param(duet::KernelParam::Kind kind, std::size_t size, const char* type,
                        const char* name) {
    duet::KernelParam p;
    p.kind = kind;
    p.size = size;
    p.type = type;
    p.name = name;
    return p;
}

} // namespace

TEST_CASE("launch checks: a left-out argument is named where it was left out") {
    using K = duet::KernelParam::Kind;
    duet::KernelSignature sig;
    sig.known = true;
    sig.params = {param(K::buffer, 8, "global const double*", "a"),
                  param(K::buffer, 8, "global double*", "b"),
                  param(K::local, 0, "local double*", "sums"),
                  param(K::scalar, 8, "long", "array_size")};
    struct Fake : duet::Buffer {
        std::size_t size() const override { return 64; }
    } buf;
    const long n = 10;
    // duet::local left out: argument 2, not 3, is the one missing.
    const duet::KernelArg three[] = {duet::KernelArg::from(buf), duet::KernelArg::from(buf),
                                     duet::KernelArg::from(n)};
    const std::string p = duet::kernel_args_problem(sig, three);
    INFO(p);
    CHECK(p.find("argument 2 (local double* sums) is not set") != std::string::npos);
    // Arguments that all fit but stop early: the first one not given.
    const duet::KernelArg two[] = {duet::KernelArg::from(buf), duet::KernelArg::from(buf)};
    CHECK(duet::kernel_args_problem(sig, two).find("argument 2 (local double* sums) is not set") !=
          std::string::npos);
    const duet::KernelArg three_ok[] = {duet::KernelArg::from(buf), duet::KernelArg::from(buf),
                                        duet::KernelArg::from(duet::local(64))};
    CHECK(
        duet::kernel_args_problem(sig, three_ok).find("argument 3 (long array_size) is not set") !=
        std::string::npos);
}

TEST_CASE("launch checks: values past 16 bytes are held by address and checked by size") {
    using K = duet::KernelParam::Kind;
    struct Weights {
        float w[25];
        int n;
    } big{};
    big.w[3] = 1.5f;
    const double small = 2.5;
    const auto a = duet::KernelArg::from(big);
    const auto b = duet::KernelArg::from(small);
    CHECK(a.size == sizeof(Weights));
    CHECK(a.bytes() == static_cast<const void*>(&big)); // the caller's value, not a copy
    CHECK(b.size == sizeof(double));
    CHECK(b.bytes() == static_cast<const void*>(b.value.data())); // copied in
    CHECK(*static_cast<const double*>(b.bytes()) == 2.5);
    // The kernel's own parameter size (CUDA's kind is unknown, only the size is known).
    duet::KernelSignature sig;
    sig.known = true;
    sig.params = {param(K::unknown, sizeof(Weights), "", "")};
    const duet::KernelArg good[] = {a};
    CHECK(duet::kernel_args_problem(sig, good).empty());
    struct Short {
        float w[24];
    } s{};
    const duet::KernelArg bad[] = {duet::KernelArg::from(s)};
    CHECK(duet::kernel_args_problem(sig, bad).find("is 104 bytes, but a scalar of 96 bytes") !=
          std::string::npos);
    // The device's limit on all of a launch's arguments together.
    CHECK(duet::parameter_bytes_problem(good, 104).empty());
    CHECK(duet::parameter_bytes_problem(good, 0).empty()); // unknown: not checked
    const std::string p = duet::parameter_bytes_problem(good, 100);
    CHECK(p.find("104 bytes in all, over the device's limit of 100") != std::string::npos);
    CHECK(p.find("max_parameter_bytes") != std::string::npos);
}

TEST_CASE("launch checks: a tile map fits a buffer parameter (OpenCL) or its size (CUDA) only") {
    using K = duet::KernelParam::Kind;
    struct Fake : duet::Buffer {
        std::size_t size() const override { return 4096; }
    } buf;
    const duet::TileMap map = duet::tile_map(buf, 32, 32, 32, 32);
    const duet::KernelArg args[] = {duet::KernelArg::from(map)};
    duet::KernelSignature sig;
    sig.known = true;
    // OpenCL: a buffer parameter takes it (the backend then checks the type and the device).
    sig.params = {param(K::buffer, 8, "global DuetTileMap*", "map")};
    CHECK(duet::kernel_args_problem(sig, args).empty());
    // A value or local memory does not; named.
    sig.params = {param(K::scalar, 4, "float", "alpha")};
    std::string p = duet::kernel_args_problem(sig, args);
    INFO(p);
    CHECK(p.find("argument 0 (float alpha)") != std::string::npos);
    CHECK(p.find("scalar parameter, but a duet::tile_map was given") != std::string::npos);
    sig.params = {param(K::local, 0, "local float*", "tile")};
    CHECK(duet::kernel_args_problem(sig, args).find("a duet::tile_map was given") !=
          std::string::npos);
    // CUDA (parameters known by size): 128 bytes, not a pointer's 8.
    sig.params = {param(K::unknown, 128, "", "")};
    CHECK(duet::kernel_args_problem(sig, args).empty());
    sig.params = {param(K::unknown, 8, "", "")};
    p = duet::kernel_args_problem(sig, args);
    CHECK(p.find("is 8 bytes, but a duet::tile_map of 128 bytes") != std::string::npos);
    // The earlier spelling is the same argument.
    const duet::cuda::TileMap old = duet::cuda::tile_map(buf, 32, 32, 32, 32);
    CHECK(std::string(old.name()) == "duet::tile_map");
}

TEST_CASE("build options: compiler options are checked tokens, without outputs or plugins") {
    CHECK_NOTHROW(duet::check_compiler_options(
        "cuda-c++", "cuda_options",
        {"-std=c++20", "-lineinfo", "--use_fast_math", "-I" DUET_SOURCE_DIR "/kernels_cu", "-G"}));
    // The target an app may choose (the CUDA backend checks it against the GPU).
    CHECK_NOTHROW(duet::check_compiler_options(
        "cuda-c++", "cuda_options",
        {"-arch=sm_80", "--gpu-architecture=compute_90a", "-arch=native", "-arch=sm_100f"}));
    CHECK_NOTHROW(duet::check_compiler_options(
        "opencl-c", "opencl_options", {"-cl-std=CL3.0", "-cl-mad-enable", "-Werror", "-DX=1"}));
    for (const char* bad : {"-o",
                            "--output-directory=x",
                            "-save-temps",
                            "-save-temps=obj",
                            "-Xclang",
                            "-load=x.so",
                            "-fplugin=x.so",
                            "-fpass-plugin=x.so",
                            "--fdevice-time-trace=t.json",
                            "--time=t.csv",
                            "-MF",
                            "-ftime-trace",
                            "--pch",
                            "--pch-dir=d",
                            "-arch=sm_9",
                            "-arch=sm_90;x",
                            "--gpu-architecture=compute_",
                            "-arch=sm_90b",
                            "-dlto",
                            "-Xptxas=--output-file,x",
                            "-mllvm=-load=x.so",
                            "",
                            "-",
                            "std=c++20",
                            "-DX=a b",
                            "-DX=\"s\""}) {
        INFO(bad);
        try {
            duet::check_compiler_options("cuda-c++", "cuda_options", {bad});
            FAIL("accepted");
        } catch (const duet::Error& e) {
            CHECK(e.kind() == duet::ErrorKind::usage);
            CHECK(std::string(e.what()).find("BuildOptions::cuda_options") != std::string::npos);
        }
    }
    CHECK_NOTHROW(duet::check_name_expressions({"dot<double>", "ns::scale<float, 256>"}));
    CHECK_THROWS_AS(duet::check_name_expressions({""}), duet::Error);
    CHECK_THROWS_AS(duet::check_name_expressions({"f\"x"}), duet::Error);
}

TEST_CASE("Range: the driver chooses the local size when asked") {
    duet::Range r(1000);
    CHECK_FALSE(r.driver_chooses_local());
    r.driver_local();
    CHECK(r.driver_chooses_local());
    CHECK_FALSE(r.has_local());
    CHECK(r.to_string() == "1000 / driver's choice");
    CHECK_NOTHROW(r.validate()); // 1000 need not be a multiple of anything
    r.local(16);                 // an explicit size replaces the driver's choice
    CHECK_FALSE(r.driver_chooses_local());
    CHECK_THROWS_AS(r.validate(), duet::Error);
}

TEST_CASE("KernelSources::from_files: relative paths beside the executable when asked") {
    namespace fs = std::filesystem;
    const fs::path exe_dir = fs::read_symlink("/proc/self/exe").parent_path();
    const std::string name = "duet_from_files_test_" + std::to_string(::getpid()) + ".cl";
    { std::ofstream(exe_dir / name) << "kernel void k() {}"; }
    const auto s = duet::KernelSources::from_files(name, "", duet::KernelSources::Base::executable);
    CHECK(s.opencl == "kernel void k() {}");
    CHECK(s.origin == (exe_dir / name).string());
    fs::remove(exe_dir / name);
    // The default stays the current directory, where the file is not.
    if (fs::current_path() != exe_dir)
        CHECK_THROWS_AS(duet::KernelSources::from_files(name, ""), duet::Error);
}
