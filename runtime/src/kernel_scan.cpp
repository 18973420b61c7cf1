// Scanners over kernel text: which kernels a source defines, and which header an #include line
// names. Hand-written, each a single forward pass with bounded look-ahead: the text comes from
// DUET_KERNEL_DIR or a user's file, and a backtracking regex over a 50,000-character name or a
// 100,000-character line recurses once per character (libstdc++) until the stack overflows.
#include "kernel_scan.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include <duet/backend/kernel_sources.hpp>
#include <duet/dialect.hpp>
#include <duet/error.hpp>

namespace duet {

namespace {

bool is_word(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

bool is_space(char c) {
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// A cursor over the text; every step moves forward, so each attempt costs what it reads.
struct Cursor {
    std::string_view t;
    std::size_t i;

    bool at_end() const { return i >= t.size(); }
    // Skips whitespace; true when there was at least one character of it.
    bool spaces() {
        const std::size_t from = i;
        while (i < t.size() && is_space(t[i]))
            ++i;
        return i > from;
    }
    bool word(std::string_view w) {
        if (t.substr(i, w.size()) != w || (i + w.size() < t.size() && is_word(t[i + w.size()])))
            return false;
        i += w.size();
        return true;
    }
    bool literal(char c) {
        if (i >= t.size() || t[i] != c)
            return false;
        ++i;
        return true;
    }
    std::string_view identifier() {
        const std::size_t from = i;
        while (i < t.size() && is_word(t[i]))
            ++i;
        return t.substr(from, i - from);
    }
    // "( ... )" with nested parentheses, at most `limit` characters: an attribute is short, and
    // the limit keeps a text of unclosed "((" from costing its length at every occurrence.
    bool balanced(std::size_t limit) {
        if (!literal('('))
            return false;
        int depth = 1;
        for (const std::size_t end = std::min(t.size(), i + limit); i < end; ++i)
            if (t[i] == '(')
                ++depth;
            else if (t[i] == ')' && --depth == 0) {
                ++i;
                return true;
            }
        return false;
    }
};

constexpr std::size_t attribute_limit = 4096;

// After "__kernel"/"kernel": spaces, any __attribute__((...)), "void", the name, "(" (the
// cursor is left after it).
std::string_view opencl_kernel_at(Cursor& c) {
    if (!c.spaces())
        return {};
    while (c.word("__attribute__")) {
        c.spaces();
        const std::size_t open = c.i;
        if (!c.balanced(attribute_limit) || c.t[open + 1] != '(')
            return {};
        c.spaces();
    }
    if (!c.word("void") || !c.spaces())
        return {};
    const std::string_view name = c.identifier();
    c.spaces();
    return c.literal('(') ? name : std::string_view{};
}

// After "__global__": "void" and the name, attributes before or after "void": CUDA's own with
// their arguments (__launch_bounds__, __cluster_dims__, __maxnreg__) or a word that a macro
// makes into one (`void CLUSTER name(`). The name is the word after "void" that "(" follows
// (the cursor is left after it).
std::string_view cuda_kernel_at(Cursor& c) {
    if (!c.spaces())
        return {};
    bool after_void = false;
    for (int words = 0; words < 8; ++words) {
        if (c.word("__launch_bounds__") || c.word("__cluster_dims__") || c.word("__maxnreg__")) {
            c.spaces();
            if (!c.balanced(attribute_limit))
                return {};
            c.spaces();
            continue;
        }
        const std::string_view w = c.identifier();
        if (w.empty())
            return {};
        c.spaces();
        if (c.literal('('))
            return after_void ? w : std::string_view{};
        after_void = after_void || w == "void";
    }
    return {};
}

// Collapses runs of whitespace into one space and trims both ends.
std::string squeezed(std::string_view s) {
    std::string out;
    for (char ch : s)
        if (!is_space(ch))
            out += ch;
        else if (!out.empty() && out.back() != ' ')
            out += ' ';
    while (!out.empty() && out.back() == ' ')
        out.pop_back();
    return out;
}

// One parameter's text ("__global const float* restrict a", "int n[4]", "float = 1"): the name
// is its last word when a type comes before it; an unnamed parameter has the name "".
void add_parameter(std::string_view p, KernelDecl& d) {
    if (const auto eq = p.find('='); eq != std::string_view::npos)
        p = p.substr(0, eq); // a C++ default argument
    std::string text = squeezed(p);
    std::string array;
    if (const auto br = text.find('['); br != std::string::npos) {
        array = text.substr(br);
        text = squeezed(text.substr(0, br));
    }
    std::size_t start = text.size();
    while (start > 0 && is_word(text[start - 1]))
        --start;
    const std::string type = squeezed(text.substr(0, start));
    const bool named = start < text.size() && !type.empty() && type != "const" &&
                       type != "unsigned" && type != "signed" && type != "struct";
    d.parameter_names.push_back(named ? text.substr(start) : "");
    d.parameter_types.push_back(named ? type + array : text + array);
}

constexpr std::size_t parameter_list_limit = 65536;

// The parameter list after a kernel's "(", split at the commas outside (), <>, [] and {}.
// Nothing where the list does not close within parameter_list_limit characters or within what
// is left of `budget` (the characters all lists of one text may read: a text of many unclosed
// lists must not cost the limit at each). `pointers`, where set, gets the offset in the text of
// each parameter that holds a '*'.
bool read_parameters(Cursor c, KernelDecl& d, std::size_t& budget,
                     std::vector<std::size_t>* pointers) {
    int depth = 0;
    std::size_t from = c.i;
    const std::size_t end = std::min(c.t.size(), c.i + std::min(parameter_list_limit, budget));
    budget -= end - c.i;
    for (; c.i < end; ++c.i) {
        const char ch = c.t[c.i];
        if (ch == '(' || ch == '<' || ch == '[' || ch == '{') {
            ++depth;
        } else if ((ch == ')' || ch == '>' || ch == ']' || ch == '}') && depth > 0) {
            --depth;
        } else if (ch == ')' || (ch == ',' && depth == 0)) {
            const std::string_view p = c.t.substr(from, c.i - from);
            const bool only_void = ch == ')' && d.parameter_names.empty() &&
                                   (squeezed(p).empty() || squeezed(p) == "void");
            if (!only_void)
                add_parameter(p, d);
            if (pointers && p.find('*') != std::string_view::npos) {
                std::size_t at = from;
                while (at < c.i && is_space(c.t[at]))
                    ++at;
                pointers->push_back(at);
            }
            from = c.i + 1;
            if (ch == ')') {
                budget += end - c.i - 1; // what this list did not read
                return true;
            }
        }
    }
    return false;
}

// Every kernel a text defines, found after `key` by `at` (which leaves the cursor after "(").
template <class At>
std::vector<KernelDecl> scan_with(const std::string& text, std::string_view key, At at,
                                  std::vector<std::size_t>* pointers = nullptr) {
    std::vector<KernelDecl> out;
    std::set<std::string> seen;
    const std::string_view t = text;
    std::size_t budget = 4 * text.size() + parameter_list_limit;
    for (std::size_t k = t.find(key); k != std::string_view::npos; k = t.find(key, k + 1)) {
        Cursor c{t, k + key.size()};
        const std::string_view name = at(t, k, c);
        if (name.empty() || !seen.insert(std::string(name)).second)
            continue;
        KernelDecl d{std::string(name), {}, {}};
        if (!read_parameters(c, d, budget, pointers))
            d.parameter_names.clear(), d.parameter_types.clear();
        out.push_back(std::move(d));
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
}

} // namespace

std::vector<KernelDecl> scan_opencl_c(const std::string& text) {
    return scan_with(text, "kernel", [](std::string_view t, std::size_t k, Cursor& c) {
        // "__kernel", or "kernel" as a word of its own.
        const bool word = (k >= 2 && t.substr(k - 2, 2) == "__") || k == 0 || !is_word(t[k - 1]);
        return word ? opencl_kernel_at(c) : std::string_view{};
    });
}

std::vector<KernelDecl> scan_cuda(const std::string& text) {
    return scan_with(text, "__global__",
                     [](std::string_view, std::size_t, Cursor& c) { return cuda_kernel_at(c); });
}

std::string qualify_cuda_pointer_parameters(const std::string& text, const std::string& word) {
    std::vector<std::size_t> at;
    scan_with(
        text, "__global__",
        [](std::string_view, std::size_t, Cursor& c) { return cuda_kernel_at(c); }, &at);
    std::sort(at.begin(), at.end());
    std::string out = text;
    for (auto it = at.rbegin(); it != at.rend(); ++it)
        out.insert(*it, word + " ");
    return out;
}

std::vector<KernelDecl> scan_ptx(const std::string& text) {
    // PTX's parameters are named after the mangled kernel ("k_param_0"): by position only.
    return scan_with(text, ".entry", [](std::string_view, std::size_t, Cursor& c) {
        c.spaces();
        const std::string_view name = c.identifier();
        c.spaces();
        return c.literal('(') ? name : std::string_view{};
    });
}

std::vector<std::string> kernels_defined_in(const std::string& text, KernelLanguage lang) {
    std::vector<std::string> names;
    for (auto& d : scan_kernels(text, dialect_of(lang)))
        names.push_back(std::move(d.name));
    return names;
}

std::string KernelDecl::signature() const {
    std::string s = name + "(";
    for (std::size_t i = 0; i < parameter_names.size(); ++i) {
        const std::string& type = i < parameter_types.size() ? parameter_types[i] : "";
        s += (i ? ", " : "") + type +
             (parameter_names[i].empty() ? "" : (type.empty() ? "" : " ") + parameter_names[i]);
    }
    return s + ")";
}

std::optional<std::string> included_name(const std::string& line) {
    Cursor c{line, 0};
    c.spaces();
    if (!c.literal('#'))
        return std::nullopt;
    c.spaces();
    if (line.compare(c.i, 7, "include") != 0)
        return std::nullopt;
    c.i += 7;
    c.spaces();
    if (!c.literal('"'))
        return std::nullopt;
    const std::size_t close = line.find('"', c.i);
    if (close == std::string::npos || close == c.i)
        return std::nullopt;
    const std::string name = line.substr(c.i, close - c.i);
    c.i = close + 1;
    c.spaces();
    return c.at_end() ? std::optional<std::string>(name) : std::nullopt;
}

void check_kernel_names(const std::string& text, const Dialect& dialect,
                        const std::string& origin) {
    for (const auto& d : scan_kernels(text, dialect))
        if (d.name.size() > max_kernel_name)
            throw Error::usage(origin + " defines a kernel whose name has " +
                               std::to_string(d.name.size()) + " characters (" +
                               d.name.substr(0, 32) + "...); a name may have at most " +
                               std::to_string(max_kernel_name) +
                               " (compilers' caches make files of them, and PoCL aborts on "
                               "longer ones): shorten it");
}

void check_kernel_names(const std::string& text, KernelLanguage lang, const std::string& origin) {
    check_kernel_names(text, dialect_of(lang), origin);
}

} // namespace duet
