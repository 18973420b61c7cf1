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

namespace duet {

namespace {

// Options that make the compiler write files (outputs, temporaries, dependency lists, traces,
// pre-compiled headers), produce something other than the program Duet loads, choose the
// target Duet picks from the device, or load code into the compiler. Names without their
// leading dashes; `prefix` also refuses every longer name that starts with it.
struct Refused {
    const char* name;
    bool prefix;
    const char* why;
};
constexpr Refused refused_options[] = {
    {"o", false, "it names an output file"},
    {"output", true, "it names an output file or directory"},
    {"save-temps", true, "it writes temporary files"},
    {"keep", false, "it writes temporary files"},
    {"keep-dir", true, "it writes temporary files"},
    {"time", false, "it writes a timing file"},
    {"ftime-trace", true, "it writes a trace file"},
    {"fdevice-", true, "NVRTC's -fdevice-* options write files or stop before code is made"},
    {"fsave-", true, "it writes files"},
    {"fdump", true, "it writes files"},
    {"dump", true, "it writes files"},
    {"fprofile", true, "it writes profile files"},
    {"fcrash-diagnostics", true, "it writes files"},
    {"fmodules-cache-path", true, "it writes files"},
    {"pch", true, "pre-compiled headers are files"},
    {"create-pch", true, "pre-compiled headers are files"},
    {"use-pch", true, "pre-compiled headers are files"},
    {"M", false, "it writes a dependency list"},
    {"MD", false, "it writes a dependency list"},
    {"MMD", false, "it writes a dependency list"},
    {"MF", false, "it writes a dependency list"},
    {"MM", false, "it writes a dependency list"},
    {"MT", false, "it writes a dependency list"},
    {"MQ", false, "it writes a dependency list"},
    {"MJ", false, "it writes a dependency list"},
    {"load", true, "it loads a plugin into the compiler"},
    {"plugin", true, "it loads a plugin into the compiler"},
    {"fplugin", true, "it loads a plugin into the compiler"},
    {"fpass-plugin", true, "it loads a plugin into the compiler"},
    {"Xclang", true, "it passes raw options to clang (a way to load plugins)"},
    {"Xlinker", true, "it passes raw options to the linker"},
    {"emit-", true, "Duet loads the program the compiler makes, not another output"},
    {"dlto", false, "Duet loads machine code, not link-time-optimisation IR"},
    {"dlink-time-opt", false, "Duet loads machine code, not link-time-optimisation IR"},
    {"arch", false, "Duet chooses the architecture from the device"},
    {"gpu-architecture", false, "Duet chooses the architecture from the device"},
};

// Why `part` (an option, or one piece of an option's value) is refused, or nullptr.
const char* refused_why(const std::string& part) {
    std::size_t dashes = 0;
    while (dashes < part.size() && part[dashes] == '-')
        ++dashes;
    if (dashes == 0)
        return nullptr;
    std::string name = part.substr(dashes);
    name = name.substr(0, name.find('='));
    for (const Refused& r : refused_options)
        if (r.prefix ? name.rfind(r.name, 0) == 0 : name == r.name)
            return r.why;
    return nullptr;
}

} // namespace

void check_compiler_options(const char* field, const std::vector<std::string>& options) {
    for (const std::string& o : options) {
        const std::string where = std::string("BuildOptions::") + field + " '" + shown(o) + "'";
        if (o.size() < 2 || o[0] != '-')
            throw Error::usage(where + ": an option is one token starting with '-', with its "
                                       "value attached (\"-std=c++20\", \"-Ipath\")");
        for (unsigned char c : o)
            if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '\\')
                throw Error::usage(where + ": an option is one token of printable ASCII, "
                                           "without spaces, quotes or backslashes");
        // The option itself, and each piece of its value ("-Xptxas=-o,x", "-mllvm=-load=p").
        std::size_t start = 0;
        while (start <= o.size()) {
            const std::size_t end = o.find_first_of("=,", start);
            const std::string piece =
                o.substr(start, end == std::string::npos ? std::string::npos : end - start);
            if (const char* why = refused_why(piece))
                throw Error::usage(where + " is not allowed: " + why +
                                   " (docs/api/reference.md lists the options Duet refuses)");
            if (end == std::string::npos)
                break;
            start = end + 1;
        }
    }
}

void check_name_expressions(const std::vector<std::string>& names) {
    for (const std::string& n : names) {
        bool ok = !n.empty();
        for (unsigned char c : n)
            ok = ok && c >= 0x20 && c < 0x7f && c != '"' && c != '\'' && c != '\\';
        if (!ok)
            throw Error::usage("BuildOptions::instantiations '" + shown(n) +
                               "': a name expression is a non-empty C++ name such as "
                               "\"dot<double>\" (printable ASCII, no quotes or backslashes)");
    }
}

} // namespace duet
