// One kernel text: a kernel written only in OpenCL C (tests/data/one_text/group_sums.cl), compiled
// through the CUDA plugin's own translation (cuda_translate.hpp: NVRTC with
// kernels_cu/duet_opencl_c.cuh) where there is no GPU: every kernel is in the machine code under
// its plain name, as a load looks it up. Skipped (with the reason) where NVRTC cannot be opened.
// bench/gpu_one_text.sh runs the same text on the GPU.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_args.hpp"
#include "cuda_translate.hpp"

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

} // namespace

TEST_CASE("one kernel text: OpenCL C compiles for CUDA through NVRTC and duet_opencl_c.cuh") {
    const duet::cuda::Nvrtc* nv = nullptr;
    try {
        nv = &duet::cuda::Nvrtc::instance();
    } catch (const duet::Error& e) {
        MESSAGE("NVRTC not found, checks skipped: " << e.what());
        return;
    }
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
    // What the header does not translate (here a swizzle) fails in NVRTC with its message,
    // never silently.
    const std::string bad = duet::cuda::translated_source(
        route, "__kernel void f(__global float* x) { x[0] = (float4)(1.0f).s3; }", "bad.cl");
    CHECK_THROWS_AS(nv->compile(bad, "bad.cl", duet::cuda::nvrtc_headers(),
                                duet::cuda::nvrtc_build_flags("sm_90", o), true, "building bad.cl",
                                {}),
                    duet::Error);
}
