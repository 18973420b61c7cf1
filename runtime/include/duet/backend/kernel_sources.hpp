#pragma once
// Duet's own kernel sources: embedded at build time, or read from DUET_KERNEL_DIR. The public
// part (SourceFile, kernel_files, kernels_defined_in) is <duet/kernel_library.hpp>.
#include <optional>
#include <string>
#include <vector>

#include <duet/dialect.hpp>
#include <duet/kernel_library.hpp>

namespace duet {

// The file of Duet's own kernels that defines `kernel` in `lang`, or nothing. An OpenCL file's
// #include "NAME.clh" lines come back replaced by the header's text (OpenCL builds one string);
// with `self_contained`, any language's (a text that leaves for another compiler: own_dialect).
std::optional<SourceFile> find_kernel_source(const std::string& kernel, KernelLanguage lang,
                                             bool self_contained = false);
// Kernel names defined in a language's files, sorted.
std::vector<std::string> kernel_names(KernelLanguage lang);
// The longest kernel name a program may define (a file system's name limit).
constexpr std::size_t max_kernel_name = 255;
// Throws a usage error naming `origin` when `text` defines a kernel whose name is longer than
// max_kernel_name: drivers make cache files named after kernels (PoCL aborts on such a name).
void check_kernel_names(const std::string& text, const Dialect& dialect, const std::string& origin);
// The same for a backend's own language.
void check_kernel_names(const std::string& text, KernelLanguage lang, const std::string& origin);
// `text` (CUDA C++) with `word` ("__global") put before each pointer parameter of each kernel:
// how a CUDA kernel's pointers become an OpenCL kernel's global buffers (the SPIR-V route).
std::string qualify_cuda_pointer_parameters(const std::string& text, const std::string& word);
// The header an `#include "NAME"` line names, or nothing for any other line.
std::optional<std::string> included_name(const std::string& line);

} // namespace duet
