#pragma once
// matmul's tc3 step ("3xTF32", matmul_tc3.cpp): float32 accuracy from TF32 tensor cores.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "app.hpp"
#include "matmul_reference.hpp"

namespace duet::apps {

// The step's record (matmul_steps.cpp lists it after tf32).
Step tc3_step();
// "" when the device runs tc3 (as tf32: NVIDIA tensor cores with TF32, in a language that
// reaches them), else why it is skipped.
std::string tc3_unsupported(const DeviceInfo& info);
// tc3's bound for one entry of C: float32's for a dot product of the 3K products it sums
// (entry_bound), plus what splitting each input into two TF32 parts leaves out: each part within
// 2^-23 of its input and the dropped lo*lo product below 2^-22, 4 * 2^-23 sum|a b| in all.
double tc3_entry_bound(double abs_sum, std::size_t K);
// Checks c against the reference with tc3's bound and says in r's note how far c is from the
// FP64 reference (max and mean of |error| / sum|a b|), beside float32 dot products of the same
// entries on the CPU.
void tc3_check(Result& r, std::span<const float> c, const matmul_ref::Reference& ref,
               std::span<const float> a, std::span<const float> b, std::size_t N, std::size_t K);

} // namespace duet::apps
