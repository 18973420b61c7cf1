// Scanners over kernel text: which kernels a source defines, and which header an #include line
// names. Hand-written, each a single forward pass with bounded look-ahead: the text comes from
// DUET_KERNEL_DIR or a user's file, and a backtracking regex over a 50,000-character name or a
// 100,000-character line recurses once per character (libstdc++) until the stack overflows.
#include <algorithm>
#include <cctype>
#include <set>
#include <string_view>

#include <duet/backend/kernel_sources.hpp>
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

// After "__kernel"/"kernel": spaces, any __attribute__((...)), "void", the name, "(".
std::string_view opencl_kernel_at(Cursor c) {
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
// makes into one (`void CLUSTER name(`). The name is the word after "void" that "(" follows.
std::string_view cuda_kernel_at(Cursor c) {
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

} // namespace

std::vector<std::string> kernels_defined_in(const std::string& text, KernelLanguage lang) {
    std::set<std::string> names;
    const std::string_view t = text;
    const std::string_view key = lang == KernelLanguage::opencl_c ? "kernel" : "__global__";
    for (std::size_t at = t.find(key); at != std::string_view::npos; at = t.find(key, at + 1)) {
        std::string_view name;
        if (lang == KernelLanguage::cuda)
            name = cuda_kernel_at(Cursor{t, at + key.size()});
        // "__kernel", or "kernel" as a word of its own.
        else if ((at >= 2 && t.substr(at - 2, 2) == "__") || at == 0 || !is_word(t[at - 1]))
            name = opencl_kernel_at(Cursor{t, at + key.size()});
        if (!name.empty())
            names.emplace(name);
    }
    return {names.begin(), names.end()};
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

void check_kernel_names(const std::string& text, KernelLanguage lang, const std::string& origin) {
    for (const auto& name : kernels_defined_in(text, lang))
        if (name.size() > max_kernel_name)
            throw Error::usage(origin + " defines a kernel whose name has " +
                               std::to_string(name.size()) + " characters (" + name.substr(0, 32) +
                               "...); a name may have at most " + std::to_string(max_kernel_name) +
                               " (compilers' caches make files of them, and PoCL aborts on "
                               "longer ones): shorten it");
}

} // namespace duet
