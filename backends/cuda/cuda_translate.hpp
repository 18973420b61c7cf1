// The dialect table's translations the CUDA backend implements (CudaDevice::takes): OpenCL C
// through NVRTC, with kernels_cu/duet_opencl_c.cuh included first (every __kernel becomes an
// extern "C" __global__ function, so it is found by its plain name). Apart from cuda_build.cpp
// so that a test can compile translated texts exactly as the plugin does, without a GPU.
#pragma once

#include <string>

#include <duet/dialect.hpp>
#include <duet/error.hpp>

namespace duet::cuda {

inline constexpr const char* opencl_c_on_nvrtc = "opencl-c-on-nvrtc";

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
           with_vector_literals(text);
}

} // namespace duet::cuda
