#pragma once
// What matmul's host code (matmul.cpp) and its step records (matmul_steps.cpp) share.
#include <vector>

#include "app.hpp"

namespace duet::apps {

// matmul's ladder, in order: one record per step (step.hpp).
const std::vector<Step>& matmul_steps();
// "" when the device runs the tf32 step (NVIDIA tensor cores with TF32, compute capability 8.0+,
// in a language that reaches them), else why it is skipped ("is skipped on X: ...").
std::string tf32_unsupported(const DeviceInfo& info);
// best's defines beyond its kernel's defaults for this device and an N x K B, those the user has
// not set: BEST_UNALIGNED where rows are not 16-byte aligned (N or K not a multiple of 4); on
// NVIDIA's OpenCL, warp tiles and 16-deep tiles (the CUDA kernel's own defaults).
Defines best_defines(const RunConfig& cfg, const DeviceInfo& info, std::size_t N, std::size_t K);

// How best covers C (matmul_best_plan.cpp): its bm x bn blocks over all of C in `splits` slices
// of K, or, with edge_rows or edge_cols, over C's whole blocks in M or N only, matmul_best_edge
// taking the last M % bm rows or N % bn columns. --define BEST_SPLITK=S and BEST_EDGES=0|1 choose
// (host macros, not the kernel's); a usage Error for a bad value or the two combined.
struct BestPlan {
    std::size_t splits = 1;
    bool edge_rows = false, edge_cols = false;
};
BestPlan best_plan(const RunConfig& cfg, const DeviceInfo& info, std::size_t M, std::size_t N,
                   std::size_t K, std::size_t bm, std::size_t bn);
// matmul_best_edge's work-groups for C's rows [Mi, M) and columns [Ni, N) (its 32x32 tiles).
std::size_t best_edge_tiles(std::size_t M, std::size_t N, std::size_t Mi, std::size_t Ni);

} // namespace duet::apps
