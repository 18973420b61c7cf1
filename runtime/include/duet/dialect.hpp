#pragma once
// Kernel dialects as data: one table (runtime/src/dialects.cpp) names each language kernels are
// written in, its files, how its kernels are found in a text, the compiler options that go with
// it, and the ways each backend can take it. A new dialect is a row and its scanner.
#include <optional>
#include <string>
#include <vector>

#include <duet/device_info.hpp>

namespace duet {

// One kernel defined in a text: its name and its parameters' names and types, in order.
struct KernelDecl {
    std::string name;
    std::vector<std::string> parameter_names; // "a", "n"; "" where a parameter has none
    std::vector<std::string> parameter_types; // "__global const float*", "int"
    // "vec_add(__global const float* a, int n)": how messages show the signature.
    std::string signature() const;
};

// One way a backend takes a dialect's text: directly, or through a named translation.
struct DialectRoute {
    std::string backend;     // "opencl", "cuda"
    std::string translation; // "" when the backend's own compiler takes the text
    std::string needs;       // what the device must offer, for messages ("cl_khr_il_program")
};

// One row of the table.
struct Dialect {
    std::string name;                       // "opencl-c", "cuda-c++", "ptx", "spir-v"
    std::string title;                      // "OpenCL C", for messages
    std::vector<std::string> extensions;    // a main file's: ".cl"
    std::vector<std::string> headers;       // its headers': ".clh"
    std::string kernel_dir;                 // Duet's own kernels of it ("kernels_cl"); "" none
    std::string options_field;              // the BuildOptions field of old ("opencl_options")
    std::optional<KernelLanguage> language; // the backends' native language it is, if one
    // Its compiler takes one string with no directory to search: a main file's #include lines
    // of its own headers are replaced by their text (kernel_sources.cpp).
    bool inline_headers = false;
    // The kernels a text defines; null for a dialect whose texts Duet does not scan (binaries).
    std::vector<KernelDecl> (*scan)(const std::string& text) = nullptr;
    std::vector<DialectRoute> routes; // in order of preference
};

// Every dialect, in the table's order.
const std::vector<Dialect>& dialects();
// The row named `name`, or null.
const Dialect* find_dialect(const std::string& name);
// The row named `name`; a usage Error listing the dialects when there is none.
const Dialect& dialect(const std::string& name);
// The row of a backend's native language.
const Dialect& dialect_of(KernelLanguage lang);
// The row whose main-file or header extension `path` has, or null.
const Dialect* dialect_of_file(const std::string& path);
// The kernels `text` of `dialect` defines (empty for a dialect with no scanner).
std::vector<KernelDecl> scan_kernels(const std::string& text, const Dialect& dialect);

} // namespace duet
