// See babelstream_kernels.hpp.
#include "babelstream_kernels.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "upstream_text.hpp"

extern const char* const duet_babelstream_closures; // babelstream_closures.cuh, embedded

namespace ports {

namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) {
    return (a + b - 1) / b;
}

bool declares(const duet::Kernel& k, const std::string& name) {
    const auto& p = k.declaration().parameter_names;
    return std::find(p.begin(), p.end(), name) != p.end();
}

} // namespace

BabelStream read_babelstream(const std::string& dir) {
    BabelStream up;
    const std::string cu = dir + "/src/cuda/CUDAStream.cu", h = dir + "/src/cuda/CUDAStream.h",
                      cl = dir + "/src/ocl/OCLStream.cpp", s = dir + "/src/Stream.h";
    const std::string cu_file = read_text(cu), header = read_text(h), stream = read_text(s);
    up.cu_text = cu_file + "\n" + duet_babelstream_closures;
    up.cu_origin = cu + " + babelstream_closures.cuh";
    up.cl_text = raw_string_literal(read_text(cl), cl);
    up.cl_origin = cl + " (its kernel string)";
    up.tbsize = std::stoul(macro_value(header, "TBSIZE", h));
    up.tbsize_dot = std::stoul(macro_value(header, "TBSIZE_DOT", h));
    up.unroll = std::stoul(macro_value(cu_file, "UNROLL_FACTOR", cu));
    up.start_a = std::stod(macro_value(stream, "startA", s));
    up.start_b = std::stod(macro_value(stream, "startB", s));
    up.start_c = std::stod(macro_value(stream, "startC", s));
    up.scalar_text = macro_value(stream, "startScalar", s);
    up.scalar = std::stod(up.scalar_text);
    return up;
}

duet::BuildOptions stream_options(const BabelStream& up, bool is_float,
                                  const std::string& cl_kernel, const std::string& cu_kernel) {
    const std::string t = is_float ? "float" : "double";
    duet::BuildOptions o;
    o.sources.add("opencl-c", up.cl_text, cl_kernel, up.cl_origin);
    o.sources.add("cuda-c++", up.cu_text, cu_kernel, up.cu_origin);
    o.defines = {{"TYPE", t},
                 {"startScalar", up.scalar_text},
                 {"GRID_STRIDE", "1"},
                 {"UNROLL_FACTOR", std::to_string(up.unroll)},
                 {"TBSIZE_DOT", std::to_string(up.tbsize_dot)}};
    for (const char* f : {"Init", "Copy", "Mul", "Add", "Triad", "Nstream"})
        o.instantiations.push_back("for_each_kernel<" + std::string(f) + "<" + t + ">>");
    o.instantiations.push_back("dot_kernel<" + t + ">");
    return o;
}

std::vector<duet::NamedArg> bind(const duet::Kernel& k, const ArgPool& pool) {
    std::vector<duet::NamedArg> out;
    for (const auto& p : k.declaration().parameter_names) {
        const auto it = pool.find(p);
        if (it == pool.end()) {
            std::fprintf(stderr, "error: %s has a parameter '%s' the port has no value for\n",
                         k.declaration().signature().c_str(), p.c_str());
            std::exit(3);
        }
        out.push_back({p, it->second});
    }
    return out;
}

duet::Range stream_range(const duet::Kernel& k, std::size_t n, const BabelStream& up) {
    if (!declares(k, "f"))
        return duet::Range(n).driver_local();
    const std::size_t group = std::min(up.tbsize, k.suggested_group_size());
    const std::size_t blocks = ceil_div(n / up.unroll, group);
    return duet::Range(blocks * up.tbsize).local(up.tbsize);
}

DotShape dot_shape(const duet::Device& dev, const duet::Kernel& k, const BabelStream& up) {
    const auto& info = dev.info();
    const std::size_t units = static_cast<std::size_t>(std::max(1, info.compute_units));
    if (info.is_cpu())
        return {units, static_cast<std::size_t>(std::max(1, info.native_vector_width.f64)) * 2};
    const std::size_t group =
        std::min({info.max_work_group_size, k.max_work_group_size(), up.tbsize_dot});
    return {units * 4, group};
}

} // namespace ports
