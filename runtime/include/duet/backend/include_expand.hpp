#pragma once
// Include lines of kernel text as the preprocessor will see them (line continuations spliced,
// comments as one space, `%:` as `#`), so that what reaches a compiler holds no include Duet
// did not resolve itself, whatever its spelling (docs/design/security.md).
#include <functional>
#include <string>
#include <vector>

#include <duet/device_info.hpp>

namespace duet {

// One directive that reads a file (#include, #include_next, #import, #embed).
struct IncludeDirective {
    int line = 0;          // its first physical line, from 1
    int next_line = 0;     // the physical line after its last
    std::size_t begin = 0; // the text's bytes it spans: whole physical lines
    std::size_t end = 0;   // (the last one's newline included)
    std::string operand;   // what follows the directive's name, as the preprocessor sees it
    std::string quoted;    // NAME of `#include "NAME"`, else empty
    bool angled = false;   // `#include <NAME>`: `quoted` holds NAME
};

// Every such directive of `text`, read by C's rules, or C++'s (`cxx`: raw strings, digit
// separators). Throws a usage Error naming `origin` and the line for text
// whose directives cannot be told for sure: a trigraph (??= or ??/), a comment or raw string
// left open at the end, a last line ending in `\`, or a directive that probes files
// (__has_include, __has_embed).
std::vector<IncludeDirective> include_directives(const std::string& text, const std::string& origin,
                                                 bool cxx);

// A usage Error naming `origin` and the directive's line for an include Duet does not resolve.
[[noreturn]] void refuse_include(const std::string& origin, const IncludeDirective& d,
                                 const std::string& why);

// Throws (refuse_include) unless every directive of `text` (OpenCL C: read as C and as C++)
// is `#include "NAME"` with
// known(NAME), or in CUDA C++ `#include <NAME>` of a relative path without `..` (a toolkit
// header). The headers themselves are the caller's to check.
void check_includes(const std::string& text, KernelLanguage lang, const std::string& origin,
                    const std::function<bool(const std::string&)>& known);

// OpenCL C, built from one string: `text` (the file `name`) with each `#include "NAME"`
// replaced by the header's own expansion (header(NAME) gives its text, or nullptr when it is
// not one of the kernel files), framed by #line so that build logs name the right file and
// line. Any other include is refused; bounded at 8 levels and 64 MiB of text.
std::string expand_includes(const std::string& name, const std::string& text,
                            const std::function<const std::string*(const std::string&)>& header);

} // namespace duet
