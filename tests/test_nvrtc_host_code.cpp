// A .cu file as real programs have it, shaped like a bandwidth benchmark's CUDA version: a
// quoted host header beside it, a class whose members make nvcc --extended-lambda closures and
// launch a template kernel over them, helpers that call the CUDA runtime, and explicit
// instantiations of the class and of a host template. What NVRTC cannot compile is left out
// (and said, by name and line), the kernels stay, #defines between host functions stay, and the
// file with a functor appended builds the kernel over it (no GPU needed; skipped without NVRTC).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_args.hpp"
#include "cuda_nvrtc_host_code.hpp"
#include "cuda_nvrtc_toolkit.hpp"

namespace {

const char* const stream_like = R"(// header comment
#include "Stream.h"
#include <nvml.h>

#define UNROLL 4

inline void fail(const char* what) {
  fprintf(stderr, "%s\n", what);
  exit(1);
}

#define CHECK(x) do { if ((x) != 0) fail(#x); } while (0)

template <typename T> T* alloc(long n) { T* p; CHECK(cudaMalloc(&p, n * sizeof(T))); return p; }
template <typename T> void release(T* p) { cudaFree(p); }

template <typename F> __global__ void for_each_kernel(size_t n, F f) {
  for (size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    f(i);
}

template <typename F> void for_each(size_t n, F f) {
  for_each_kernel<<<(n + 255) / 256, 256>>>(n, f);
}

template <class T> Stream<T>::Stream(long n) : n_(n) { a_ = alloc<T>(n); c_ = alloc<T>(n); }

template <class T> Stream<T>::~Stream() { release(a_); release(c_); }

template <class T> void Stream<T>::copy() {
  for_each(n_, [a = a_, c = c_] __device__ (size_t i) { c[i] = a[i]; });
}

template <class T> void Stream<T>::touch() { copy(); }

template <class T> __global__ void scale_kernel(T* x, T s, size_t n) {
  size_t i = threadIdx.x + (size_t)blockDim.x * blockIdx.x;
  if (i < n) x[i] *= s * UNROLL;
}

template <class T> void scale(T* x, T s, size_t n) { scale_kernel<<<1, 256>>>(x, s, n); }

template class Stream<float>;
template void scale<float>(float* x, float s, size_t n);
)";

const char* const functor = R"(
template <class T> struct Copy {
  T* a;
  T* c;
  __device__ void operator()(size_t i) const { c[i] = a[i]; }
};
)";

bool has(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

} // namespace

TEST_CASE("nvrtc host code: a benchmark's .cu with closures made in host code") {
    const auto dc = duet::cuda::device_code(stream_like, {"/nonexistent"}, {"duet_cuda.cuh"});
    std::string left;
    for (const auto& l : dc.left_out)
        left += l + "; ";
    MESSAGE(left);
    CHECK(has(left, "#include \"Stream.h\" (line 2)"));
    CHECK(has(left, "#include <nvml.h> (line 3)"));
    CHECK(has(left, "fail (line 7, calls the host API)"));
    CHECK(has(left, "alloc (line 14, calls the host API)"));
    CHECK(has(left, "for_each (line 22, launches with <<<>>>)"));
    CHECK(has(left, "Stream (line 26, calls alloc, left out)")); // not its initialiser n_
    CHECK(has(left, "~Stream (line 28, calls release, left out)"));
    CHECK(has(left, "copy (line 30, makes a __device__ lambda"));
    CHECK(has(left, "touch (line 34, calls copy, left out)"));
    CHECK(has(left, "template class Stream<float> (line 43, instantiates Stream, left out)"));
    CHECK(has(left, "template void scale<float> (line 44, instantiates scale, left out)"));
    // What stays: the kernels, the #defines between host functions, and the line numbers.
    CHECK(has(dc.text, "#define UNROLL 4"));
    CHECK(has(dc.text, "#define CHECK(x)"));
    CHECK(has(dc.text, "__global__ void for_each_kernel"));
    CHECK(has(dc.text, "__global__ void scale_kernel"));
    CHECK(!has(dc.text, "__device__ (size_t i)"));
    CHECK(std::count(dc.text.begin(), dc.text.end(), '\n') ==
          std::count(stream_like, stream_like + std::string(stream_like).size(), '\n'));

    const duet::cuda::Nvrtc* nv = nullptr;
    try {
        nv = &duet::cuda::Nvrtc::instance();
    } catch (const duet::Error& e) {
        MESSAGE("NVRTC not found, build skipped: " << e.what());
        return;
    }
    const std::string source = std::string(stream_like) + functor;
    duet::BuildOptions o;
    o.instantiations = {"for_each_kernel<Copy<float>>", "scale_kernel<float>"};
    const auto out = nv->compile(
        source, "stream.cu", duet::cuda::nvrtc_headers(),
        duet::cuda::nvrtc_build_flags("sm_90", o, duet::cuda::toolkit_include_dirs(nv->path())),
        true, "stream", duet::cuda::nvrtc_name_expressions(o.instantiations[0], o, source));
    CHECK(out.lowered_names.size() == 2);
    CHECK(has(out.log, "left out of stream.cu: "));
}
