#pragma once
// Hopper's sm_90a-only PTX (wgmma, setmaxnreg) from OpenCL C: NVIDIA's OpenCL compiles for
// `.target sm_90`, where ptxas refuses those instructions, so a kernel writes them as inline asm
// lines that begin with the marker below (a PTX comment: kernels_cl/sm90a.clh). The compiler
// still substitutes their operands and allocates their registers as for any asm; this pure text
// transform then turns the driver's PTX back into what the kernel meant, for a program built
// again from it as a binary (opencl_program_sm90a.cpp). No OpenCL here: the unit tests run it.
#include <cstddef>
#include <string>
#include <string_view>

namespace duet::opencl {

// What begins each hidden line of PTX (kernels_cl/sm90a.clh's DUET_SM90A).
inline constexpr std::string_view sm90a_marker = "//duet-sm90a ";

// Whether `ptx` holds a line that begins (after blanks) with the marker.
bool holds_sm90a_lines(std::string_view ptx);

// The result of raise_to_sm90a: `error` is empty on success.
struct RaisedPtx {
    std::string ptx;
    std::size_t lines = 0; // marked lines uncommented
    std::string error;     // why the text could not be raised (then ptx is empty)
};

// `ptx` with every marked line uncommented (the marker removed, its indentation kept),
// `.target sm_90` raised to `sm_90a` (other words of the line kept) and `.version` raised to 8.0
// where it is lower (wgmma's first ISA). Fails, saying why, where the text has no `.target`
// line, targets anything but sm_90 (or sm_90a), or holds the marker anywhere but at a line's
// start. Text after a NUL (a binary's terminator) is kept as it is.
RaisedPtx raise_to_sm90a(std::string_view ptx);

} // namespace duet::opencl
