// The dialect table. A row says what a kernel language is to Duet: its files, its scanner, the
// compiler options that go with it and the routes by which each backend takes its text. Nothing
// else in the core names a language; a backend says which routes it opens on a device
// (Device::takes).
#include <algorithm>
#include <filesystem>

#include <duet/dialect.hpp>
#include <duet/error.hpp>

#include "kernel_scan.hpp"

namespace duet {

const std::vector<Dialect>& dialects() {
    static const std::vector<Dialect> table = {
        {"opencl-c",
         "OpenCL C",
         {".cl"},
         {".clh"},
         "kernels_cl",
         "opencl_options",
         KernelLanguage::opencl_c,
         true,
         scan_opencl_c,
         {{"opencl", "", ""},
          {"cuda", "opencl-c-on-nvrtc", "NVRTC, with Duet's header duet_opencl_c.cuh"}}},
        {"cuda-c++",
         "CUDA C++",
         {".cu"},
         {".cuh"},
         "kernels_cu",
         "cuda_options",
         KernelLanguage::cuda,
         false,
         scan_cuda,
         {{"cuda", "", ""},
          {"opencl", "cuda-c++-via-spir-v",
           "cl_khr_il_program, and clang with llvm-spirv (kernels_cl/duet_cuda_c.clh)"},
          {"opencl", "cuda-c++-via-ptx",
           "NVIDIA's OpenCL (PTX program binaries), and clang with the nvptx64 target and "
           "libclc (kernels_cl/duet_cuda_c.clh)"}}},
        // NVIDIA OpenCL's form: pointer parameters `.ptr .global` (clang's nvidiacl target).
        {"ptx",
         "PTX",
         {".ptx"},
         {},
         "",
         "",
         std::nullopt,
         false,
         scan_ptx,
         {{"cuda", "", "the CUDA driver, which compiles PTX on load"},
          {"opencl", "", "NVIDIA's OpenCL (PTX program binaries)"}}},
        {"spir-v",
         "SPIR-V",
         {".spv"},
         {},
         "",
         "",
         std::nullopt,
         false,
         nullptr,
         {{"opencl", "", "cl_khr_il_program"}}},
    };
    return table;
}

const Dialect* find_dialect(const std::string& name) {
    for (const auto& d : dialects())
        if (d.name == name)
            return &d;
    return nullptr;
}

const Dialect& dialect(const std::string& name) {
    if (const Dialect* d = find_dialect(name))
        return *d;
    std::string known;
    for (const auto& d : dialects())
        known += (known.empty() ? "" : ", ") + d.name;
    throw Error::usage("no kernel dialect named '" + name + "'; the dialects are: " + known);
}

const Dialect& dialect_of(KernelLanguage lang) {
    for (const auto& d : dialects())
        if (d.language == lang)
            return d;
    throw Error::runtime("the dialect table has no row for kernel language " +
                         std::string(kernel_language_name(lang)));
}

const Dialect* dialect_of_file(const std::string& path) {
    const std::string ext = std::filesystem::path(path).extension().string();
    for (const auto& d : dialects()) {
        const auto has = [&](const std::vector<std::string>& v) {
            return std::find(v.begin(), v.end(), ext) != v.end();
        };
        if (!ext.empty() && (has(d.extensions) || has(d.headers)))
            return &d;
    }
    return nullptr;
}

std::vector<KernelDecl> scan_kernels(const std::string& text, const Dialect& d) {
    return d.scan ? d.scan(text) : std::vector<KernelDecl>{};
}

} // namespace duet
