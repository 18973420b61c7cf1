// Host code out of a .cu file for NVRTC (cuda_nvrtc_host_code.hpp). The scan works on a masked
// copy of the text (comments, string and character literals and preprocessor lines blanked),
// so braces and parentheses inside them cannot mislead it; it walks the top level and the
// bodies of namespaces and extern "C" blocks, and blanks what it leaves out in the real text.
// Member functions stay with their class, and a host function that none of the rules names
// stays too: NVRTC's error then names it.
#include "cuda_nvrtc_host_code.hpp"

#include <algorithm>
#include <cctype>

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

// The part of a function's head before a constructor's member initialisers (`X::X(int n) :
// n_(n)`): a ':' after the parameters that is not part of '::'.
std::string without_initialisers(const std::string& head) {
    int depth = 0;
    bool params = false;
    for (std::size_t i = 0; i < head.size(); ++i) {
        depth += head[i] == '(' ? 1 : head[i] == ')' ? -1 : 0;
        params = params || (depth == 0 && head[i] == ')');
        if (params && depth == 0 && head[i] == ':' &&
            (i + 1 >= head.size() || head[i + 1] != ':') && (i == 0 || head[i - 1] != ':'))
            return head.substr(0, i);
    }
    return head;
}

// The identifier ending just before `e` in `head`, over a template argument list
// (`reduce<int>` gives reduce); `e` moves to its first character.
std::string identifier_before(const std::string& head, std::size_t& e) {
    while (e > 0 && std::isspace(static_cast<unsigned char>(head[e - 1])))
        --e;
    if (e > 0 && head[e - 1] == '>')
        for (int depth = 0; e > 0; --e) {
            depth += head[e - 1] == '>' ? 1 : head[e - 1] == '<' ? -1 : 0;
            if (depth == 0) {
                --e;
                break;
            }
        }
    while (e > 0 && std::isspace(static_cast<unsigned char>(head[e - 1])))
        --e;
    std::size_t b = e;
    while (b > 0 && ident_char(head[b - 1]))
        --b;
    std::string name = head.substr(b, e - b);
    e = b;
    return name;
}

// A function head's name: the identifier just before its last top-level parenthesised group
// (`__launch_bounds__(256) k(...)` gives k), and the class or namespace it is qualified by
// (`CUDAStream<T>::copy()` gives CUDAStream), or empty.
struct FunctionName {
    std::string name, qualifier;
};

FunctionName function_name(const std::string& whole) {
    const std::string head = without_initialisers(whole);
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
    FunctionName out;
    std::size_t e = open;
    out.name = identifier_before(head, e);
    if (e > 0 && head[e - 1] == '~') // a destructor
        out.name = head.substr(--e, 1) + out.name;
    if (e >= 2 && head.compare(e - 2, 2, "::") == 0) {
        e -= 2;
        out.qualifier = identifier_before(head, e);
    }
    return out;
}

std::size_t line_of(const std::string& text, std::size_t at) {
    return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n'));
}

// A lambda annotated for the device (`[=] __device__ (int i) {...}`): an extended lambda, which
// only nvcc's --extended-lambda makes in host code (NVRTC has no such option).
bool makes_device_lambda(const std::string& body) {
    for (auto at = body.find(']'); at != std::string::npos; at = body.find(']', at + 1)) {
        std::size_t k = at + 1;
        while (k < body.size() && std::isspace(static_cast<unsigned char>(body[k])))
            ++k;
        if (body.compare(k, 10, "__device__") == 0 || body.compare(k, 8, "__host__") == 0)
            return true;
    }
    return false;
}

// `name` called or instantiated in `body` (followed by '(' or '<').
bool calls(const std::string& body, const std::string& name) {
    for (auto at = body.find(name); at != std::string::npos; at = body.find(name, at + 1)) {
        if ((at > 0 && ident_char(body[at - 1])) ||
            (at + name.size() < body.size() && ident_char(body[at + name.size()])))
            continue;
        std::size_t k = at + name.size();
        while (k < body.size() && std::isspace(static_cast<unsigned char>(body[k])))
            ++k;
        if (k < body.size() && (body[k] == '(' || body[k] == '<'))
            return true;
    }
    return false;
}

class Scanner {
  public:
    Scanner(const std::string& text, DeviceCode& out) : text_(text), m_(masked(text)), out_(out) {}

    // One scope's declarations from `begin` to `end` (exclusive).
    void scope(std::size_t begin, std::size_t end) {
        std::size_t head_start = begin;
        for (std::size_t i = begin; i < end; ++i) {
            if (m_[i] == ';')
                instantiation(head_start, i);
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

    // Decides what is left out (a host function, then what calls it or instantiates it, until
    // nothing changes) and blanks it.
    void finish() {
        for (bool changed = true; changed;) {
            changed = false;
            for (auto& f : parts_)
                for (const auto& g : parts_)
                    if (f.why.empty() && !g.why.empty() && &f != &g && !g.instantiation &&
                        !g.name.empty() &&
                        (f.instantiation ? (f.name == g.name || f.name == g.qualifier)
                                         : calls(f.body, g.name))) {
                        f.why =
                            (f.instantiation ? "instantiates " : "calls ") + g.name + ", left out";
                        changed = true;
                    }
        }
        std::sort(parts_.begin(), parts_.end(),
                  [](const Part& a, const Part& b) { return a.start < b.start; });
        for (const auto& f : parts_) {
            if (f.why.empty())
                continue;
            out_.left_out.push_back(f.label + " (line " + std::to_string(line_of(text_, f.start)) +
                                    ", " + f.why + ")");
            for (std::size_t k = f.start; k <= f.end; ++k)
                if (out_.text[k] != '\n')
                    out_.text[k] = ' ';
        }
    }

  private:
    // A host function or an explicit instantiation: what it names, and why it is left out
    // (empty: kept, unless it calls or instantiates what is left out).
    struct Part {
        std::size_t start = 0, end = 0; // its first and last character
        std::string label, name, qualifier, body, why;
        bool instantiation = false;
    };

    // The first character of what starts at `start`: comments and preprocessor lines before
    // it (blank in the masked text) belong to what comes before, and #defines stay.
    std::size_t first_token(std::size_t start, std::size_t end) const {
        while (start < end && std::isspace(static_cast<unsigned char>(m_[start])))
            ++start;
        return start;
    }

    void function(std::size_t start, const std::string& head, std::size_t open, std::size_t close) {
        if (has_word(head, "__global__") || has_word(head, "__device__"))
            return;
        const FunctionName fn = function_name(head);
        const std::string body = m_.substr(open, close + 1 - open);
        const char* why = fn.name == "main"                       ? "main"
                          : body.find("<<<") != std::string::npos ? "launches with <<<>>>"
                          : has_word(head, "__host__")            ? "__host__"
                          : calls_host_api(body)                  ? "calls the host API"
                          : uses_std(body)                        ? "uses the C++ standard library"
                          : makes_device_lambda(body)
                              ? "makes a __device__ lambda: nvcc's --extended-lambda, not in NVRTC"
                              : "";
        parts_.push_back({first_token(start, open), close,
                          fn.name.empty() ? std::string("a function") : fn.name, fn.name,
                          fn.qualifier, body, why, false});
    }

    // `template class X<float>;` or `template void f<int>(int);`: an explicit instantiation,
    // left out with the template it instantiates.
    void instantiation(std::size_t head_start, std::size_t semicolon) {
        const std::size_t start = first_token(head_start, semicolon);
        if (m_.compare(start, 8, "template") != 0 ||
            (start + 8 < m_.size() && ident_char(m_[start + 8])))
            return;
        std::size_t k = first_token(start + 8, semicolon);
        if (k >= semicolon || m_[k] == '<')
            return; // a template declaration, not an instantiation
        const std::string stmt = m_.substr(start, semicolon - start);
        std::string name;
        if (has_word(stmt, "class") || has_word(stmt, "struct")) {
            std::size_t e = stmt.find('<');
            e = e == std::string::npos ? stmt.size() : e;
            name = identifier_before(stmt, e);
        } else {
            name = function_name(stmt).name;
        }
        std::string label = text_.substr(start, std::min(semicolon, m_.find('(', start)) - start);
        std::replace(label.begin(), label.end(), '\n', ' ');
        while (!label.empty() && std::isspace(static_cast<unsigned char>(label.back())))
            label.pop_back();
        parts_.push_back({start, semicolon, label.substr(0, 80), name, {}, {}, {}, true});
    }

    const std::string& text_;
    const std::string m_;
    DeviceCode& out_;
    std::vector<Part> parts_;
};

} // namespace

DeviceCode device_code(const std::string& source, const std::vector<std::string>& include_dirs,
                       const std::vector<std::string>& header_names) {
    DeviceCode out{source, {}};
    Scanner scanner(source, out);
    scanner.scope(0, source.size());
    scanner.finish();
    drop_includes(out, include_dirs, header_names);
    return out;
}

} // namespace duet::cuda
