#pragma once
// The native CPU reference rows of a run (`runapp compare`, `runapp run --reference`): one per
// app, size and native variant among the device rows, from App::run_native, and each device
// row's speed-up over its reference (Result::x_cpu), with the native copy bandwidth of the
// memory-bound rows (Result::native_copy_gbs).
#include <string>
#include <vector>

#include "app.hpp"

namespace duet::apps {

// A native row's fixed fields: app, variant, backend and device_id "native", the host CPU's name
// (with `library` where one did the work), size, seed, the host clock.
Result native_result(const std::string& app, const std::string& variant,
                     const std::vector<std::size_t>& dims, const RunConfig& cfg,
                     const std::string& library = "");

// Runs the native references of `rows` (with base's reps, warm-up, verification and seed) and
// returns them; sets x_cpu on every device row that has a passing reference and a time, and
// native_copy_gbs on the memory-bound rows (and their references). An app without a native
// reference, or a size it refuses, gets none: the reason goes into `notes`.
std::vector<Result> run_native_references(std::vector<Result>& rows, const RunConfig& base,
                                          std::vector<std::string>& notes);

} // namespace duet::apps
