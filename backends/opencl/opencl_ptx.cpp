// The sm_90a raise of the driver's PTX (opencl_ptx.hpp): a pure text transform.
#include "opencl_ptx.hpp"

#include <algorithm>
#include <cstdlib>

namespace duet::opencl {

namespace {

std::size_t first_non_blank(std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        ++i;
    return i;
}

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

// A directive's line: `.name` then a blank; the rest of the line after it (nullopt-like: npos).
std::size_t directive_rest(std::string_view body, std::string_view name) {
    if (!starts_with(body, name) || body.size() == name.size())
        return std::string_view::npos;
    const char c = body[name.size()];
    return c == ' ' || c == '\t' ? name.size() : std::string_view::npos;
}

// `.target sm_90[, ...]` with its first word raised; "" in `error` on success.
std::string raise_target(std::string_view body, std::size_t rest, std::string& error) {
    std::size_t w = rest;
    while (w < body.size() && (body[w] == ' ' || body[w] == '\t'))
        ++w;
    std::size_t e = w;
    while (e < body.size() && body[e] != ',' && body[e] != ' ' && body[e] != '\t')
        ++e;
    const std::string_view word = body.substr(w, e - w);
    if (word == "sm_90a")
        return std::string(body);
    if (word != "sm_90") {
        error = "the PTX targets " + std::string(word) + ", not sm_90";
        return "";
    }
    return std::string(body.substr(0, e)) + "a" + std::string(body.substr(e));
}

// `.version X.Y` at 8.0 at least.
std::string raise_version(std::string_view body, std::size_t rest) {
    const std::string digits(body.substr(rest));
    const long major = std::strtol(digits.c_str(), nullptr, 10);
    return major >= 8 ? std::string(body) : ".version 8.0";
}

} // namespace

bool holds_sm90a_lines(std::string_view ptx) {
    for (std::size_t at = 0; at < ptx.size();) {
        const std::size_t end = std::min(ptx.find('\n', at), ptx.size());
        const std::string_view line = ptx.substr(at, end - at);
        if (starts_with(line.substr(first_non_blank(line)), sm90a_marker))
            return true;
        at = end + 1;
    }
    return false;
}

RaisedPtx raise_to_sm90a(std::string_view ptx) {
    RaisedPtx out;
    const std::size_t nul = std::min(ptx.find('\0'), ptx.size());
    const std::string_view text = ptx.substr(0, nul);
    std::string result;
    result.reserve(text.size());
    bool target = false;
    std::size_t number = 0;
    for (std::size_t at = 0; at <= text.size(); ++number) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string_view line = text.substr(at, end - at);
        const std::size_t indent = first_non_blank(line);
        const std::string_view body = line.substr(indent);
        std::string kept(line);
        if (starts_with(body, sm90a_marker)) {
            kept =
                std::string(line.substr(0, indent)) + std::string(body.substr(sm90a_marker.size()));
            ++out.lines;
        } else if (line.find(sm90a_marker) != std::string_view::npos) {
            out.error = "line " + std::to_string(number + 1) +
                        " holds the sm_90a marker after other text (a marked asm line must "
                        "begin with it)";
        } else if (const auto r = directive_rest(body, ".target"); r != std::string_view::npos) {
            if (target)
                out.error = "the PTX has two .target lines";
            target = true;
            kept = std::string(line.substr(0, indent)) + raise_target(body, r, out.error);
        } else if (const auto v = directive_rest(body, ".version"); v != std::string_view::npos) {
            kept = std::string(line.substr(0, indent)) + raise_version(body, v);
        }
        if (!out.error.empty())
            return {"", 0, out.error};
        result += kept;
        if (end < text.size())
            result += '\n';
        at = end + 1;
    }
    if (!target)
        return {"", 0, "the text has no .target line (not PTX)"};
    result += ptx.substr(nul); // the terminator and anything after it, as they were
    out.ptx = std::move(result);
    return out;
}

} // namespace duet::opencl
