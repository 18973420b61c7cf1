#pragma once
// Compile-time defines as both backends pass them to their compilers, and the register cap
// that BuildOptions::max_group_items asks for.
#include <cstddef>
#include <string>

namespace duet {

// Throws a usage Error unless `name` is a C identifier and `value` is one compiler token:
// printable ASCII, no whitespace or control characters (which a driver splits into extra
// options, e.g. "-include FILE"), no quotes or backslashes, no leading '-' except a negative
// number. The one rule both backends apply, so a define accepted by one is accepted by both.
void check_define(const std::string& name, const std::string& value);

// The most registers a work-item may use so that groups of `items` fit a register file of
// `registers_per_group` (given out per 32-wide warp, in steps of 8 per work-item, at least 16);
// 0 when no cap is needed (255, a work-item's most, or more) or either number is unknown (0).
std::size_t register_cap(std::size_t registers_per_group, std::size_t items);

} // namespace duet
