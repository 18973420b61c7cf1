#pragma once
// The launch shapes each ladder step can run in, its textbook shape first (shape.hpp). Pure
// functions of the variant and the user's defines, so tests can check them without a device.
#include <string>
#include <vector>

#include "app.hpp"
#include "shape.hpp"

namespace duet::apps {

// matmul: Shape::rows x Shape::cols is the block of C one work-group computes. A user's --define
// of a tile macro pins the shape (one candidate, built from the defines).
std::vector<Shape> matmul_shapes(const std::string& variant, const RunConfig& cfg);
// conv5x5: Shape::cols x Shape::rows are the outputs of one work-item (x, y). Only for a run
// whose shape the user left to the app (no --local, no tile --define).
std::vector<Shape> conv_shapes(const std::string& variant, const RunConfig& cfg);
// reduction: one-dimensional groups, powers of two from `ls` down to 2, each with `elem` bytes of
// local memory per work-item; `wg_define` adds -DWG=<size> (the unrolled OpenCL trees).
std::vector<Shape> reduction_shapes(std::size_t ls, std::size_t elem, bool wg_define);

} // namespace duet::apps
