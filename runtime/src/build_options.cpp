// See build_options.hpp. Drivers split their option string on any whitespace (\v \f \r too),
// so a value is checked character by character against a short list of what is allowed.
#include <cstdio>

#include <duet/backend/build_options.hpp>
#include <duet/error.hpp>

namespace duet {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_ident(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// The value as a reader can see it: control and non-ASCII bytes as \xNN.
std::string shown(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char buf[5];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

} // namespace

void check_define(const std::string& name, const std::string& value) {
    bool ok = !name.empty() && !is_digit(name[0]);
    for (char c : name)
        ok = ok && is_ident(c);
    if (!ok)
        throw Error::usage("define name '" + shown(name) +
                           "' is not a C identifier (letters, digits and _, not starting with a "
                           "digit)");
    for (unsigned char c : value)
        if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '\\')
            throw Error::usage("define " + name + "='" + shown(value) +
                               "': a value is one token of printable ASCII, without spaces, "
                               "control characters, quotes or backslashes");
    if (!value.empty() && value[0] == '-' &&
        !(value.size() > 1 && (is_digit(value[1]) || value[1] == '.')))
        throw Error::usage("define " + name + "='" + shown(value) +
                           "': a value may not start with '-' (only a negative number may)");
}

} // namespace duet
