// The cuda-c++-via-ptx route's NVRTC way without a device (backends/opencl/opencl_ptx_params.hpp,
// opencl_nvrtc.hpp, opencl_cuda_ptx.hpp): NVRTC's PTX rewritten into NVIDIA OpenCL's form (each
// kernel's pointer parameters `.ptr .global .align A`, scalars unchanged, mangled and template
// entries matched to their CUDA signatures, dynamic shared memory refused), on a hand-written
// sample and on what NVRTC makes here of tests/data/one_text's CUDA kernels; ptxas accepts the
// result for sm_90 where the toolkit is installed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <duet/dialect.hpp>
#include <duet/error.hpp>

#include "opencl_cuda_ptx.hpp"
#include "opencl_nvrtc.hpp"
#include "opencl_ptx_params.hpp"
#include "ptxas_check.hpp"

using namespace duet::opencl;

namespace {

bool has(const std::string& s, const std::string& part) {
    return s.find(part) != std::string::npos;
}

std::vector<duet::KernelDecl> scanned(const std::string& cuda) {
    return duet::scan_kernels(cuda, duet::dialect("cuda-c++"));
}

// The parameter lines of the entry `entry`.
std::string params_of(const std::string& ptx, const std::string& entry) {
    const auto at = ptx.find(".entry " + entry + "(");
    REQUIRE(at != std::string::npos);
    return ptx.substr(at, ptx.find(')', at) - at);
}

// CUDA C++ with an extern "C" kernel, a template kernel, a namespaced overload-free kernel and
// one that uses dynamic shared memory.
const char* cuda_text = R"(
extern "C" __global__ void vecadd(const float* a, const float* __restrict__ b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
template <class T> __global__ void tk(T* p, int n) { p[threadIdx.x] += n; }
namespace ns { __global__ void dot(double2* x, char c) { x[0].x += c; } }
extern __shared__ float dyn[];
__global__ void usesdyn(float* o) { dyn[threadIdx.x] = 1; o[0] = dyn[1]; }
)";

// NVRTC's form of vecadd (CUDA 13, compute_90), by hand.
const char* sample = ".version 9.0\n.target sm_90\n.address_size 64\n\n"
                     ".visible .entry vecadd(\n"
                     "\t.param .u64 vecadd_param_0,\n\t.param .u64 vecadd_param_1,\n"
                     "\t.param .u64 vecadd_param_2,\n\t.param .u32 vecadd_param_3\n)\n{\n"
                     "\tld.param.u64 \t%rd1, [vecadd_param_0];\n\tret;\n}\n";

// The line that declares parameter `p` of `entry`.
std::string param_line(const std::string& ptx, const std::string& entry, std::size_t p) {
    std::istringstream in(params_of(ptx, entry));
    const std::string name = entry + "_param_" + std::to_string(p);
    for (std::string line; std::getline(in, line);) {
        while (!line.empty() && (line.back() == ',' || line.back() == ' '))
            line.pop_back();
        if (line.size() >= name.size() &&
            line.compare(line.size() - name.size(), name.size(), name) == 0)
            return line;
    }
    FAIL("no parameter " << p << " of " << entry);
    return "";
}

} // namespace

TEST_CASE("NVRTC's PTX in NVIDIA OpenCL's form: a hand-written sample") {
    const NvclPtx out = nvcl_form(sample, scanned(cuda_text));
    REQUIRE(out.error.empty());
    CHECK(out.refused.empty());
    CHECK(has(out.ptx, ".target sm_90, texmode_independent\n"));
    const std::string p = params_of(out.ptx, "vecadd");
    CHECK(has(p, ".param .u64 .ptr .global .align 4 vecadd_param_0,"));
    CHECK(has(p, ".param .u64 .ptr .global .align 4 vecadd_param_1,"));
    CHECK(has(p, ".param .u64 .ptr .global .align 4 vecadd_param_2,"));
    CHECK(has(p, "\t.param .u32 vecadd_param_3\n"));               // a scalar stays
    CHECK(has(out.ptx, "ld.param.u64 \t%rd1, [vecadd_param_0];")); // the body is untouched

    // No signature for the entry: refused, not guessed.
    const NvclPtx unknown = nvcl_form(sample, scanned("__global__ void other(int n) {}"));
    REQUIRE(unknown.refused.count("vecadd") == 1);
    CHECK(has(unknown.refused.at("vecadd"), "cannot tell which are buffers"));
    CHECK(has(nvcl_form(".version 9.0\n", {}).error, "no .entry"));
}

TEST_CASE("PTX entry names and pointee alignments") {
    CHECK(entry_identifier("vecadd") == "vecadd");
    CHECK(entry_identifier("_Z6vecaddPKfS0_Pfi") == "vecadd");
    CHECK(entry_identifier("_Z2tkIfEvPT_i") == "tk");
    CHECK(entry_identifier("_ZN2ns3dotEP7double2c") == "dot");
    CHECK(entry_identifier("_ZN2ns5scaleILi256EEEvPfi") == "scale");
    CHECK(entry_identifier("_Zbad") == "");
    CHECK(pointee_alignment("const float* __restrict__") == 4);
    CHECK(pointee_alignment("unsigned char*") == 1);
    CHECK(pointee_alignment("unsigned short *") == 2);
    CHECK(pointee_alignment("double*") == 8);
    CHECK(pointee_alignment("double2*") == 16);
    CHECK(pointee_alignment("float**") == 8);
    CHECK(pointee_alignment("T*") == 1);
}

TEST_CASE("NVRTC to PTX in NVIDIA OpenCL's form: mangled, template and namespaced kernels") {
    if (!nvrtc_tool().missing.empty()) {
        MESSAGE("the NVRTC way is closed here: " << nvrtc_tool().missing);
        CHECK(has(nvrtc_tool().missing, "install"));
        return;
    }
    duet::BuildOptions options;
    options.instantiations = {"tk<float>"};
    const auto names = cuda_ptx_names("vecadd", options, cuda_text);
    CHECK(names == std::vector<std::string>{"tk<float>", "vecadd"});
    CudaPtx out = cuda_to_ptx(cuda_text, "k.cu", "sm_90", options,
                              {"vecadd", "tk<float>", "ns::dot", "usesdyn"});
    REQUIRE(!out.bytes.empty());
    CHECK(out.bytes.back() == '\0');
    const std::string ptx(out.bytes.begin(), out.bytes.end() - 1);
    INFO(ptx);
    CHECK(has(out.flags, "NVRTC "));
    CHECK(has(out.flags, "--gpu-architecture=compute_90"));
    CHECK(out.entries.at("vecadd") == "vecadd");
    const std::string tk = out.entries.at("tk<float>"), dot = out.entries.at("ns::dot");
    CHECK(tk == "_Z2tkIfEvPT_i");
    CHECK(has(params_of(ptx, "vecadd"), ".param .u64 .ptr .global .align 4 vecadd_param_2"));
    CHECK(has(params_of(ptx, tk), ".param .u64 .ptr .global .align 1 " + tk + "_param_0"));
    CHECK(has(params_of(ptx, tk), ".param .u32 " + tk + "_param_1"));
    CHECK(has(params_of(ptx, dot), ".param .u64 .ptr .global .align 16 " + dot + "_param_0"));
    CHECK(!has(params_of(ptx, dot), ".ptr .global .align 1 " + dot + "_param_1"));
    // Dynamic shared memory: that kernel refused, by name, the others kept.
    REQUIRE(out.refused.size() == 1);
    CHECK(out.refused.begin()->first == out.entries.at("usesdyn"));
    CHECK(has(out.refused.begin()->second, "extern __shared__"));
    check_ptxas_accepts(ptx);
}

TEST_CASE("NVRTC to PTX in NVIDIA OpenCL's form: tests/data/one_text's CUDA kernels") {
    if (!nvrtc_tool().missing.empty()) {
        MESSAGE("the NVRTC way is closed here: " << nvrtc_tool().missing);
        return;
    }
    int files = 0;
    for (const auto& f : std::filesystem::directory_iterator(std::string(DUET_SOURCE_DIR) +
                                                             "/tests/data/one_text")) {
        if (f.path().extension() != ".cu")
            continue;
        ++files;
        std::ostringstream text;
        text << std::ifstream(f.path()).rdbuf();
        const auto kernels = scanned(text.str());
        REQUIRE(!kernels.empty());
        duet::BuildOptions options;
        options.defines = {{"TILE", "64"}};
        std::vector<std::string> names;
        for (const auto& k : kernels)
            names.push_back(k.name);
        const CudaPtx out =
            cuda_to_ptx(text.str(), f.path().filename().string(), "sm_90", options, names);
        const std::string ptx(out.bytes.begin(), out.bytes.end() - 1);
        INFO(f.path() << "\n" << ptx);
        CHECK(out.refused.empty());
        for (const auto& k : kernels)
            for (std::size_t p = 0; p < k.parameter_types.size(); ++p) {
                const std::string line = param_line(ptx, out.entries.at(k.name), p);
                INFO(k.signature() << ": " << line);
                CHECK(has(line, ".ptr .global .align ") == has(k.parameter_types[p], "*"));
            }
        check_ptxas_accepts(ptx);
    }
    CHECK(files > 0);
}

TEST_CASE("NVRTC to PTX: a text NVRTC refuses is a build Error with its log") {
    if (!nvrtc_tool().missing.empty())
        return;
    try {
        cuda_to_ptx("__global__ void k(float* p) { p[0] = undeclared; }", "bad.cu", "sm_90", {},
                    {"k"});
        FAIL("no Error");
    } catch (const duet::Error& e) {
        CHECK(e.kind() == duet::ErrorKind::build);
        CHECK(has(e.what(), "bad.cu"));
        CHECK(has(e.what(), "NVRTC"));
        CHECK(has(e.build_log(), "undeclared"));
    }
}

TEST_CASE("NVRTC to PTX: the toolkit's headers are found, as on CUDA") {
    if (!nvrtc_tool().missing.empty())
        return;
    const char* text = R"(#include <cuda_fp16.h>
extern "C" __global__ void halve(__half* h, int n) {
    if (threadIdx.x < n) h[threadIdx.x] = __float2half(__half2float(h[threadIdx.x]) * 0.5f);
})";
    const CudaPtx out = cuda_to_ptx(text, "half.cu", "sm_90", {}, {"halve"});
    const std::string ptx(out.bytes.begin(), out.bytes.end() - 1);
    INFO(out.flags << "\n" << ptx);
    CHECK(has(out.flags, "-I"));
    CHECK(has(param_line(ptx, "halve", 0), ".ptr .global .align 2"));
    check_ptxas_accepts(ptx);
}
