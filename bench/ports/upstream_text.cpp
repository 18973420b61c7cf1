// See upstream_text.hpp.
#include "upstream_text.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace ports {

namespace {

[[noreturn]] void fail(const std::string& what) {
    std::fprintf(stderr, "error: %s\n", what.c_str());
    std::exit(2);
}

std::string trimmed(std::string s) {
    const auto b = s.find_first_not_of(" \t\r");
    const auto e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

} // namespace

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail("cannot read " + path +
             " (give the folder bench/ports/fetch_upstream.sh filled with --upstream DIR)");
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string raw_string_literal(const std::string& text, const std::string& origin) {
    for (auto at = text.find("R\""); at != std::string::npos; at = text.find("R\"", at + 1)) {
        const auto open = text.find('(', at + 2);
        if (open == std::string::npos || open - at - 2 > 16)
            continue;
        const std::string delim = text.substr(at + 2, open - at - 2);
        if (delim.find_first_of(" \\)\"\n") != std::string::npos)
            continue;
        const auto close = text.find(")" + delim + "\"", open + 1);
        if (close != std::string::npos)
            return text.substr(open + 1, close - open - 1);
    }
    fail(origin + " holds no raw string literal R\"DELIM(...)DELIM\"");
}

std::string macro_value(const std::string& text, const std::string& name,
                        const std::string& origin) {
    std::istringstream lines(text);
    for (std::string l; std::getline(lines, l);) {
        std::istringstream words(l);
        std::string hash, macro;
        if (!(words >> hash >> macro) || hash != "#define" || macro != name)
            continue;
        std::string value;
        std::getline(words, value);
        value = trimmed(value);
        if (value.size() > 2 && value.front() == '(' && value.back() == ')')
            value = trimmed(value.substr(1, value.size() - 2));
        return value;
    }
    fail(origin + " has no #define " + name);
}

} // namespace ports
