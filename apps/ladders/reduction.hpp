#pragma once
// What reduction's host code (reduction.cpp) and its step records (reduction_steps.cpp) share.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "app.hpp"

namespace duet::apps {

// How a step splits the input among work-groups.
enum class Split {
    one,         // one element per work-item (steps 1-3)
    two,         // two per work-item, added during the load (steps 4-6)
    grid,        // a capped number of groups walks the whole input (steps 7-8)
    grid_atomic, // as grid, one pass, group sums added atomically (step 9)
    chunk        // a few groups per compute unit, each work-item a contiguous chunk (cpu)
};

// One step of Harris's ladder; each becomes two records (step.hpp), STEP_i32 and STEP_f32.
struct ReductionStep {
    const char* name;
    const char* description;
    Split split;
    bool wg_define; // the OpenCL kernel is compiled for the work-group size (-DWG=...)
    bool tunable;   // its work-group size is swept by runapp tune
    SubGroups sub_groups = SubGroups::none;
};

// Values a work-item loads per grid-stride step (RED_PER): the user's, else 4 (faster than 2 on
// the H100, docs/design/ladders.md).
std::size_t red_per(const RunConfig& cfg);
// The cpu steps' accumulators per work-item (CPU_ACC): the user's, else 4.
std::size_t cpu_accumulators(const RunConfig& cfg);

// reduction's hooks on a step record (step.hpp): the ladder step it runs and in which type, or a
// run of its own, outside Harris's ladder (det_f32, reduction_det.cpp), which Reduction::run
// hands the whole run.
struct ReductionHooks : StepHooks {
    const ReductionStep* step = nullptr; // Harris's step (nullptr: `run` is the step's)
    bool ints = false;                   // int32 values (else float32)
    std::function<Result(Device&, const App&, const Step&, const RunConfig&)> run{};
};

// The eighteen records: the int32 ladder, then the float32 ladder.
const std::vector<Step>& reduction_steps();
// The ladder step of a record ("shuffle" for shuffle_f32, from its hooks); a record of none is an
// Error.
const ReductionStep& reduction_step_of(const Step& record);

// The exact sums of an input: int64 for ints, double and the sum of magnitudes for both.
struct ReductionSums {
    std::int64_t exact = 0;
    double ref = 0, abs_sum = 0;
};
// A reduction problem: its shared input (problem.hpp) and sums, made once per (type, n, seed).
template <class T> struct ReductionProblem {
    std::shared_ptr<const HostVector<T>> input;
    ReductionSums sums;
    double slack = 0; // what a float sum may be off by: 0, exact in any order (see the .cpp)
};
template <class T> ReductionProblem<T> reduction_problem(std::size_t n, std::uint64_t seed);
template <> ReductionProblem<int> reduction_problem<int>(std::size_t n, std::uint64_t seed);
template <> ReductionProblem<float> reduction_problem<float>(std::size_t n, std::uint64_t seed);
// The ints' range [-hi, hi]: hi * n <= INT32_MAX, so no partial sum of any subset, in any order,
// can overflow int32 and the device's sum must equal the exact int64 one.
int reduction_int_range(std::size_t n);

} // namespace duet::apps
