// CUDA C++ as people write it, compiled through the CUDA plugin's own NVRTC path (the options
// and name expressions cuda_build.cpp gives NVRTC, cuda_nvrtc_args.hpp) where there is no GPU:
// templates and namespaces are lowered to the symbols a load looks up, each of which is in the
// machine code; an app's -std replaces Duet's; a name the source lacks is a build error that
// says so. Skipped (with the reason) where NVRTC cannot be opened.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

#include "cuda_nvrtc.hpp"
#include "cuda_nvrtc_args.hpp"
#include "idiom_kernels.hpp"

namespace {

const duet::cuda::Nvrtc* nvrtc() {
    try {
        return &duet::cuda::Nvrtc::instance();
    } catch (const duet::Error& e) {
        MESSAGE("NVRTC not found, checks skipped: " << e.what());
        return nullptr;
    }
}

std::vector<duet::SourceFile> headers() {
    std::vector<duet::SourceFile> h;
    for (auto& f : duet::kernel_files(duet::KernelLanguage::cuda))
        if (f.name.size() > 4 && f.name.substr(f.name.size() - 4) == ".cuh")
            h.push_back(std::move(f));
    return h;
}

// Compiles the idioms source as the plugin would to load `name` with `options`.
duet::cuda::NvrtcOutput build(const duet::cuda::Nvrtc& nv, const std::string& source,
                              const std::string& name, const duet::BuildOptions& options) {
    return nv.compile(source, "idioms.cu", headers(),
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
