// Host code out of a .cu file for NVRTC (cuda_nvrtc_host_code.hpp). The scan works on a masked
// copy of the text (comments, string and character literals and preprocessor lines blanked),
// so braces and parentheses inside them cannot mislead it; it walks the top level and the
// bodies of namespaces and extern "C" blocks, and blanks what it leaves out in the real text.
// Member functions stay with their class, and a host function that none of the rules names
// stays too: NVRTC's error then names it.
#include "cuda_nvrtc_host_code.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace duet::cuda {

namespace {

bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// `text` with comments, literals and preprocessor lines (with their continuations) as spaces;
// newlines kept, so offsets and line numbers are those of `text`.
std::string masked(const std::string& text) {
    std::string m = text;
    const auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to && i < m.size(); ++i)
            if (m[i] != '\n')
                m[i] = ' ';
    };
    bool line_start = true;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (line_start && c == '#') { // to the end of the line and its continuations
            std::size_t e = i;
            while (e < text.size() && !(text[e] == '\n' && (e == 0 || text[e - 1] != '\\')))
                ++e;
            blank(i, e);
            i = e;
            continue;
        }
        if (c == '\n' || !std::isspace(static_cast<unsigned char>(c)))
            line_start = c == '\n';
        if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
            const bool line = text[i + 1] == '/';
            std::size_t e = text.find(line ? "\n" : "*/", i + 2);
            e = e == std::string::npos ? text.size() : e + (line ? 0 : 2);
            blank(i, e);
            i = e;
        } else if (c == '"' || (c == '\'' && !(i > 0 && ident_char(text[i - 1])))) {
            std::size_t e = i + 1; // (a ' after a digit is a digit separator: 1'000)
            while (e < text.size() && text[e] != c && text[e] != '\n')
                e += text[e] == '\\' ? 2 : 1;
            blank(i, e + 1);
            i = e + 1;
        } else {
            ++i;
        }
    }
    return m;
}

std::size_t matching_brace(const std::string& m, std::size_t open) {
    int depth = 0;
    for (std::size_t i = open; i < m.size(); ++i) {
        depth += m[i] == '{' ? 1 : m[i] == '}' ? -1 : 0;
        if (depth == 0)
            return i;
    }
    return m.size() - 1;
}

bool has_word(const std::string& s, const std::string& w) {
    for (auto at = s.find(w); at != std::string::npos; at = s.find(w, at + 1))
        if ((at == 0 || !ident_char(s[at - 1])) &&
            (at + w.size() >= s.size() || !ident_char(s[at + w.size()])))
            return true;
    return false;
}

// Calls only host code makes: the CUDA runtime's host API and the C library's host side.
bool calls_host_api(const std::string& body) {
    static const char* const names[] = {"cudaMalloc",
                                        "cudaMallocHost",
                                        "cudaMallocManaged",
                                        "cudaFree",
                                        "cudaFreeHost",
                                        "cudaMemcpy",
                                        "cudaMemcpyAsync",
                                        "cudaMemset",
                                        "cudaDeviceSynchronize",
                                        "cudaStreamCreate",
                                        "cudaStreamSynchronize",
                                        "cudaEventCreate",
                                        "cudaEventRecord",
                                        "cudaEventSynchronize",
                                        "cudaEventElapsedTime",
                                        "cudaSetDevice",
                                        "cudaGetDeviceProperties",
                                        "cudaGetErrorString",
                                        "cudaLaunchKernel",
                                        "cudaFuncGetAttributes",
                                        "fprintf",
                                        "fopen",
                                        "exit",
                                        "malloc",
                                        "free",
                                        "puts"};
    return std::any_of(std::begin(names), std::end(names),
                       [&](const char* n) { return has_word(body, n); });
}

// `std::` not part of `cuda::std::`: the C++ standard library, which NVRTC does not have.
bool uses_std(const std::string& body) {
    for (auto at = body.find("std::"); at != std::string::npos; at = body.find("std::", at + 1))
        if ((at == 0 || !ident_char(body[at - 1])) && (at < 2 || body.compare(at - 2, 2, "::")))
            return true;
    return false;
}

// A function definition's head: parentheses, and no '=' before the first of them outside a
// leading template parameter list (`auto f = [](int i) {` is a variable).
bool is_function_head(const std::string& head) {
    const std::size_t paren = head.find('(');
    if (paren == std::string::npos)
        return false;
    std::size_t from = 0;
    if (const auto t = head.find("template"); t != std::string::npos && t < paren) {
        int depth = 0;
        for (std::size_t i = head.find('<', t); i != std::string::npos && i < head.size(); ++i) {
            depth += head[i] == '<' ? 1 : head[i] == '>' ? -1 : 0;
            if (depth == 0) {
                from = i + 1;
                break;
            }
        }
    }
    const std::string rest = head.substr(from);
    if (has_word(rest, "struct") || has_word(rest, "class") || has_word(rest, "union") ||
        has_word(rest, "enum"))
        return false;
    const std::size_t eq = head.find('=', from);
    return eq == std::string::npos || eq > paren;
}

// The identifier just before the last top-level parenthesised group of a function's head:
// its name (`__launch_bounds__(256) k(...)` gives k).
std::string function_name(const std::string& head) {
    const std::size_t close = head.rfind(')');
    if (close == std::string::npos)
        return {};
    int depth = 0;
    std::size_t open = close;
    for (std::size_t i = close + 1; i-- > 0;) {
        depth += head[i] == ')' ? 1 : head[i] == '(' ? -1 : 0;
        if (depth == 0) {
            open = i;
            break;
        }
    }
    std::size_t e = open;
    while (e > 0 && std::isspace(static_cast<unsigned char>(head[e - 1])))
        --e;
    std::size_t b = e;
    while (b > 0 && ident_char(head[b - 1]))
        --b;
    return head.substr(b, e - b);
}

std::size_t line_of(const std::string& text, std::size_t at) {
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

class Scanner {
  public:
    Scanner(const std::string& text, DeviceCode& out) : text_(text), m_(masked(text)), out_(out) {}

    // One scope's declarations from `begin` to `end` (exclusive).
    void scope(std::size_t begin, std::size_t end) {
        std::size_t head_start = begin;
        for (std::size_t i = begin; i < end; ++i) {
            if (m_[i] == ';' || m_[i] == '}') {
                head_start = i + 1;
                continue;
            }
            if (m_[i] != '{')
                continue;
            const std::size_t close = matching_brace(m_, i);
            const std::string head = m_.substr(head_start, i - head_start);
            const std::string real_head = text_.substr(head_start, i - head_start);
            if (has_word(head, "namespace") ||
                (has_word(head, "extern") && real_head.find("\"C\"") != std::string::npos &&
                 head.find('(') == std::string::npos))
                scope(i + 1, close);
            else if (is_function_head(head))
                function(head_start, head, i, close);
            i = close;
            head_start = close + 1;
        }
    }

  private:
    void function(std::size_t start, const std::string& head, std::size_t open, std::size_t close) {
        if (has_word(head, "__global__") || has_word(head, "__device__"))
            return;
        const std::string name = function_name(head);
        const std::string body = m_.substr(open, close + 1 - open);
        const char* why = name == "main"                          ? "main"
                          : body.find("<<<") != std::string::npos ? "launches with <<<>>>"
                          : has_word(head, "__host__")            ? "__host__"
                          : calls_host_api(body)                  ? "calls the host API"
                          : uses_std(body)                        ? "uses the C++ standard library"
                                                                  : nullptr;
        if (!why)
            return;
        while (start < open && std::isspace(static_cast<unsigned char>(text_[start])))
            ++start;
        out_.left_out.push_back((name.empty() ? std::string("a function") : name) + " (line " +
                                std::to_string(line_of(text_, start)) + ", " + why + ")");
        for (std::size_t k = start; k <= close; ++k)
            if (out_.text[k] != '\n')
                out_.text[k] = ' ';
    }

    const std::string& text_;
    const std::string m_;
    DeviceCode& out_;
};

// Blanks each #include <name> that NVRTC cannot open.
void drop_includes(DeviceCode& out, const std::vector<std::string>& dirs,
                   const std::vector<std::string>& header_names) {
    std::size_t line_start = 0, line = 1;
    while (line_start < out.text.size()) {
        std::size_t end = out.text.find('\n', line_start);
        if (end == std::string::npos)
            end = out.text.size();
        const std::string l = out.text.substr(line_start, end - line_start);
        std::size_t p = l.find_first_not_of(" \t");
        if (p != std::string::npos && l[p] == '#') {
            p = l.find_first_not_of(" \t", p + 1);
            const std::size_t lt = p == std::string::npos || l.compare(p, 7, "include") != 0
                                       ? std::string::npos
                                       : l.find('<', p + 7);
            const std::size_t gt = lt == std::string::npos ? lt : l.find('>', lt);
            if (gt != std::string::npos) {
                const std::string name = l.substr(lt + 1, gt - lt - 1);
                bool found = name != "cuda.h" &&
                             std::count(header_names.begin(), header_names.end(), name) > 0;
                for (const auto& d : dirs) {
                    std::error_code ec;
                    found = found || (name != "cuda.h" && std::filesystem::is_regular_file(
                                                              std::filesystem::path(d) / name, ec));
                }
                if (!found) {
                    out.left_out.push_back("#include <" + name + "> (line " + std::to_string(line) +
                                           ")");
                    std::fill(out.text.begin() + static_cast<std::ptrdiff_t>(line_start),
                              out.text.begin() + static_cast<std::ptrdiff_t>(end), ' ');
                }
            }
        }
        line_start = end + 1;
        ++line;
    }
}

} // namespace

DeviceCode device_code(const std::string& source, const std::vector<std::string>& include_dirs,
                       const std::vector<std::string>& header_names) {
    DeviceCode out{source, {}};
    Scanner(source, out).scope(0, source.size());
    drop_includes(out, include_dirs, header_names);
    return out;
}

} // namespace duet::cuda
