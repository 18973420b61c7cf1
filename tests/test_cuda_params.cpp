// The CUDA plugin's parameter count from a kernel's source (cuda_param_count.hpp), what its
// launch checks use where the driver has no cuKernelGetParamCount: counted only when sure, so a
// count is never short of the kernel's (a short one would refuse its correct launches) and no
// query past the last parameter is made (compute-sanitizer reports those). No GPU needed.
#include <doctest/doctest.h>

#include <string>

#include "cuda_param_count.hpp"

using duet::cuda::params_in_source;

TEST_CASE("cuda: parameter counts from the source, only where sure") {
    const std::string text =
        "template <class T> __global__ void dot(const T* x, // the values\n"
        "    int n /* their count */, Pair<int, float> p) {}\n"
        "__device__ int helper(int a, int b);\n"
        "extern \"C\" __global__ void __launch_bounds__(256, 1) CLUSTER\n"
        "    wide(const __grid_constant__ Map m, float* __restrict__ c, int M, int N) {\n"
        "    helper(M, N);\n}\n"
        "extern \"C\" __global__ void none() {}\n"
        "extern \"C\" __global__ void nothing(void) {}\n"
        "#define PARAMS int a, int b\n"
        "extern \"C\" __global__ void macro(PARAMS) {}\n"
        "extern \"C\" __global__ void varargs(int a, ...) {}\n"
        "extern \"C\" __global__ void split(int a,\n#if X\n int b,\n#endif\n int c) {}\n";
    CHECK(params_in_source(text, "dot<double>") == 3); // a comment and a template's comma
    CHECK(params_in_source(text, "wide") == 4);        // attributes and a macro before the name
    CHECK(params_in_source(text, "none") == 0);
    CHECK(params_in_source(text, "nothing") == 0);
    CHECK_FALSE(params_in_source(text, "helper")); // not a kernel
    CHECK_FALSE(params_in_source(text, "macro"));  // a macro may be several parameters
    CHECK_FALSE(params_in_source(text, "varargs"));
    CHECK_FALSE(params_in_source(text, "split")); // a preprocessor line inside
    CHECK_FALSE(params_in_source(text, "missing"));
    CHECK_FALSE(params_in_source("__global__ void open(int a,", "open")); // never closed
}
