#pragma once
// Duet's own kernels as source text (embedded at build time, or read from DUET_KERNEL_DIR), for
// tools that build or inspect them outside a device (`runapp compile`).
#include <string>
#include <vector>

#include <duet/device_info.hpp>

namespace duet {

// One source file.
struct SourceFile {
    std::string name; // file name, e.g. "matmul.cl"
    std::string text; // contents
};

// Every source file of a language (headers included), for NVRTC include lists.
std::vector<SourceFile> kernel_files(KernelLanguage lang);
// Names of the kernels a source text defines (`__kernel void x` / `extern "C" __global__ void x`).
std::vector<std::string> kernels_defined_in(const std::string& text, KernelLanguage lang);
// Throws a usage Error naming `origin` and the line unless every include of `text`, in any
// spelling the preprocessor reads (comments, `\` continuations, macros, <...>), is
// `#include "NAME"` of one of `headers` (CUDA: or a toolkit <header>), so that a compiler
// given `text` reads no other file.
void check_kernel_includes(const std::string& text, KernelLanguage lang, const std::string& origin,
                           const std::vector<std::string>& headers);

} // namespace duet
