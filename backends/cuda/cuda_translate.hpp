// The dialect table's translations the CUDA backend implements (CudaDevice::takes): OpenCL C
// through NVRTC, with kernels_cu/duet_opencl_c.cuh included first (every __kernel becomes an
// extern "C" __global__ function, so it is found by its plain name). Apart from cuda_build.cpp
// so that a test can compile translated texts exactly as the plugin does, without a GPU.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

#include <duet/dialect.hpp>
#include <duet/error.hpp>

namespace duet::cuda {

inline constexpr const char* opencl_c_on_nvrtc = "opencl-c-on-nvrtc";

// A character of a C identifier (or of a number: the translations skip both alike).
inline bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
// True when `word` stands at `at` of `text` as a whole word.
inline bool word_at(const std::string& text, std::size_t at, const std::string& word) {
    const std::size_t end = at + word.size();
    return text.compare(at, word.size(), word) == 0 && (at == 0 || !ident_char(text[at - 1])) &&
           (end >= text.size() || !ident_char(text[end]));
}

// OpenCL C's vector literals, (float4)(a, b, c, d) and (float4)(s), as calls of the header's
// duet_ocl_make_float4(...) (kernels_cu/duet_opencl_c.cuh), for float, int and uint vectors of 2
// and 4: a C++ cast of a parenthesised list would be a comma expression. Lines stay as they are,
// so NVRTC's messages point at the kernel's own lines.
inline std::string with_vector_literals(const std::string& text) {
    static const char* const types[] = {"float2", "float4", "int2", "int4", "uint2", "uint4"};
    const auto skip_space = [&](std::size_t i) {
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
            ++i;
        return i;
    };
    // The literal's opening "(" at `i` ("(float4)(" or "( float4 ) ("): the type and the
    // position of the list's "(", or nullptr.
    const auto literal_at = [&](std::size_t i, std::size_t& list) -> const char* {
        const std::size_t t = skip_space(i + 1);
        for (const char* type : types) {
            const std::size_t n = std::char_traits<char>::length(type);
            const std::size_t close = skip_space(t + n);
            if (text.compare(t, n, type) != 0 || close >= text.size() || text[close] != ')')
                continue;
            list = skip_space(close + 1);
            if (list < text.size() && text[list] == '(')
                return type;
        }
        return nullptr;
    };
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        std::size_t list = 0;
        const char* type = text[i] == '(' ? literal_at(i, list) : nullptr;
        if (!type) {
            out += text[i];
            continue;
        }
        out += std::string("duet_ocl_make_") + type;
        i = list - 1; // the list's "(" is copied next
    }
    return out;
}

// OpenCL C's pointers to local memory (`__local float* p`, `(__local const float4*)q`,
// `__local float (*rows)[33]`) as
// plain pointers: CUDA addresses shared memory through generic pointers, and __shared__ (what
// the header makes of __local, for the arrays a kernel declares) applies to no pointer. The
// keyword becomes spaces, so columns and lines stay.
inline std::string without_local_pointers(std::string text) {
    for (const std::string word : {"__local", "local"}) {
        for (std::size_t at = text.find(word); at != std::string::npos;
             at = text.find(word, at + 1)) {
            if (!word_at(text, at, word))
                continue;
            // Up to four words (qualifiers, the type) and then '*': a pointer declaration.
            std::size_t i = at + word.size();
            int words = 0;
            for (; words < 4; ++words) {
                while (i < text.size() && (text[i] == ' ' || text[i] == '\t'))
                    ++i;
                const std::size_t w = i;
                while (i < text.size() && ident_char(text[i]))
                    ++i;
                if (i == w)
                    break;
            }
            // A pointer to an array: `__local float (*tile)[33]`.
            std::size_t star = i;
            if (star < text.size() && text[star] == '(')
                while (++star < text.size() && (text[star] == ' ' || text[star] == '\t'))
                    ;
            if (words > 0 && star < text.size() && text[star] == '*')
                text.replace(at, word.size(), std::string(word.size(), ' '));
        }
    }
    return text;
}

// A kernel's parameter of local memory (`__local float* sdata`, the group's memory the host
// sizes with duet::local) as CUDA has it: the block's dynamic shared memory, one extern
// __shared__ array that the launch sizes and no parameter carries. The parameter leaves the list
// (spaces, newlines kept) and the body opens with it as a pointer to that array. A kernel with
// two such parameters is a build Error: one array has no room for the second's offset.
inline std::string with_local_parameters(std::string text, const std::string& origin) {
    const auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i)
            if (text[i] != '\n')
                text[i] = ' ';
    };
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (!word_at(text, k, "__kernel") && !word_at(text, k, "kernel"))
            continue;
        const std::size_t open = text.find('(', k);
        if (open == std::string::npos)
            break;
        std::size_t close = open;
        for (int depth = 0; close < text.size(); ++close)
            if (text[close] == '(')
                ++depth;
            else if (text[close] == ')' && --depth == 0)
                break;
        const std::size_t body = text.find_first_of("{;", close);
        if (close >= text.size() || body == std::string::npos || text[body] != '{')
            continue;
        // Each top-level parameter [from, to): the one of local memory, if any.
        std::string declaration;
        for (std::size_t from = open + 1, to = from; to <= close; ++to) {
            if (to < close && text[to] != ',')
                continue;
            std::size_t l = from;
            while (l < to && std::isspace(static_cast<unsigned char>(text[l])))
                ++l;
            if (word_at(text, l, "__local") || word_at(text, l, "local")) {
                if (!declaration.empty())
                    throw Error(ErrorKind::build, "cuda", "translating OpenCL C", 0, "",
                                origin + ": a kernel takes local memory as two parameters; "
                                         "CUDA gives a block one dynamic shared array: pass one "
                                         "and place the others in it");
                const std::size_t type = text.find_first_of(" \t\n", l);
                declaration = text.substr(type, to - type);
                // The parameter and the comma before it (after it, when it is the first).
                const bool first = from == open + 1;
                blank(first ? from : from - 1, first && to < close ? to + 1 : to);
            }
            from = to + 1;
        }
        if (declaration.empty())
            continue;
        for (char& c : declaration)
            if (c == '\n' || c == '\t')
                c = ' ';
        while (!declaration.empty() && declaration.back() == ' ')
            declaration.pop_back();
        std::size_t name = declaration.size();
        while (name > 0 && ident_char(declaration[name - 1]))
            --name;
        text.insert(body + 1, " extern __shared__ __align__(16) unsigned char duet_ocl_local[]; " +
                                  declaration + " = (" + declaration.substr(0, name) +
                                  ")duet_ocl_local;");
        k = body;
    }
    return text;
}

// OpenCL C's swizzles of two to four of x, y, z, w read from a name or an indexed name
// (`v.yx`, `pb[l].yxwz`) as calls of the header's duet_ocl_swizzle<1, 0, 3, 2>(pb[l]). A
// swizzle written to, or read from another expression, is left as it is and fails in NVRTC.
inline std::string with_swizzles(const std::string& text) {
    std::string out;
    std::size_t copied = 0;
    for (std::size_t dot = text.find('.'); dot != std::string::npos;
         dot = text.find('.', dot + 1)) {
        std::size_t end = dot + 1;
        while (end < text.size() && std::string_view("xyzw").find(text[end]) != std::string::npos)
            ++end;
        const std::size_t n = end - dot - 1;
        if (n < 2 || n > 4 || (end < text.size() && ident_char(text[end])))
            continue;
        // The expression before the dot: [name] followed by any [index] groups.
        std::size_t start = dot;
        while (start > 0 && text[start - 1] == ']') {
            int depth = 0;
            std::size_t i = start - 1;
            for (; i > 0; --i)
                if (text[i] == ']')
                    ++depth;
                else if (text[i] == '[' && --depth == 0)
                    break;
            if (depth != 0)
                break;
            start = i;
        }
        std::size_t name = start;
        while (name > 0 && ident_char(text[name - 1]))
            --name;
        if (name == start || std::isdigit(static_cast<unsigned char>(text[name])) || name < copied)
            continue;
        // Assigned to (`v.xy = ...`, not `==`): left for NVRTC to refuse.
        std::size_t after = end;
        while (after < text.size() && (text[after] == ' ' || text[after] == '\t'))
            ++after;
        if (after < text.size() && text[after] == '=' &&
            (after + 1 >= text.size() || text[after + 1] != '='))
            continue;
        std::string lanes;
        for (std::size_t i = dot + 1; i < end; ++i)
            lanes += std::string(lanes.empty() ? "" : ", ") +
                     std::to_string(std::string_view("xyzw").find(text[i]));
        out.append(text, copied, name - copied);
        out += "duet_ocl_swizzle<" + lanes + ">(" + text.substr(name, dot - name) + ")";
        copied = end;
    }
    return out + text.substr(copied);
}

// The CUDA C++ text NVRTC compiles for `text` taken through `route`; build logs name `origin`.
inline std::string translated_source(const DialectRoute& route, const std::string& text,
                                     const std::string& origin) {
    if (route.translation != opencl_c_on_nvrtc)
        throw Error::runtime("the CUDA backend has no translation named " + route.translation,
                             "cuda");
    std::string quoted;
    for (char c : origin)
        if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20)
            quoted += c;
    return "#include \"duet_opencl_c.cuh\"\n#line 1 \"" + quoted + "\"\n" +
           with_swizzles(
               with_vector_literals(without_local_pointers(with_local_parameters(text, origin))));
}

} // namespace duet::cuda
