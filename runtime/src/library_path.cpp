// See library_path.hpp.
#include <cstdlib>
#include <sstream>
#include <vector>

#include <duet/library_path.hpp>

namespace duet {

namespace {

// The elements of a colon-separated list, empty ones included ("a::b:" has four).
std::vector<std::string> elements(const std::string& value) {
    std::vector<std::string> out;
    std::string::size_type start = 0;
    for (;;) {
        const auto colon = value.find(':', start);
        out.push_back(value.substr(start, colon - start));
        if (colon == std::string::npos)
            return out;
        start = colon + 1;
    }
}

} // namespace

std::string library_path_problem(const char* value) {
    if (!value)
        value = std::getenv("LD_LIBRARY_PATH");
    if (!value || !*value)
        return {};
    for (const std::string& e : elements(value))
        if (e.empty() || e[0] != '/')
            return "LD_LIBRARY_PATH ('" + std::string(value) + "') has " +
                   (e.empty() ? std::string("an empty element")
                              : "the relative element '" + e + "'") +
                   ", which makes the dynamic linker load libraries from the current directory; "
                   "backends are not loaded under it. Remove it (LD_LIBRARY_PATH='" +
                   safe_library_path(value) + "')";
    return {};
}

std::string safe_library_path(const std::string& value) {
    std::string out;
    for (const std::string& e : elements(value))
        if (!e.empty() && e[0] == '/')
            out += (out.empty() ? "" : ":") + e;
    return out;
}

} // namespace duet
