// See include_expand.hpp. A compiler given `#include </path>`, `#/**/include "/path"` or an
// include split by `\` reads that file and quotes its tokens in its errors; so the directives
// are found as the preprocessor finds them (translation phases 1 to 3), not by matching lines.
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include <duet/backend/build_options.hpp>
#include <duet/backend/include_expand.hpp>
#include <duet/error.hpp>
#include <duet/kernel_library.hpp>

namespace duet {

namespace {

constexpr std::size_t max_expanded_bytes = std::size_t(64) << 20;
constexpr int max_include_depth = 8;

bool is_ident(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

// At most `n` characters of `s` as a message can show them (build_options.hpp): an operand.
std::string shown(const std::string& s, std::size_t n) {
    return duet::shown(s.substr(0, n)) + (s.size() > n ? "..." : "");
}

Error text_error(const std::string& origin, int line, const std::string& what) {
    return Error(ErrorKind::usage, "", "", 0, "",
                 "kernel file " + origin + " line " + std::to_string(line) + ": " + what);
}

// Phases 1 and 2: the text with every backslash-newline removed (clang also splices a
// backslash followed by blanks), and for each character kept its offset in the text.
struct Spliced {
    std::string s;
    std::vector<std::uint32_t> at;
};

Spliced splice(const std::string& t, const std::string& origin, int& line) {
    Spliced out;
    out.s.reserve(t.size());
    out.at.reserve(t.size());
    line = 1;
    for (std::size_t i = 0; i < t.size(); ++i) {
        if (t[i] == '?' && t.compare(i, 2, "??") == 0 && i + 2 < t.size() &&
            (t[i + 2] == '=' || t[i + 2] == '/'))
            throw text_error(origin, line,
                             "a trigraph (?\?= or ?\?/) may make a line a directive that Duet "
                             "cannot see; write # or \\ instead");
        // A lone \r ends a line for clang, a NUL byte is skipped as blank: neither would be
        // what this scanner sees.
        if (t[i] == '\0' || (t[i] == '\r' && (i + 1 == t.size() || t[i + 1] != '\n')))
            throw text_error(origin, line,
                             t[i] ? "a carriage return without a line feed (write \\n or \\r\\n)"
                                  : "a NUL byte in kernel text");
        if (t[i] == '\\') {
            std::size_t j = i + 1;
            while (j < t.size() && is_blank(t[j]) && t[j] != '\r')
                ++j;
            if (j < t.size() && t[j] == '\r' && j + 1 < t.size() && t[j + 1] == '\n')
                ++j;
            if (j < t.size() && t[j] == '\n') {
                if (j + 1 == t.size())
                    throw text_error(origin, line,
                                     "the file's last line ends in a `\\` continuation");
                ++line;
                i = j;
                continue;
            }
        }
        if (t[i] == '\n')
            ++line;
        out.s += t[i];
        out.at.push_back(static_cast<std::uint32_t>(i));
    }
    return out;
}

// Phase 3 over the spliced text: logical lines (a comment's newlines do not end one), each as
// the preprocessor sees it, handed to `line_done` with the spliced range it spans.
// `cxx`: C++ rules (NVRTC; C++ for OpenCL): raw strings, and ' as a digit separator.
class Lines {
  public:
    Lines(const Spliced& sp, const std::string& origin, bool cxx,
          const std::function<int(std::size_t)>& line_at)
        : sp_(sp), s_(sp.s), origin_(origin), cxx_(cxx), line_at_(line_at) {}
    template <class F> void each(F line_done);

  private:
    void comment(std::string& seen);
    void literal(std::string& seen);
    bool raw_string(std::string& seen);
    bool digit_separator() const;
    Error error(std::size_t i, const std::string& what) const {
        return text_error(origin_, line_at_(i < sp_.at.size() ? sp_.at[i] : sp_.at.back()), what);
    }
    const Spliced& sp_;
    const std::string& s_;
    const std::string& origin_;
    const bool cxx_;
    const std::function<int(std::size_t)>& line_at_;
    std::size_t i_ = 0;
};

void Lines::comment(std::string& seen) {
    if (s_[i_ + 1] == '/') {
        i_ = std::min(s_.find('\n', i_), s_.size());
    } else {
        const std::size_t close = s_.find("*/", i_ + 2);
        if (close == std::string::npos)
            throw error(i_, "a /* comment is not closed before the file ends");
        i_ = close + 2;
    }
    seen += ' ';
}

// A "string" or 'c' literal: to its closing quote, or to the end of the line.
void Lines::literal(std::string& seen) {
    const char quote = s_[i_];
    seen += s_[i_++];
    while (i_ < s_.size() && s_[i_] != '\n') {
        const char c = s_[i_++];
        seen += c;
        if (c == '\\' && i_ < s_.size() && s_[i_] != '\n')
            seen += s_[i_++];
        else if (c == quote)
            return;
    }
}

// A C++ raw string R"d(...)d", which may hold newlines and comment marks; false if none here.
bool Lines::raw_string(std::string& seen) {
    if (!cxx_ || i_ == 0 || s_[i_ - 1] != 'R')
        return false;
    const std::size_t r = i_ - 1;
    const bool prefix_ok =
        r == 0 || !is_ident(s_[r - 1]) ||
        (r >= 1 && (s_[r - 1] == 'u' || s_[r - 1] == 'U' || s_[r - 1] == 'L') &&
         (r == 1 || !is_ident(s_[r - 2]))) ||
        (r >= 2 && s_.compare(r - 2, 2, "u8") == 0 && (r == 2 || !is_ident(s_[r - 3])));
    const std::size_t open = s_.find('(', i_);
    if (!prefix_ok)
        return false;
    if (open == std::string::npos || open - i_ > 17 ||
        s_.find_first_of(" \t\v\f\r\n)\\\"", i_ + 1) < open)
        throw error(i_, "a raw string's delimiter is not one the scanner can read");
    const std::string close = ")" + s_.substr(i_ + 1, open - i_ - 1) + "\"";
    const std::size_t end = s_.find(close, open);
    if (end == std::string::npos)
        throw error(i_, "a raw string is not closed before the file ends");
    // Inside a raw string C++ undoes line splicing: its end is then not where it looks.
    if (sp_.at[end] - sp_.at[i_] != end - i_)
        throw error(i_, "a raw string holds a `\\` line continuation");
    seen += s_.substr(i_, end + close.size() - i_);
    i_ = end + close.size();
    return true;
}

// C++14's 1'000: a ' inside a pp-number (a token starting with a digit) between two of its
// characters.
bool Lines::digit_separator() const {
    if (!cxx_ || i_ == 0 || i_ + 1 >= s_.size() || !is_ident(s_[i_ - 1]) || !is_ident(s_[i_ + 1]))
        return false;
    std::size_t b = i_;
    while (b > 0 && (is_ident(s_[b - 1]) || s_[b - 1] == '.' || s_[b - 1] == '\''))
        if (--b + 4096 < i_) // bounded: a line of 1'1'1'... would scan back quadratically
            throw error(i_, "a token of more than 4096 characters before a '");
    return (s_[b] >= '0' && s_[b] <= '9') ||
           (s_[b] == '.' && b + 1 < s_.size() && s_[b + 1] >= '0' && s_[b + 1] <= '9');
}

template <class F> void Lines::each(F line_done) {
    std::string seen;
    std::size_t start = 0;
    while (i_ < s_.size()) {
        const char c = s_[i_];
        if (c == '\n') {
            line_done(start, i_, seen);
            seen.clear();
            start = ++i_;
        } else if (c == '/' && i_ + 1 < s_.size() && (s_[i_ + 1] == '/' || s_[i_ + 1] == '*')) {
            comment(seen);
        } else if (c == '"' && raw_string(seen)) {
        } else if ((c == '"' || c == '\'') && !(c == '\'' && digit_separator())) {
            literal(seen);
        } else {
            seen += c;
            ++i_;
        }
    }
    if (start < s_.size())
        line_done(start, s_.size(), seen);
}

// The directive's name of a logical line ("include" for `# include "x"`), else empty; `rest`
// gets what follows it.
std::string directive(const std::string& seen, std::string& rest) {
    // Bytes past ASCII count as blanks here: clang skips a byte-order mark and takes Unicode
    // spaces as blanks, so "\u00a0#include" is a directive to it.
    const auto blank = [](char c) { return is_blank(c) || static_cast<unsigned char>(c) >= 0x80; };
    std::size_t i = 0;
    while (i < seen.size() && blank(seen[i]))
        ++i;
    if (seen.compare(i, 1, "#") == 0)
        i += 1;
    else if (seen.compare(i, 2, "%:") == 0)
        i += 2;
    else
        return {};
    while (i < seen.size() && blank(seen[i]))
        ++i;
    std::size_t j = i;
    while (j < seen.size() && is_ident(seen[j]))
        ++j;
    rest = seen.substr(j);
    return seen.substr(i, j - i);
}

std::string trimmed(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && is_blank(s[a]))
        ++a;
    while (b > a && is_blank(s[b - 1]))
        --b;
    return s.substr(a, b - a);
}

// "NAME" or <NAME>, nothing else on the line, NAME without quotes or backslashes.
void read_operand(IncludeDirective& d) {
    const std::string o = d.operand;
    if (o.size() < 3)
        return;
    const char close = o[0] == '"' ? '"' : o[0] == '<' ? '>' : 0;
    const std::string name = o.substr(1, o.size() - 2);
    if (!close || o.back() != close || name.find_first_of("\"<>\\") != std::string::npos)
        return;
    d.quoted = name;
    d.angled = close == '>';
}

} // namespace

std::vector<IncludeDirective> include_directives(const std::string& text, const std::string& origin,
                                                 bool cxx) {
    int lines = 0;
    const Spliced sp = splice(text, origin, lines);
    std::vector<std::size_t> newlines; // a text offset's physical line, from these
    for (std::size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n')
            newlines.push_back(i);
    const std::function<int(std::size_t)> line_at = [&](std::size_t offset) {
        return 1 +
               int(std::lower_bound(newlines.begin(), newlines.end(), offset) - newlines.begin());
    };
    std::vector<IncludeDirective> out;
    Lines(sp, origin, cxx, line_at)
        .each([&](std::size_t a, std::size_t b, const std::string& seen) {
            std::string rest;
            const std::string name = directive(seen, rest);
            if (name.empty())
                return;
            IncludeDirective d;
            d.line = line_at(sp.at[a]);
            d.begin = d.line == 1 ? 0 : newlines[std::size_t(d.line) - 2] + 1;
            d.end = b < sp.at.size() ? sp.at[b] + 1 : text.size();
            d.next_line = b < sp.at.size() ? line_at(sp.at[b]) + 1 : int(newlines.size()) + 2;
            d.operand = trimmed(rest);
            if (seen.find("__has_include") != std::string::npos ||
                seen.find("__has_embed") != std::string::npos)
                refuse_include(origin, d, "a kernel file may not probe for files (__has_include)");
            if (name != "include" && name != "include_next" && name != "import" && name != "embed")
                return;
            if (name == "include")
                read_operand(d);
            out.push_back(std::move(d));
        });
    return out;
}

void refuse_include(const std::string& origin, const IncludeDirective& d, const std::string& why) {
    throw text_error(origin, d.line,
                     "include of " + (d.operand.empty() ? "nothing" : shown(d.operand, 120)) +
                         " refused: " + why);
}

void check_includes(const std::string& text, KernelLanguage lang, const std::string& origin,
                    const std::function<bool(const std::string&)>& known) {
    auto all = include_directives(text, origin, true);
    if (lang == KernelLanguage::opencl_c) // C, or C++ for OpenCL (-cl-std=CLC++): both readings
        for (auto& d : include_directives(text, origin, false))
            all.push_back(std::move(d));
    for (const auto& d : all) {
        if (d.quoted.empty())
            refuse_include(origin, d,
                           "Duet passes only `#include \"NAME\"` of its kernel files (a macro, "
                           "#include_next, #import or #embed names a file it cannot see)");
        if (!d.angled && known(d.quoted))
            continue;
        const bool toolkit = d.angled && lang == KernelLanguage::cuda && d.quoted[0] != '/' &&
                             ("/" + d.quoted + "/").find("/../") == std::string::npos;
        if (!toolkit)
            refuse_include(origin, d,
                           d.angled ? "a <header> is not one of the kernel files (CUDA: a "
                                      "toolkit header, a relative path without ..)"
                                    : "it is not one of the kernel files");
    }
}

void check_kernel_includes(const std::string& text, KernelLanguage lang, const std::string& origin,
                           const std::vector<std::string>& headers) {
    check_includes(text, lang, origin, [&](const std::string& name) {
        return std::find(headers.begin(), headers.end(), name) != headers.end();
    });
}

namespace {

void expand(const std::string& name, const std::string& text,
            const std::function<const std::string*(const std::string&)>& header, int depth,
            std::string& out) {
    // A directive that only C++ for OpenCL's reading finds is refused, not expanded.
    check_includes(text, KernelLanguage::opencl_c, name,
                   [&](const std::string& n) { return header(n) != nullptr; });
    std::size_t copied = 0;
    for (const auto& d : include_directives(text, name, false)) {
        const std::string* h = d.quoted.empty() || d.angled ? nullptr : header(d.quoted);
        if (!h)
            refuse_include(name, d,
                           "an OpenCL program is built from one string: only `#include "
                           "\"NAME.clh\"` of one of Duet's kernel headers is expanded");
        if (depth >= max_include_depth)
            refuse_include(name, d,
                           "headers are included more than " + std::to_string(max_include_depth) +
                               " levels deep: an include cycle?");
        out.append(text, copied, d.begin - copied);
        out += "#line 1 \"" + d.quoted + "\"\n";
        expand(d.quoted, *h, header, depth + 1, out);
        out += "#line " + std::to_string(d.next_line) + " \"" + name + "\"\n";
        copied = d.end;
        if (out.size() > max_expanded_bytes)
            refuse_include(name, d,
                           "the program expands to more than " +
                               std::to_string(max_expanded_bytes >> 20) +
                               " MiB through its #include lines; include each header once");
    }
    out.append(text, copied, std::string::npos);
    if (!out.empty() && out.back() != '\n')
        out += '\n';
    if (out.size() > max_expanded_bytes)
        throw text_error(name, 1,
                         "the program expands to more than " +
                             std::to_string(max_expanded_bytes >> 20) + " MiB");
}

} // namespace

std::string expand_includes(const std::string& name, const std::string& text,
                            const std::function<const std::string*(const std::string&)>& header) {
    std::string out;
    expand(name, text, header, 0, out);
    return out;
}

} // namespace duet
