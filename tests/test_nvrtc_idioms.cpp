// CUDA C++ as people write it, compiled through the CUDA plugin's own NVRTC path (the options
// and name expressions cuda_build.cpp gives NVRTC, cuda_nvrtc_args.hpp) where there is no GPU:
// templates and namespaces are lowered to the symbols a load looks up, each of which is in the
// machine code; an app's -std replaces Duet's; a name the source lacks is a build error that
// says so. Skipped (with the reason) where NVRTC cannot be opened.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_args.hpp"
#include "cuda_nvrtc_host_code.hpp"
#include "cuda_nvrtc_toolkit.hpp"
#include "idiom_kernels.hpp"
#include "value_kernels.hpp"

namespace {

const duet::cuda::Nvrtc* nvrtc() {
    try {
        return &duet::cuda::Nvrtc::instance();
    } catch (const duet::Error& e) {
        MESSAGE("NVRTC not found, checks skipped: " << e.what());
        return nullptr;
    }
}

// Compiles the idioms source as the plugin would to load `name` with `options`.
duet::cuda::NvrtcOutput build(const duet::cuda::Nvrtc& nv, const std::string& source,
                              const std::string& name, const duet::BuildOptions& options) {
    return nv.compile(source, "idioms.cu", duet::cuda::nvrtc_headers(),
                      duet::cuda::nvrtc_build_flags("sm_90", options), true, "building " + name,
                      duet::cuda::nvrtc_name_expressions(name, options, source));
}

bool image_has(const std::vector<unsigned char>& image, const std::string& symbol) {
    return std::string(image.begin(), image.end()).find(symbol) != std::string::npos;
}

} // namespace

TEST_CASE("nvrtc idioms: templates, namespaces, functors and lambdas by their C++ names") {
    const auto* nv = nvrtc();
    if (!nv)
        return;
    duet::BuildOptions o;
    o.instantiations = {idioms::triad_float, idioms::triad_double, idioms::dot_float,
                        idioms::map_scale};
    o.cuda_options = {"-lineinfo"};
    const auto out = build(*nv, idioms::cuda_source, idioms::fill_iota, o);
    REQUIRE(out.lowered_names.size() == 5);
    for (const auto& [expression, symbol] : out.lowered_names) {
        INFO(expression << " -> " << symbol);
        CHECK(symbol.rfind("_Z", 0) == 0); // a C++ (mangled) name
        CHECK(image_has(out.image, symbol));
    }
    // Every instantiation asked for, whichever of them is loaded: one build serves them all.
    CHECK(duet::cuda::nvrtc_name_expressions(idioms::dot_float, o, idioms::cuda_source) ==
          duet::cuda::nvrtc_name_expressions(idioms::triad_double, o, idioms::cuda_source));
}

TEST_CASE("nvrtc idioms: the options NVRTC is given") {
    duet::BuildOptions o;
    o.defines = {{"N", "4"}};
    o.cuda_options = {"-std=c++20", "-lineinfo"};
    const auto flags = duet::cuda::nvrtc_build_flags("sm_90", o);
    const std::vector<std::string> expected{"-default-device", "-arch=sm_90", "-DDUET_CUDA=1",
                                            "-DN=4",           "-std=c++20",  "-lineinfo"};
    CHECK(flags == expected);
    CHECK(duet::cuda::nvrtc_build_flags("sm_90", {}).front() == "-std=c++17");
    // extern "C" kernels are found by their plain name: nothing to lower, Duet's own kernels'
    // builds stay one per file.
    CHECK(duet::cuda::nvrtc_name_expressions("scale", {},
                                             "extern \"C\" __global__ void scale(float* x) {}")
              .empty());
    const auto* nv = nvrtc();
    if (!nv)
        return;
    const auto out = build(*nv, idioms::cuda_source, idioms::triad_float, o);
    CHECK(out.log.find("followed by") == std::string::npos); // one -std, no warning
}

TEST_CASE("nvrtc idioms: the target architecture an app chooses") {
    duet::BuildOptions o;
    CHECK(duet::cuda::requested_arch(o).empty()); // Duet's choice
    o.compiler_options["cuda-c++"] = {"-arch=native"};
    CHECK(duet::cuda::requested_arch(o).empty());
    o.compiler_options["cuda-c++"] = {"-lineinfo", "--gpu-architecture=sm_80"};
    CHECK(duet::cuda::requested_arch(o) == "sm_80");
    // Duet's flags carry the resolved target once; the app's spelling is not passed again.
    const auto flags = duet::cuda::nvrtc_build_flags("sm_80", o);
    CHECK(std::count_if(flags.begin(), flags.end(), [](const std::string& f) {
              return f.find("arch") != std::string::npos;
          }) == 1);
    CHECK(std::find(flags.begin(), flags.end(), "-arch=sm_80") != flags.end());
    // What a GPU runs: machine code of its major from an older minor, PTX of any older one,
    // an architecture-specific target only on its own.
    CHECK(duet::cuda::arch_problem("sm_80", 8, 6).empty());
    CHECK(duet::cuda::arch_problem("sm_86", 8, 6).empty());
    CHECK(duet::cuda::arch_problem("compute_75", 9, 0).empty());
    CHECK(duet::cuda::arch_problem("compute_90", 9, 0).empty());
    CHECK(duet::cuda::arch_problem("sm_90a", 9, 0).empty());
    CHECK(duet::cuda::arch_problem("sm_100", 10, 0).empty());
    const std::string newer = duet::cuda::arch_problem("sm_86", 8, 0);
    INFO(newer);
    CHECK(newer.find("this GPU is 8.0") != std::string::npos);
    CHECK(newer.find("choose sm_80") != std::string::npos);
    CHECK(!duet::cuda::arch_problem("sm_80", 9, 0).empty()); // another major's machine code
    CHECK(!duet::cuda::arch_problem("compute_100", 9, 0).empty());
    CHECK(duet::cuda::arch_problem("sm_90a", 10, 0).find("runs only on compute capability 9.0") !=
          std::string::npos);
    const auto* nv = nvrtc();
    if (!nv)
        return;
    // NVRTC builds what was chosen: PTX for compute_NN, machine code for sm_NN.
    o.compiler_options["cuda-c++"] = {"-arch=compute_80"};
    const auto ptx = nv->compile(
        idioms::cuda_source, "idioms.cu", duet::cuda::nvrtc_headers(),
        duet::cuda::nvrtc_build_flags("compute_80", o), false, "building for compute_80",
        duet::cuda::nvrtc_name_expressions(idioms::triad_float, o, idioms::cuda_source));
    CHECK(std::string(ptx.image.begin(), ptx.image.end()).find(".target sm_80") !=
          std::string::npos);
}

TEST_CASE("nvrtc idioms: a name expression the source does not define is a build error") {
    const auto* nv = nvrtc();
    if (!nv)
        return;
    duet::BuildOptions o;
    o.instantiations = {"streamlike::missing_kernel<float>"};
    try {
        build(*nv, idioms::cuda_source, idioms::triad_float, o);
        FAIL("an undefinable instantiation compiled");
    } catch (const duet::Error& e) {
        CHECK(e.kind() == duet::ErrorKind::build);
        CHECK(std::string(e.what()).find("building streamlike::triad_kernel<float>") !=
              std::string::npos);
    }
}

TEST_CASE("nvrtc idioms: structs by value and a functor of device pointers compile as written") {
    const auto* nv = nvrtc();
    if (!nv)
        return;
    duet::BuildOptions o;
    o.defines = {{"LARGE", "200"}};
    o.instantiations = {value_kernels::for_each_triad};
    const auto out =
        nv->compile(value_kernels::cuda_source, "values.cu", duet::cuda::nvrtc_headers(),
                    duet::cuda::nvrtc_build_flags("sm_90", o), true, "values",
                    duet::cuda::nvrtc_name_expressions("weigh", o, value_kernels::cuda_source));
    REQUIRE(out.lowered_names.size() == 1);
    CHECK(image_has(out.image, out.lowered_names[0].second));
    for (const char* k : {"weigh", "large_sum", "pair_twice"})
        CHECK(image_has(out.image, k));
}

TEST_CASE("nvrtc idioms: the toolkit's headers (cooperative groups, CUB) are found and key the "
          "build") {
    const auto* nv = nvrtc();
    if (!nv)
        return;
    const auto dirs = duet::cuda::toolkit_include_dirs(nv->path());
    if (dirs.empty()) {
        MESSAGE("no CUDA toolkit headers beside " << nv->path() << ": checks skipped");
        return;
    }
    const std::string source = R"(
#include <cooperative_groups.h>
#include <cub/block/block_reduce.cuh>
namespace cg = cooperative_groups;
template <unsigned Block> __global__ void block_sum(const float* in, float* out) {
    cg::thread_block cta = cg::this_thread_block();
    using Reduce = cub::BlockReduce<float, Block>;
    __shared__ typename Reduce::TempStorage tmp;
    const float s = Reduce(tmp).Sum(in[blockIdx.x * Block + threadIdx.x]);
    cg::sync(cta);
    if (threadIdx.x == 0) out[blockIdx.x] = s;
}
)";
    duet::BuildOptions o;
    o.instantiations = {"block_sum<256>"};
    const auto out =
        nv->compile(source, "toolkit.cu", duet::cuda::nvrtc_headers(),
                    duet::cuda::nvrtc_build_flags("sm_90", o, dirs), true, "toolkit headers",
                    duet::cuda::nvrtc_name_expressions("block_sum<256>", o, source));
    REQUIRE(out.lowered_names.size() == 1);
    CHECK(image_has(out.image, out.lowered_names[0].second));
    // The digest covers the files included, directly and through each other; none: empty.
    const std::string digest = duet::cuda::toolkit_headers_digest(source, dirs);
    MESSAGE(digest);
    CHECK(digest.rfind("toolkit headers ", 0) == 0);
    CHECK(std::stoi(digest.substr(16)) > 10); // CUB's block reduce pulls in many headers
    CHECK(duet::cuda::toolkit_headers_digest("__global__ void k() {}", dirs).empty());
    CHECK(duet::cuda::toolkit_headers_digest(source, dirs) == digest);
}

namespace {
// A .cu file as a vendor sample has it: kernels, then the host code that runs them.
const char* const sample_with_host = R"(#include <stdio.h>
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;

/* a comment with a brace { and <<< in it */
struct Params { int n; float s; };

__device__ float twice(float x) { return 2.0f * x; }

namespace sample {
template <class T> __global__ void scale(T* x, Params p) {
    cg::thread_block cta = cg::this_thread_block();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) x[i] = p.s * twice(x[i]);
    cg::sync(cta);
}
template <class T> void run(T* d, Params p) {
    sample::scale<T><<<(p.n + 255) / 256, 256>>>(d, p);
}
}

void check(int code, const char* what) {
    if (code != 0) { fprintf(stderr, "%s failed\n", what); exit(1); }
}

int main(int argc, char** argv) {
    std::vector<float> host(1000, 1.0f);
    float* d = nullptr;
    check(cudaMalloc(&d, 4000), "cudaMalloc");
    sample::run(d, Params{1000, 3.0f});
    printf("done '{'\n");
    return 0;
}
)";
} // namespace

TEST_CASE("nvrtc idioms: a .cu file with host code loads its kernels; what was left out is said") {
    const std::vector<std::string> dirs = {"/nonexistent"};
    const auto dc = duet::cuda::device_code(sample_with_host, dirs, {"duet_cuda.cuh"});
    std::string left;
    for (const auto& l : dc.left_out)
        left += l + "; ";
    MESSAGE(left);
    CHECK(left.find("#include <stdio.h> (line 1)") != std::string::npos);
    CHECK(left.find("#include <vector> (line 3)") != std::string::npos);
    CHECK(left.find("run (line 18, launches with <<<>>>)") != std::string::npos);
    CHECK(left.find("check (line 23, calls the host API)") != std::string::npos);
    CHECK(left.find("main (line 27, main)") != std::string::npos);
    CHECK(dc.left_out.size() == 6); // and <cooperative_groups.h>, not in /nonexistent
    CHECK(std::count(dc.text.begin(), dc.text.end(), '\n') ==
          std::count(sample_with_host, sample_with_host + std::strlen(sample_with_host), '\n'));
    CHECK(dc.text.find("__global__ void scale") != std::string::npos);
    CHECK(dc.text.find("__device__ float twice") != std::string::npos);
    CHECK(dc.text.find("struct Params") != std::string::npos);
    // Files with no host code come back as they are.
    for (const char* s : {idioms::cuda_source, value_kernels::cuda_source}) {
        const auto same = duet::cuda::device_code(s, dirs, {"duet_cuda.cuh"});
        CHECK(same.text == s);
        CHECK(same.left_out.empty());
    }

    const auto* nv = nvrtc();
    if (!nv)
        return;
    const auto toolkit = duet::cuda::toolkit_include_dirs(nv->path());
    if (toolkit.empty())
        return;
    duet::BuildOptions o;
    o.instantiations = {"sample::scale<float>"};
    const auto out = nv->compile(
        sample_with_host, "sample.cu", duet::cuda::nvrtc_headers(),
        duet::cuda::nvrtc_build_flags("sm_90", o, toolkit), true, "sample",
        duet::cuda::nvrtc_name_expressions("sample::scale<float>", o, sample_with_host));
    REQUIRE(out.lowered_names.size() == 1);
    CHECK(image_has(out.image, out.lowered_names[0].second));
    CHECK(out.log.find("left out of sample.cu: run (line 18") != std::string::npos);
    CHECK(out.log.find("#include <stdio.h> (line 1)") != std::string::npos);
    CHECK(out.log.find("<cooperative_groups.h>") == std::string::npos); // found in the toolkit
}
