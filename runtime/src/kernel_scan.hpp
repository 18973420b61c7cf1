#pragma once
// The scanners of the dialect table's C-like rows (kernel_scan.cpp), internal to libduet.
#include <string>
#include <vector>

#include <duet/dialect.hpp>

namespace duet {

// `__kernel void name(...)` / `kernel void name(...)`, with any __attribute__((...)).
std::vector<KernelDecl> scan_opencl_c(const std::string& text);
// `__global__ void name(...)`, with CUDA's attributes or a macro word before the name.
std::vector<KernelDecl> scan_cuda(const std::string& text);
// `.entry name(` / `.visible .entry name(` of a PTX module.
std::vector<KernelDecl> scan_ptx(const std::string& text);

} // namespace duet
