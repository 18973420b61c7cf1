// What NVRTC is given for one build of an app's or Duet's kernel at run time: the options
// (Duet's own from cuda_nvrtc_flags.hpp, the defines, fast math, the app's cuda_options) and the
// name expressions whose lowered (mangled) names the loaded program is searched by. Apart from
// cuda_build.cpp so that a test can compile kernels exactly as the plugin does, without a GPU.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <vector>

#include <duet/device.hpp>
#include <duet/kernel_library.hpp>

#include "cuda_nvrtc_flags.hpp"

namespace duet::cuda {

// The headers of Duet's CUDA kernels that NVRTC may #include by name ("duet_cuda.cuh"); with
// `all_text`, all of them in one string for the cache keys (a changed header must not reuse an
// old build).
inline std::vector<SourceFile> nvrtc_headers(std::string* all_text = nullptr) {
    std::vector<SourceFile> headers;
    for (auto& f : kernel_files(KernelLanguage::cuda)) {
        const auto dot = f.name.rfind('.');
        const std::string ext = dot == std::string::npos ? "" : f.name.substr(dot);
        if (ext == ".cuh" || ext == ".h" || ext == ".hpp") {
            if (all_text)
                *all_text += f.name + '\n' + f.text + '\n';
            headers.push_back(std::move(f));
        }
    }
    return headers;
}

// An -arch=/--gpu-architecture= option of the app's cuda-c++ options (check_compiler_options
// let only "native", sm_NN[a|f] and compute_NN[a|f] through).
inline bool is_arch_option(const std::string& o) {
    return o.rfind("-arch=", 0) == 0 || o.rfind("--arch=", 0) == 0 ||
           o.rfind("-gpu-architecture=", 0) == 0 || o.rfind("--gpu-architecture=", 0) == 0;
}

// The target architecture the app chose ("sm_80", "compute_90"; the last one given), or "" for
// Duet's own choice (none given, or "native").
inline std::string requested_arch(const BuildOptions& options) {
    std::string arch;
    for (const auto& o : options.options_for("cuda-c++"))
        if (is_arch_option(o))
            arch = o.substr(o.find('=') + 1);
    return arch == "native" ? "" : arch;
}

// The compute capability an architecture names, as NN: 80 for "sm_80", 90 for "compute_90a"
// (atoi stops at the a or f suffix).
inline int arch_number(const std::string& arch) {
    return std::atoi(arch.c_str() + arch.find('_') + 1);
}

// Why a GPU of compute capability major.minor cannot run code built for `arch` ("" when it
// can): machine code (sm_XY) runs on GPUs of major X and minor Y or newer, PTX (compute_XY) on
// every GPU of X.Y or newer (the driver compiles it), and an architecture-specific target
// (sm_90a, compute_90a) only on X.Y itself.
inline std::string arch_problem(const std::string& arch, int major, int minor) {
    const bool sass = arch.rfind("sm_", 0) == 0;
    const bool specific = arch.back() == 'a';
    const int n = arch_number(arch), want_major = n / 10, want_minor = n % 10;
    const int cc = major * 10 + minor;
    const std::string device = std::to_string(major) + "." + std::to_string(minor);
    if (specific && n != cc)
        return arch + " runs only on compute capability " + std::to_string(want_major) + "." +
               std::to_string(want_minor) + " (this GPU is " + device + ")";
    if (sass && (want_major != major || want_minor > minor))
        return arch + " is machine code for compute capability " + std::to_string(want_major) +
               ".x from ." + std::to_string(want_minor) + " (this GPU is " + device +
               "): choose sm_" + std::to_string(cc) +
               ", compute_NN with NN <= " + std::to_string(cc) + ", or native";
    if (!sass && n > cc)
        return arch + " is newer than this GPU (" + device +
               "): choose compute_NN with NN <= " + std::to_string(cc) + ", or native";
    return "";
}

// Duet's flags, then -I for each of `include_dirs` (the toolkit's headers:
// cuda_nvrtc_toolkit.hpp), -DNAME=VALUE, fast math and the app's options (checked by
// Device::load_kernel). An app's -std=... replaces Duet's -std=c++17 (NVRTC takes one).
inline std::vector<std::string>
nvrtc_build_flags(const std::string& arch, const BuildOptions& options,
                  const std::vector<std::string>& include_dirs = {}) {
    std::vector<std::string> args = nvrtc_base_flags(arch); // Duet's target or the app's
    for (const auto& d : include_dirs)
        args.push_back("-I" + d);
    std::vector<std::string> own = options.options_for("cuda-c++"); // NVRTC's dialect
    own.erase(std::remove_if(own.begin(), own.end(), is_arch_option), own.end());
    const auto is_std = [](const std::string& o) {
        return o.rfind("-std=", 0) == 0 || o.rfind("--std=", 0) == 0;
    };
    if (std::any_of(own.begin(), own.end(), is_std))
        args.erase(std::remove_if(args.begin(), args.end(), is_std), args.end());
    for (const auto& [n, v] : options.defines)
        args.push_back("-D" + n + (v.empty() ? "" : "=" + v));
    if (options.fast_math)
        args.push_back("--use_fast_math");
    args.insert(args.end(), own.begin(), own.end());
    return args;
}

// The identifier a name expression ends in: "scale" for "ns::scale<float, 256>".
inline std::string expression_identifier(const std::string& expression) {
    std::string s = expression.substr(0, expression.find('<'));
    if (const auto colons = s.rfind("::"); colons != std::string::npos)
        s = s.substr(colons + 2);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.pop_back();
    return s;
}

// True when `word` occurs in `text` as a whole identifier.
inline bool has_identifier(const std::string& text, const std::string& word) {
    const auto ident = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    for (auto at = text.find(word); !word.empty() && at != std::string::npos;
         at = text.find(word, at + 1)) {
        const bool starts = at == 0 || !ident(text[at - 1]);
        const bool ends = at + word.size() == text.size() || !ident(text[at + word.size()]);
        if (starts && ends)
            return true;
    }
    return false;
}

// `text` without its // and /* */ comments (a comment may say "extern \"C\"").
inline void strip_comments(std::string& text) {
    for (auto c = text.find("//"); c != std::string::npos; c = text.find("//", c)) {
        const auto end = text.find('\n', c);
        text.erase(c, end == std::string::npos ? std::string::npos : end - c);
    }
    for (auto c = text.find("/*"); c != std::string::npos; c = text.find("/*", c)) {
        const auto end = text.find("*/", c);
        text.erase(c, end == std::string::npos ? std::string::npos : end + 2 - c);
    }
}

// True when `text` declares `name` as an extern "C" kernel (`extern "C" __global__ void
// name(`, attributes between): found by its plain name, nothing to lower.
inline bool declared_extern_c(const std::string& text, const std::string& name) {
    const auto ident = [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    };
    for (auto at = text.find(name); !name.empty() && at != std::string::npos;
         at = text.find(name, at + 1)) {
        auto after = at + name.size();
        while (after < text.size() && std::isspace(static_cast<unsigned char>(text[after])))
            ++after;
        if ((at > 0 && ident(text[at - 1])) || after >= text.size() || text[after] != '(')
            continue;
        // The declaration's start: after the previous ';', '}' or '{'.
        const auto start = text.find_last_of(";{}", at);
        std::string head = text.substr(start == std::string::npos ? 0 : start + 1,
                                       at - (start == std::string::npos ? 0 : start + 1));
        strip_comments(head);
        if (head.find("extern \"C\"") != std::string::npos &&
            head.find("__global__") != std::string::npos)
            return true;
    }
    return false;
}

// The name expressions NVRTC lowers for a build of `text` loading `name`: the app's
// instantiations, and `name` itself unless the source declares it extern "C" (found by its
// plain name) or does not mention it (then the load reports what the module has). Sorted and
// unique, so that loading any of them asks for the same build.
inline std::vector<std::string> nvrtc_name_expressions(const std::string& name,
                                                       const BuildOptions& options,
                                                       const std::string& text) {
    std::vector<std::string> names = options.instantiations;
    if (!declared_extern_c(text, name) && has_identifier(text, expression_identifier(name)))
        names.push_back(name);
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    return names;
}

} // namespace duet::cuda
