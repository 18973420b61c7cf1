#pragma once
// Compile-time defines as both backends pass them to their compilers.
#include <string>

namespace duet {

// Throws a usage Error unless `name` is a C identifier and `value` is one compiler token:
// printable ASCII, no whitespace or control characters (which a driver splits into extra
// options, e.g. "-include FILE"), no quotes or backslashes, no leading '-' except a negative
// number. The one rule both backends apply, so a define accepted by one is accepted by both.
void check_define(const std::string& name, const std::string& value);

} // namespace duet
