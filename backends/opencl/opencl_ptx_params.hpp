#pragma once
// NVRTC's PTX (CUDA's form) in the form NVIDIA's OpenCL builds as a program binary: a pure text
// transform of the cuda-c++-via-ptx route's NVRTC way. NVIDIA's OpenCL passes a cl_mem argument
// as its buffer's device address only to a parameter marked `.ptr .global` (as its own compiler
// and clang's nvptx64-nvidia-nvcl target write them); NVRTC writes every pointer parameter as a
// plain `.u64`. Which parameters are pointers comes from the kernels' CUDA signatures (Duet's
// scanner of the text), matched to each `.entry` by name (an extern "C" kernel's own, or the
// identifier a mangled name ends in) and parameter count. No OpenCL here: the unit tests run it.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <duet/dialect.hpp>

namespace duet::opencl {

// The result of nvcl_form: `error` is empty on success.
struct NvclPtx {
    std::string ptx;
    // Entries the text has but this route cannot launch, each with why ("uses dynamic shared
    // memory"): loading one of them is an Error, the others load.
    std::map<std::string, std::string> refused;
    std::string error; // why the text could not be rewritten at all (then ptx is empty)
};

// `ptx` with `.target` given `texmode_independent` and, in each `.entry`, every parameter the
// matching kernel of `kernels` declares as a pointer written `.param .u64 .ptr .global .align A`
// (A: pointee_alignment of its type); other parameters unchanged. An entry whose signature is
// not found (or is ambiguous), or that uses an `extern __shared__` array (dynamic shared memory,
// which no OpenCL launch sizes), is refused. Text after a NUL is dropped.
NvclPtx nvcl_form(std::string_view ptx, const std::vector<KernelDecl>& kernels);

// The identifier of the kernel a PTX entry name is: itself unless it is an Itanium-mangled name
// ("_Z6vecaddPKfS0_Pfi" → "vecadd", "_ZN2ns3dotEP7double2c" → "dot", "_Z2tkIfEvPT_i" → "tk");
// "" for a mangled name it cannot read.
std::string entry_identifier(std::string_view entry);

// The alignment of what a pointer of C++ type `type` points to, where the type says it
// ("const float* __restrict__" → 4, "double2*" → 16, "float**" → 8); 1 where it does not ("T*").
int pointee_alignment(const std::string& type);

} // namespace duet::opencl
