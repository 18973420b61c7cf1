#pragma once
// Compile-time defines as both backends pass them to their compilers.
#include <string>
#include <vector>

namespace duet {

// Throws a usage Error unless `name` is a C identifier and `value` is one compiler token:
// printable ASCII, no whitespace or control characters (which a driver splits into extra
// options, e.g. "-include FILE"), no quotes or backslashes, no leading '-' except a negative
// number. The one rule both backends apply, so a define accepted by one is accepted by both.
void check_define(const std::string& name, const std::string& value);

// `s` as a message can show it: control and non-ASCII bytes as \xNN.
std::string shown(const std::string& s);

} // namespace duet

namespace duet {

// Throws a usage Error unless every option in `options` (BuildOptions::compiler_options of
// `dialect`, named `field` in messages) is on that dialect's allow-list (-D, -U, -I of a
// directory only the user or root can change, -cl-* / NVRTC's code-generation options, ...),
// its value attached by '=', glued, or the next element; the message lists what is allowed.
void check_compiler_options(const std::string& dialect, const std::string& field,
                            const std::vector<std::string>& options);

// Throws a usage Error unless every name expression is printable ASCII without quotes or
// backslashes (a C++ id-expression such as "dot<double>" or "ns::scale<float, 256>"), at most
// 4096 characters and 64 levels of brackets.
void check_name_expressions(const std::vector<std::string>& names);

} // namespace duet
