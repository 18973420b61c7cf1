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
    return "#include \"duet_opencl_c.cuh\"\n#line 1 \"" + quoted + "\"\n" + text;
}

} // namespace duet::cuda
