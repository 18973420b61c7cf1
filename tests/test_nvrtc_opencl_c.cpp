// One kernel text: a kernel written only in OpenCL C (tests/data/one_text/group_sums.cl), compiled
// through the CUDA plugin's own translation (cuda_translate.hpp: NVRTC with
// kernels_cu/duet_opencl_c.cuh) where there is no GPU: every kernel is in the machine code under
// its plain name, as a load looks it up. Skipped (with the reason) where NVRTC cannot be opened.
// bench/gpu_one_text.sh runs the same text on the GPU.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_args.hpp"
#include "cuda_translate.hpp"
#include "device_profile.hpp"
#include "kernel_text.hpp"
#include "step_builds.hpp"

namespace {

std::string read(const std::string& path) {
    std::ifstream in(path);
    REQUIRE(in);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const duet::DialectRoute& route_to_cuda() {
    for (const auto& r : duet::dialect("opencl-c").routes)
        if (r.backend == "cuda")
            return r;
    FAIL("the dialect table has no route from OpenCL C to the cuda backend");
    throw 0;
}

// NVRTC, or null with a message that the checks are skipped (NVRTC cannot be opened).
const duet::cuda::Nvrtc* nvrtc_or_skip() {
    try {
        return &duet::cuda::Nvrtc::instance();
    } catch (const duet::Error& e) {
        MESSAGE("NVRTC not found, checks skipped: " << e.what());
        return nullptr;
    }
}

} // namespace

TEST_CASE("one kernel text: OpenCL C compiles for CUDA through NVRTC and duet_opencl_c.cuh") {
    const duet::cuda::Nvrtc* nv = nvrtc_or_skip();
    if (!nv)
        return;
    const std::string cl =
        read(std::string(DUET_SOURCE_DIR) + "/tests/data/one_text/group_sums.cl");
    const auto route = route_to_cuda();
    CHECK(route.translation == duet::cuda::opencl_c_on_nvrtc);
    const std::string text = duet::cuda::translated_source(route, cl, "group_sums.cl");
    duet::BuildOptions o;
    o.defines = {{"UNUSED", "1"}};
    for (const std::string arch : {"sm_75", "sm_90"}) {
        INFO(arch);
        const auto out =
            nv->compile(text, "group_sums.cl", duet::cuda::nvrtc_headers(),
                        duet::cuda::nvrtc_build_flags(arch, o), true, "building group_sums.cl", {});
        const std::string image(out.image.begin(), out.image.end());
        for (const auto& k : duet::scan_kernels(cl, duet::dialect("opencl-c")))
            CHECK_MESSAGE(image.find(k.name) != std::string::npos, k.name);
    }
    // Vector literals become the header's calls, on their own lines.
    CHECK(duet::cuda::with_vector_literals("v = (float4)(k);\nw = ( uint2 ) (1, 2); (float4)x;") ==
          "v = duet_ocl_make_float4(k);\nw = duet_ocl_make_uint2(1, 2); (float4)x;");
    // Swizzles read from a name or an indexed name become the header's calls; written ones, and
    // members that are not swizzles, stay.
    CHECK(duet::cuda::with_swizzles("a = pb[l].yxwz; b = v.xy == w.yx; v.xy = b; s.x; p.xyz1;") ==
          "a = duet_ocl_swizzle<1, 0, 3, 2>(pb[l]); b = duet_ocl_swizzle<0, 1>(v) == "
          "duet_ocl_swizzle<1, 0>(w); v.xy = b; s.x; p.xyz1;");
    const std::string swz = duet::cuda::translated_source(
        route,
        "__kernel void f(__global float4* v, __global int2* w) { v[1] = v[0].wzyx; "
        "w[1] = w[0].yx; v[2].x = v[0].zw.y; }",
        "swizzle.cl");
    CHECK_NOTHROW(nv->compile(swz, "swizzle.cl", duet::cuda::nvrtc_headers(),
                              duet::cuda::nvrtc_build_flags("sm_90", o), true,
                              "building swizzle.cl", {}));
    // What the header does not translate (here a swizzle) fails in NVRTC with its message,
    // never silently.
    const std::string bad = duet::cuda::translated_source(
        route, "__kernel void f(__global float* x) { x[0] = (float4)(1.0f).s3; }", "bad.cl");
    CHECK_THROWS_AS(nv->compile(bad, "bad.cl", duet::cuda::nvrtc_headers(),
                                duet::cuda::nvrtc_build_flags("sm_90", o), true, "building bad.cl",
                                {}),
                    duet::Error);
}

// Every step's first build with its OpenCL C file (kernels_cl/, headers inlined) in place of its
// CUDA twin, as `runapp --kernel-text opencl-c` builds it on a CUDA device (with the OpenCL C
// profile rows: plain, and NVIDIA's, whose switches add inline PTX and sub-groups): which
// translate. The steps that use only what the header translates must; the rest (8-wide vectors,
// swizzles) fail in NVRTC with its message, and runapp shows them SKIPPED with it.
static void translate_steps(const duet::cuda::Nvrtc& nv, const duet::DeviceInfo& info,
                            const std::vector<std::string>& must) {
    const duet::apps::KernelTextScope scope("opencl-c"); // the text's profile rows (WG, ...)
    std::vector<std::string> built;
    std::string refused;
    for (const auto& b : duet::apps::step_builds(info)) {
        if (b.extra)
            continue;
        const std::string step = b.app + "/" + b.step;
        const auto file = duet::find_kernel_source(b.kernel, duet::KernelLanguage::opencl_c);
        if (!file) {
            refused += "\n  " + step + ": no OpenCL C kernel " + b.kernel;
            continue;
        }
        duet::BuildOptions o;
        o.defines = b.defines;
        for (auto& d : duet::apps::profile_of(info).defines_for(b.app, b.step))
            if (std::none_of(o.defines.begin(), o.defines.end(),
                             [&](const auto& x) { return x.first == d.first; }))
                o.defines.push_back(d);
        try {
            const auto out = nv.compile(
                duet::cuda::translated_source(route_to_cuda(), file->text, file->name), file->name,
                duet::cuda::nvrtc_headers(), duet::cuda::nvrtc_build_flags("sm_90", o), true,
                "building " + file->name, {});
            const std::string image(out.image.begin(), out.image.end());
            CHECK_MESSAGE(image.find(b.kernel) != std::string::npos, step);
            built.push_back(step);
        } catch (const duet::Error& e) {
            const std::string first = duet::apps::first_error_line(e.build_log());
            refused += "\n  " + step + ": " + (first.empty() ? std::string(e.what()) : first);
        }
    }
    std::string list;
    for (const auto& s : built)
        list += " " + s;
    MESSAGE(info.vendor << " translated:" << list << "\nnot translated:" << refused);
    for (const auto& m : must)
        CHECK_MESSAGE(std::find(built.begin(), built.end(), m) != built.end(), m);
}

TEST_CASE("one kernel text: Duet's own OpenCL C kernels through NVRTC, step by step") {
    const duet::cuda::Nvrtc* nv = nvrtc_or_skip();
    if (!nv)
        return;
    std::vector<std::string> must = {
        "vecadd/naive",  "vecadd/vec4",  "matmul/naive",      "matmul/tiled16", "matmul/reg8x8",
        "conv5x5/naive", "conv5x5/best", "reduction/det_f32", "matmul/tc3",     "matmul/best"};
    for (const char* r :
         {"interleaved", "unroll_last", "unroll_all", "grid_stride", "shuffle", "atomic"})
        for (const char* t : {"_i32", "_f32"})
            must.push_back(std::string("reduction/") + r + t);
    auto info = duet::apps::plain_device(duet::KernelLanguage::cuda);
    translate_steps(*nv, info, must);
    // An NVIDIA GPU: the profile rows of NVIDIA's OpenCL (inline PTX, 32-wide sub-groups).
    info.vendor = "NVIDIA Corporation";
    info.caps.inline_asm = true;
    info.subgroup_width = 32;
    must.push_back("conv5x5/rows");
    translate_steps(*nv, info, must);
}
