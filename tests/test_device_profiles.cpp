// Device profiles (apps/framework/device_profile.hpp): which shipped rows a device matches, what
// they merge to, and a profile file's errors.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <duet/error.hpp>

#include "device_profile.hpp"

namespace {

duet::DeviceInfo nvidia(duet::KernelLanguage lang, const std::string& arch) {
    duet::DeviceInfo i;
    i.vendor = "NVIDIA Corporation";
    i.kernel_language = lang;
    i.device_type = duet::DeviceType::gpu;
    i.architecture = arch;
    i.caps.inline_asm = true;
    i.subgroup_width = 32;
    i.local_mem_bytes = 49152;
    return i;
}

using Rows = std::vector<std::string>;
using D = duet::apps::Defines;

} // namespace

TEST_CASE("profiles: the H100 through CUDA and through NVIDIA's OpenCL get their measured rows") {
    const auto cuda = duet::apps::profile_of(nvidia(duet::KernelLanguage::cuda, "sm_90"));
    CHECK(cuda.rows == Rows{"default", "CUDA kernels", "NVIDIA Hopper (sm_90), CUDA"});
    CHECK(cuda.best.tile_depth == 16);
    CHECK(cuda.best.clamp_cost == doctest::Approx(0.013));
    CHECK(cuda.best.stream_outside.whole == doctest::Approx(0.99));
    CHECK(cuda.best.stream_clamped_defines == D{{"BEST_WTX", "8"}});
    CHECK(cuda.defines_for("matmul", "best").empty());
    CHECK_FALSE(cuda.takes_define("WG")); // CUDA takes the group from blockDim
    const auto cl = duet::apps::profile_of(nvidia(duet::KernelLanguage::opencl_c, "sm_90"));
    CHECK(cl.rows == Rows{"default", "OpenCL C kernels", "NVIDIA OpenCL with inline PTX",
                          "NVIDIA OpenCL with inline PTX, 32-wide warps",
                          "NVIDIA Hopper (sm_90), OpenCL"});
    CHECK(cl.defines_for("reduction", "atomic_f32") == D{{"DUET_RED_PTX_ATOMIC", "1"}});
    CHECK(cl.defines_for("reduction", "unroll_last_f32") == D{{"DUET_RED_PTX_WARP", "1"}});
    CHECK(cl.defines_for("reduction", "shuffle_f32").empty());
    // NVIDIA's compiler: every matmul step's unroll hints and asm statements ("matmul/*", in
    // place of the kernels' old cl_nv_pragma_unroll tests), then the step's own.
    const D nv{{"DUET_UNROLL_HINTS", "1"}, {"DUET_PTX_ASM", "1"}};
    const auto with_nv = [&](const D& own) {
        D out = nv;
        out.insert(out.end(), own.begin(), own.end());
        return out;
    };
    CHECK(cl.defines_for("matmul", "tiled16") == nv);
    CHECK(cl.defines_for("matmul", "best") == with_nv({{"BEST_WAVES_ORDER", "3"},
                                                       {"BEST_STREAM_ORDER", "4"},
                                                       {"BEST_WTX", "4"},
                                                       {"BEST_BK", "16"}}));
    CHECK(cl.defines_for("conv5x5", "rows") == D{{"DUET_NV_LDG", "1"}});
    CHECK(cl.defines_for("matmul", "tf32") == with_nv({{"DUET_TF32_PTX", "1"}}));
    CHECK(cl.defines_for("matmul", "tc3") == with_nv({{"DUET_TF32_PTX", "1"}})); // mma PTX
    CHECK(cl.best.tile_depth == 16);
    CHECK(cl.best.waves_clamp_cost == doctest::Approx(0.035));
    CHECK(cl.best.clamp_cost == 0);
    CHECK(cl.takes_define("WG"));
    CHECK(cl.takes_define("BEST_ALL_INSIDE"));
    // Where the backend builds sm_90a PTX from OpenCL C: the tensor-core steps on wgmma.
    auto hopper = nvidia(duet::KernelLanguage::opencl_c, "sm_90");
    hopper.extensions = {"nv.mma_sync", "nv.sm90a_ptx"};
    const auto wg = duet::apps::profile_of(hopper);
    CHECK(wg.rows.back() == "NVIDIA Hopper (sm_90), OpenCL through sm_90a PTX");
    CHECK(wg.defines_for("matmul", "tf32") ==
          with_nv({{"DUET_TF32_PTX", "1"}, {"DUET_TF32_WGMMA", "1"}}));
    CHECK(wg.defines_for("matmul", "tc3") ==
          with_nv({{"DUET_TF32_PTX", "1"}, {"DUET_TF32_WGMMA", "1"}}));
    // ... and the launch of the kernel those defines build, as data (matmul_tf32.cpp reads it).
    CHECK(wg.launch_for("matmul", "tf32") == "wgmma_from_source");
    CHECK(wg.launch_for("matmul", "tc3") == "wgmma_from_source");
    CHECK(cl.launch_for("matmul", "tf32").empty()); // no sm_90a PTX: the plain launch
    CHECK(cuda.launch_for("matmul", "tf32").empty());
}

TEST_CASE("profiles: rows match a vendor's architecture and extensions, not a version number") {
    // Another vendor's GPU that reports the same architecture string and extension names as no
    // NVIDIA device does matches no NVIDIA row (the vendor key), and a row asks extensions by
    // name: without nv.sm90a_ptx the wgmma row stays out.
    auto other = nvidia(duet::KernelLanguage::opencl_c, "gfx90a");
    other.vendor = "Advanced Micro Devices, Inc.";
    other.extensions = {"nv.sm90a_ptx"};
    CHECK(duet::apps::profile_of(other).rows == Rows{"default", "OpenCL C kernels"});
    auto no_ext = nvidia(duet::KernelLanguage::opencl_c, "sm_90");
    CHECK(duet::apps::profile_of(no_ext).rows.back() == "NVIDIA Hopper (sm_90), OpenCL");
    const std::string text = R"({"format": 1, "rows": [
        {"name": "base", "match": {}},
        {"name": "ext", "match": {"extensions": ["x.one"]}, "step_launch": {"app/*": "wide"}},
        {"name": "arch", "match": {"architecture": "a_1"}, "step_launch": {"app/s": "narrow"}}]})";
    duet::DeviceInfo dev;
    CHECK(duet::apps::profile_from(text, dev).rows == Rows{"base"});
    dev.extensions = {"x.one", "x.two"};
    dev.architecture = "a_1";
    const auto p = duet::apps::profile_from(text, dev);
    CHECK(p.rows == Rows{"base", "ext", "arch"});
    CHECK(p.launch_for("app", "s") == "narrow"); // the step's own over app/*'s
    CHECK(p.launch_for("app", "t") == "wide");
    CHECK(p.launch_for("other", "s").empty());
    // The old key "compute" (a compute capability) is no match key: an error, not a row that
    // matches every device.
    CHECK_THROWS_AS(
        duet::apps::profile_from(R"({"format": 1, "rows": [{"match": {"compute": "9.0"}}]})", dev),
        duet::Error);
}

TEST_CASE("profiles: a device without a measured row gets the plain default") {
    // Another NVIDIA architecture: the kernel's own defaults, no H100 costs.
    const auto a100 = duet::apps::profile_of(nvidia(duet::KernelLanguage::cuda, "sm_80"));
    CHECK(a100.rows == Rows{"default", "CUDA kernels"});
    CHECK(a100.best.tile_depth == 16);
    CHECK(a100.best.clamp_cost == 0);
    CHECK(a100.best.stream_clamped_defines.empty());
    auto wide = nvidia(duet::KernelLanguage::opencl_c, "sm_90"); // the H100 row assumes warps of 32
    wide.subgroup_width = 64;
    // (only the compiler's hints, which every NVIDIA OpenCL takes)
    CHECK(duet::apps::profile_of(wide).defines_for("matmul", "best") ==
          D{{"DUET_UNROLL_HINTS", "1"},
            {"DUET_PTX_ASM", "1"},
            {"BEST_WAVES_ORDER", "3"},
            {"BEST_STREAM_ORDER", "4"}});
    CHECK(duet::apps::profile_of(wide).defines_for("reduction", "unroll_last_f32").empty());
    CHECK(duet::apps::profile_of(wide).defines_for("reduction", "atomic_f32").size() == 1);
    duet::DeviceInfo pocl; // a CPU through PoCL
    pocl.vendor = "GenuineIntel";
    pocl.device_type = duet::DeviceType::cpu;
    const auto cpu = duet::apps::profile_of(pocl);
    CHECK(cpu.rows == Rows{"default", "OpenCL C kernels"});
    CHECK(cpu.best.tile_depth == 8);
    CHECK(cpu.defines_for("conv5x5", "rows").empty());
    CHECK(cpu.takes_define("CPU_VW"));
    CHECK_FALSE(cpu.takes_define("NO_SUCH_SWITCH"));
}

TEST_CASE("profiles: rows apply in order over the ones before; a bad file is an error") {
    const std::string text = R"({"format": 1, "rows": [
        {"name": "base", "match": {}, "takes": ["A"], "step_defines": {"app/s": {"X": "1"}},
         "best": {"tile_depth": 8, "edge_speed": 0.5}},
        {"name": "gpu", "match": {"type": "GPU"}, "step_defines": {"app/s": {"X": "2", "Y": "3"}},
         "best": {"edge_speed": 0.25, "stream_inside": [1.0, 0.5]}},
        {"name": "other", "match": {"vendor": "AMD"}, "best": {"tile_depth": 32}}]})";
    duet::DeviceInfo gpu;
    gpu.device_type = duet::DeviceType::gpu;
    const auto p = duet::apps::profile_from(text, gpu);
    CHECK(p.rows == Rows{"base", "gpu"});
    CHECK(p.defines_for("app", "s") == D{{"X", "2"}, {"Y", "3"}});
    CHECK(p.best.tile_depth == 8);
    CHECK(p.best.edge_speed == doctest::Approx(0.25));
    CHECK(p.best.stream_inside.shared == doctest::Approx(0.5));
    CHECK(p.takes_define("A"));
    CHECK_THROWS_AS(duet::apps::profile_from("{", gpu), duet::Error);
    CHECK_THROWS_AS(duet::apps::profile_from(R"({"format": 2, "rows": [{}]})", gpu), duet::Error);
    CHECK_THROWS_AS(duet::apps::profile_from(
                        R"({"format": 1, "rows": [{"match": {"caps": ["warp_magic"]}}]})", gpu),
                    duet::Error);
    CHECK_THROWS_AS(duet::apps::profile_from(
                        R"({"format": 1, "rows": [{"best": {"stream_inside": [1]}}]})", gpu),
                    duet::Error);
    CHECK_THROWS_AS(duet::apps::profile_from(
                        R"({"format": 1, "rows": [{"best": {"tile_depth": "deep"}}]})", gpu),
                    duet::Error);
}
