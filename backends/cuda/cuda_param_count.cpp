// A CUDA kernel's parameter count without a failing call (cuda_param_count.hpp).
#include "cuda_param_count.hpp"

#include <cctype>
#include <string_view>
#include <vector>

namespace duet::cuda {

namespace {

bool is_word(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// The driver's cuKernelGetParamCount (newer drivers than CUDA 13.0's headers know), or null. The
// request names the driver's own version: a symbol it lacks comes back null with cudaSuccess.
using ParamCount = int (*)(cudaKernel_t, std::size_t*);
ParamCount driver_param_count() {
    static const ParamCount fn = [] {
        int version = 0;
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        if (cudaDriverGetVersion(&version) != cudaSuccess || version <= 0 ||
            cudaGetDriverEntryPointByVersion("cuKernelGetParamCount", &p,
                                             static_cast<unsigned>(version), cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess)
            p = nullptr;
        return reinterpret_cast<ParamCount>(p);
    }();
    return fn;
}

// Where the parameter list of __global__ function `base` opens in `text` (its '('), or npos.
std::size_t list_of(const std::string& text, const std::string& base) {
    for (std::size_t at = text.find(base); at != std::string::npos; at = text.find(base, at + 1)) {
        const std::size_t end = at + base.size();
        if ((at > 0 && is_word(text[at - 1])) || (end < text.size() && is_word(text[end])))
            continue;
        std::size_t p = end;
        while (p < text.size() && std::isspace(static_cast<unsigned char>(text[p])))
            ++p;
        if (p >= text.size() || text[p] != '(')
            continue;
        // The declaration it belongs to: back to the previous statement or block.
        const std::size_t start = text.find_last_of(";{}", at);
        const std::string_view head(text.data() + (start == std::string::npos ? 0 : start + 1),
                                    at - (start == std::string::npos ? 0 : start + 1));
        if (head.find("__global__") != std::string_view::npos)
            return p;
    }
    return std::string::npos;
}

// Whether one parameter's text ("const float* __restrict__ x") is countable: two words or more,
// or a word and a declarator ('*', '&').
bool plain_parameter(std::string_view p) {
    int words = 0;
    bool declarator = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (is_word(p[i]) && (i == 0 || !is_word(p[i - 1])))
            ++words;
        declarator = declarator || p[i] == '*' || p[i] == '&';
    }
    return words >= 2 || (words == 1 && declarator);
}

} // namespace

std::optional<std::size_t> kernel_param_count(cudaKernel_t kernel,
                                              std::optional<std::size_t> declared) {
    if (const ParamCount fn = driver_param_count()) {
        std::size_t count = 0;
        if (fn(kernel, &count) == 0) // CUDA_SUCCESS
            return count;
    }
    return declared;
}

std::optional<std::size_t> params_in_source(const std::string& text, const std::string& name) {
    const std::string base = name.substr(0, name.find('<'));
    if (base.empty())
        return std::nullopt;
    const std::size_t open = list_of(text, base);
    if (open == std::string::npos)
        return std::nullopt;
    std::vector<std::string> params{""};
    int depth = 0; // (), <> and [] inside the list
    for (std::size_t i = open + 1;; ++i) {
        if (i >= text.size())
            return std::nullopt; // never closed
        const char c = text[i];
        if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
            const bool line = text[i + 1] == '/'; // a comment: skipped, a space in its place
            i = text.find(line ? "\n" : "*/", i + 2);
            if (i == std::string::npos)
                return std::nullopt;
            i += line ? 0 : 1;
            params.back() += ' ';
            continue;
        }
        if (c == '#' || c == '{' || c == ';')
            return std::nullopt; // a preprocessor line inside, or not a list: not counted
        if (c == '(' || c == '<' || c == '[')
            ++depth;
        else if ((c == ')' || c == '>' || c == ']') && depth > 0)
            --depth;
        else if (c == ')')
            break;
        else if (c == ',' && depth == 0) {
            params.emplace_back();
            continue;
        }
        params.back() += c;
    }
    if (params.size() == 1) { // "()" or "(void)": none
        std::string_view only = params.front();
        while (!only.empty() && std::isspace(static_cast<unsigned char>(only.front())))
            only.remove_prefix(1);
        while (!only.empty() && std::isspace(static_cast<unsigned char>(only.back())))
            only.remove_suffix(1);
        if (only.empty() || only == "void")
            return 0;
    }
    for (const auto& p : params)
        if (p.find("...") != std::string::npos || !plain_parameter(p))
            return std::nullopt;
    return params.size();
}

} // namespace duet::cuda
