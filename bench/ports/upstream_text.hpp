#pragma once
// Reading an upstream project's files as they are (bench/ports): the ports take their kernels
// and constants from the files themselves, never from copies in this repository.
#include <string>

namespace ports {

// The whole file at `path`; exits with a message naming it when it cannot be read (the folder
// comes from the command line: bench/ports/fetch_upstream.sh fills it).
std::string read_text(const std::string& path);

// The first raw string literal of C++ source `text` (`R"DELIM(...)DELIM"`), byte for byte, or
// exits naming `origin` when there is none.
std::string raw_string_literal(const std::string& text, const std::string& origin);

// The replacement of `#define NAME VALUE` in `text`, its outer parentheses removed ("(0.4)"
// gives "0.4"), or exits naming `origin` when no such line exists.
std::string macro_value(const std::string& text, const std::string& name,
                        const std::string& origin);

} // namespace ports
