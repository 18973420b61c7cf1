// matmul's tc3 step ("3xTF32"): float32 accuracy from the TF32 tensor cores. The kernels
// (kernels_cl/matmul_tc3.cl, kernels_cu/matmul_tc3.cu, kernels_cu/matmul_tc3_wgmma.cu) split each
// input into a TF32 high part and a TF32 remainder as they read it and add three tensor-core
// products; this file holds the step's record, where it runs and its check, which is float32's
// bound (not tf32's), with the measured error against the FP64 reference in the note.
#include "matmul_tc3.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>

#include "matmul.hpp"

namespace duet::apps {

namespace {

// tf32's shapes with Hopper's kernel swapped for tc3's: a 256x128 block (two consumer
// warpgroups of 128 rows, m64n128k8, so that a stage's A, B and B's remainder are 64 KiB: 3
// stages plus 1 KiB to align them; kernels_cu/matmul_tc3_wgmma.cu).
std::vector<Shape> tc3_shapes(const RunConfig& cfg, const DeviceInfo& info) {
    auto shapes = tf32_shapes(cfg, info);
    for (Shape& s : shapes)
        if (s.own_launch) { // tf32's wgmma kernel
            s.kernel = "matmul_tc3_wgmma";
            s.rows = 256;
            s.cols = 128;
            s.local_bytes = 3 * 64 * 1024 + 1024;
            s.label = "256x128 block, 2 warpgroups of 128 rows + a copy warpgroup; B split into "
                      "TF32 hi and lo as it is transposed (wgmma, TMA, sm_90a)";
        }
    return shapes;
}

constexpr const char* tc3_note =
    "NVIDIA tensor cores with TF32 (nv.mma_sync: compute capability 8.0+, CUDA or NVIDIA's OpenCL)";

} // namespace

std::string tc3_unsupported(const DeviceInfo& info) {
    if (tf32_unsupported(info).empty())
        return "";
    return "is skipped on " + info.name + " (" + info.id() +
           "): tc3 splits float32 over NVIDIA tensor cores with TF32 through mma.sync PTX (the "
           "extension nv.mma_sync: compute capability 8.0 or newer, through CUDA or NVIDIA's "
           "OpenCL)";
}

Step tc3_step() {
    return {.name = "tc3",
            .kernel = "matmul_tc3",
            .description = "float32 accuracy on tensor cores (3xTF32): each input split into "
                           "TF32 hi + lo as it is read, hi*hi + hi*lo + lo*hi in float sums",
            .needs = {.refuses = tc3_unsupported, .refuses_note = tc3_note},
            .shapes = tc3_shapes,
            .hooks = tc3_hooks()}; // matmul_tf32.cpp: tf32's launches, tc3_check
}

double tc3_entry_bound(double abs_sum, std::size_t K) {
    return 4.0 * std::ldexp(1.0, -23) * abs_sum + matmul_ref::entry_bound(abs_sum, 3 * K);
}

void tc3_check(Result& r, std::span<const float> c, const matmul_ref::Reference& ref,
               std::span<const float> a, std::span<const float> b, std::size_t N, std::size_t K) {
    std::vector<double> bound(ref.indices.size());
    double worst = 0, mean = 0;
    for (std::size_t t = 0; t < bound.size(); ++t) {
        bound[t] = tc3_entry_bound(ref.abs_sum[t], K);
        const double e = ref.abs_sum[t] > 0
                             ? std::fabs(double(c[ref.indices[t]]) - ref.value[t]) / ref.abs_sum[t]
                             : 0.0;
        worst = std::max(worst, e);
        mean += e;
    }
    mean /= double(std::max<std::size_t>(1, bound.size()));
    compare_outputs(r, c, ref.indices, ref.value, &bound);
    if (r.sampled) // every row and column sum as well, within tc3's bound
        check_sums(r, c, matmul_ref::sums_within(*ref.sums, [&](double abs_sum) {
                       return tc3_entry_bound(abs_sum, K);
                   }));
    char buf[320];
    std::snprintf(buf, sizeof buf,
                  "float32-accurate from TF32 tensor cores (3xTF32): |error| of sum|a*b| against "
                  "the FP64 reference max %.2e, mean %.2e (bound %.2e); float32 dot products of "
                  "the same entries (CPU): max %.2e",
                  worst, mean, tc3_entry_bound(1.0, K) - 3.0 * double(K) * FLT_MIN,
                  matmul_ref::float32_error(ref, a, b, N, K));
    r.note += std::string(r.note.empty() ? "" : "; ") + buf;
}

} // namespace duet::apps
