// See build_options.hpp. Drivers split their option string on any whitespace (\v \f \r too),
// so a value is checked character by character against a short list of what is allowed.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

#include <duet/backend/build_options.hpp>
#include <duet/backend/private_files.hpp>
#include <duet/error.hpp>

namespace duet {

namespace {

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}
bool is_ident(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

constexpr std::size_t max_name_expression = 4096;
constexpr int max_name_nesting = 64;

} // namespace

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

// What an option's value must be.
enum class Arg {
    none,          // no value
    boolean,       // true or false
    number,        // decimal digits
    numbers,       // decimal digits and commas (diagnostic numbers)
    word,          // one of `words`
    define,        // NAME or NAME=VALUE, as check_define
    identifier,    // a C identifier (-U)
    directory,     // a directory only the user or root can change
    warning,       // a warning's name (-Wall, -Werror, -Wno-x, -Werror=x): letters, digits, -, =
    optional_word, // no value, or one of `words` glued on (-O, -O2)
    gpu_arch       // native, sm_NN or compute_NN (2 or 3 digits, an a or f suffix)
};

// One option a compiler may be given: its spellings without their leading dashes ("|"
// between them), its value, and whether the value may be glued on (-DX, -I/dir, -O2).
struct Allowed {
    const char* names;
    Arg arg;
    const char* words = "";
    bool glued = false;
    bool separate = true; // the value may be the next element (not -std: NVRTC's flags
                          // replace Duet's -std= by an app's attached one)
};

// The options a user legitimately passes, per kernel language, keyed like the dialect table
// ("opencl-c", "cuda-c++"). Everything else is refused: options that write files
// (-o, -save-temps, -M*, -stats-file, coverage, -header-include-file, --time, PCH), load code
// (-load, -fplugin, -Xclang), or crash drivers
// (-fsanitize*, -Rpass*, -ftest-coverage) are simply not on these lists.
struct OptionTable {
    const char* name;  // the dialect (dialects.cpp)
    const char* field; // BuildOptions' deprecated member, for messages
    bool double_dash;  // NVRTC takes -x and --x alike; OpenCL C options have one dash
    std::vector<Allowed> options;
};

const OptionTable option_tables[] = {
    {"opencl-c",
     "opencl_options",
     false,
     {{"D", Arg::define, "", true},
      {"U", Arg::identifier, "", true},
      {"I", Arg::directory, "", true},
      {"cl-std", Arg::word,
       "CL1.0|CL1.1|CL1.2|CL2.0|CL3.0|CLC++|CLC++1.0|CLC++2021|cl1.0|cl1.1|cl1.2|cl2.0|cl3.0|"
       "clc++|clc++1.0|clc++2021"},
      {"cl-single-precision-constant|cl-denorms-are-zero|cl-fp32-correctly-rounded-divide-sqrt|"
       "cl-opt-disable|cl-strict-aliasing|cl-uniform-work-group-size|cl-no-subgroup-ifp|"
       "cl-mad-enable|cl-no-signed-zeros|cl-unsafe-math-optimizations|cl-finite-math-only|"
       "cl-fast-relaxed-math|cl-kernel-arg-info|w|g",
       Arg::none},
      {"W", Arg::warning, "", true},
      {"O", Arg::optional_word, "0|1|2|3|s", true},
      // NVIDIA's cl_nv_compiler_options.
      {"cl-nv-verbose", Arg::none},
      {"cl-nv-maxrregcount|cl-nv-opt-level", Arg::number}}},
    {"cuda-c++",
     "cuda_options",
     true,
     {{"define-macro|D", Arg::define, "", true},
      {"undefine-macro|U", Arg::identifier, "", true},
      {"include-path|I", Arg::directory, "", true},
      {"std", Arg::word, "c++03|c++11|c++14|c++17|c++20", false, false},
      {"device-debug|G|generate-line-info|lineinfo|use_fast_math|extra-device-vectorization|"
       "extensible-whole-program|ewp|no-source-include|disable-warnings|w|restrict|"
       "device-as-default-execution-space|default-device|device-int128|display-error-number|"
       "no-display-error-number",
       Arg::none},
      {"relocatable-device-code|rdc|ftz|prec-sqrt|prec-div|fmad|modify-stack-limit|"
       "device-stack-protector|builtin-move-forward|builtin-initializer-list|"
       "brief-diagnostics|brief-diag",
       Arg::boolean},
      {"maxrregcount|jump-table-density|jtd", Arg::number},
      {"diag-error|diag-suppress|diag-warn", Arg::numbers},
      {"dopt", Arg::word, "on|off"},
      {"Ofast-compile|Ofc", Arg::word, "0|min|mid|max"},
      {"optimization-info|opt-info", Arg::word, "inline"},
      // The target: checked by the CUDA backend against the GPU (cuda_nvrtc_args.hpp).
      {"arch|gpu-architecture", Arg::gpu_arch, "", false, false}}},
};

// Whether `s` is one of the '|'-separated words of `list`.
bool one_of(const std::string& s, const char* list) {
    if (s.empty())
        return false;
    const std::string_view words(list);
    for (std::size_t at = 0; at <= words.size();) {
        const std::size_t end = std::min(words.find('|', at), words.size());
        if (words.substr(at, end - at) == s)
            return true;
        at = end + 1;
    }
    return false;
}

// The allow-list of a dialect, or null for a dialect whose compiler takes no user options.
const OptionTable* table_of(const std::string& dialect) {
    for (const OptionTable& d : option_tables)
        if (dialect == d.name)
            return &d;
    return nullptr;
}

// The options of a dialect, for messages: "-D, -U, -I, -cl-std=CL1.0|..., ...".
std::string allowed_text(const OptionTable& d) {
    std::string out;
    for (const Allowed& a : d.options) {
        std::string names = a.names;
        for (std::size_t p = 0; (p = names.find('|', p)) != std::string::npos; p += 3)
            names.replace(p, 1, ", -");
        out += (out.empty() ? "-" : ", -") + names;
        if (a.arg == Arg::word)
            out += std::string("=") + a.words;
        else if (a.arg != Arg::none && a.arg != Arg::optional_word && !a.glued)
            out += a.arg == Arg::boolean ? "=true|false" : "=N";
    }
    return out;
}

// native, or sm_/compute_ then 2 or 3 digits and an optional a or f.
bool gpu_arch_word(const std::string& v) {
    if (v == "native")
        return true;
    const std::size_t at = v.rfind("sm_", 0) == 0 ? 3 : v.rfind("compute_", 0) == 0 ? 8 : 0;
    std::size_t digits = 0;
    while (at && at + digits < v.size() && is_digit(v[at + digits]))
        ++digits;
    const std::size_t rest = v.size() - at - digits;
    return at && (digits == 2 || digits == 3) &&
           (rest == 0 || (rest == 1 && (v.back() == 'a' || v.back() == 'f')));
}

// Why `value` does not fit `arg` (empty: it fits).
std::string value_problem(const Allowed& a, const std::string& value) {
    const auto all = [&](auto ok) {
        return !value.empty() && std::all_of(value.begin(), value.end(), ok);
    };
    const auto digit = [](char c) { return is_digit(c); };
    switch (a.arg) {
    case Arg::none:
        return "it takes no value";
    case Arg::boolean:
        return one_of(value, "true|false") ? "" : "give true or false";
    case Arg::number:
        return all(digit) && value.size() <= 6 ? "" : "give a whole number";
    case Arg::numbers:
        return all([](char c) { return is_digit(c) || c == ','; }) ? "" : "give numbers";
    case Arg::word:
    case Arg::optional_word:
        return one_of(value, a.words) ? "" : std::string("give one of ") + a.words;
    case Arg::identifier:
        return all(is_ident) && !is_digit(value[0]) ? "" : "give a macro name";
    case Arg::gpu_arch:
        return gpu_arch_word(value) ? "" : "give native, sm_NN or compute_NN (sm_80, compute_90a)";
    case Arg::warning:
        return all([](char c) { return is_ident(c) || c == '-' || c == '='; }) ? ""
                                                                               : "give a warning";
    case Arg::define:
        try {
            const auto eq = value.find('=');
            check_define(value.substr(0, eq), eq == std::string::npos ? "" : value.substr(eq + 1));
        } catch (const Error& e) {
            return e.what();
        }
        return "";
    case Arg::directory: {
        std::string why;
        if (!check_trusted_path(std::filesystem::absolute(value).string(),
                                TrustRule{"the -I option", true, true}, &why))
            return "an include directory must be one only you or root can change: " + why;
        return "";
    }
    }
    return "";
}

// The table's entry for `name` (dashes removed) and the value attached to it ("=v" or glued).
const Allowed* find_option(const OptionTable& d, const std::string& name, std::string& value,
                           bool& attached) {
    attached = false;
    for (const Allowed& a : d.options)
        if (one_of(name, a.names))
            return &a;
    if (const auto eq = name.find('='); eq != std::string::npos)
        for (const Allowed& a : d.options)
            if (a.arg != Arg::none && one_of(name.substr(0, eq), a.names)) {
                value = name.substr(eq + 1);
                attached = true;
                return &a;
            }
    for (const Allowed& a : d.options)
        if (a.glued && name.size() > 1 && one_of(name.substr(0, 1), a.names)) {
            value = name.substr(1);
            attached = true;
            return &a;
        }
    return nullptr;
}

void check_token(const std::string& where, const std::string& o) {
    if (o.empty())
        throw Error::usage(where + ": an option is one token starting with '-'");
    for (unsigned char c : o)
        if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\'' || c == '\\')
            throw Error::usage(where + ": an option is one token of printable ASCII, "
                                       "without spaces, quotes or backslashes");
}

} // namespace

void check_compiler_options(const std::string& dialect, const std::string& field,
                            const std::vector<std::string>& options) {
    if (options.empty())
        return;
    const OptionTable* table = table_of(dialect);
    if (!table)
        throw Error::usage("BuildOptions::" + field + ": Duet passes no compiler options for " +
                           dialect + " texts; remove them");
    const OptionTable& d = *table;
    for (std::size_t i = 0; i < options.size(); ++i) {
        const std::string& o = options[i];
        const std::string where = std::string("BuildOptions::") + field + " '" + shown(o) + "'";
        check_token(where, o);
        const std::size_t dashes = o.rfind("--", 0) == 0 && d.double_dash ? 2 : o[0] == '-';
        std::string value;
        bool attached = false;
        const Allowed* a = dashes ? find_option(d, o.substr(dashes), value, attached) : nullptr;
        if (!a)
            throw Error::usage(where + " is not allowed: Duet passes " + d.name +
                               " compilers only the options it knows to be safe (nothing that "
                               "writes files or loads code): " +
                               allowed_text(d));
        if (!attached && a->arg != Arg::none && a->arg != Arg::optional_word) {
            if (i + 1 >= options.size() || !a->separate)
                throw Error::usage(where + " needs a value: " +
                                   (a->glued ? "glued on (\"" + o + "VALUE\")"
                                             : "attached (\"" + o + "=VALUE\")") +
                                   (a->separate ? " or as the next option" : ""));
            value = options[++i]; // the separate form: "-I", "dir"
            check_token(where + " " + shown(value), value);
        }
        if (attached || !value.empty())
            if (const std::string why = value_problem(*a, value); !why.empty())
                throw Error::usage(where + (attached ? "" : " " + shown(value)) + ": " + why);
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
        // 50,000 nested templates kept NVRTC busy for minutes.
        int depth = 0, deepest = 0;
        for (char c : n) {
            depth += (c == '<' || c == '(' || c == '[' || c == '{') -
                     (c == '>' || c == ')' || c == ']' || c == '}');
            deepest = std::max(deepest, depth);
        }
        if (n.size() > max_name_expression || deepest > max_name_nesting)
            throw Error::usage("BuildOptions::instantiations '" + shown(n.substr(0, 64)) +
                               "...': a name expression may have at most " +
                               std::to_string(max_name_expression) + " characters and " +
                               std::to_string(max_name_nesting) + " levels of brackets (it has " +
                               std::to_string(n.size()) + " and " + std::to_string(deepest) + ")");
    }
}

} // namespace duet
