// Duet's own kernels: the sources embedded at build time (embedded_kernels.cpp, generated),
// or, when DUET_KERNEL_DIR is set, the files of that source tree, read on each lookup so that
// kernels can be edited without rebuilding.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <duet/backend/kernel_sources.hpp>
#include <duet/device.hpp>

namespace duet {

// Defined in the generated embedded_kernels.cpp.
struct EmbeddedFile {
    const char* name;
    const unsigned char* data;
    unsigned long size;
};
extern const EmbeddedFile duet_embedded_kernels[];
extern const unsigned long duet_embedded_kernels_count;

namespace {

namespace fs = std::filesystem;

bool is_language(const std::string& name, KernelLanguage lang) {
    const std::string ext = fs::path(name).extension().string();
    return lang == KernelLanguage::opencl_c ? ext == ".cl" || ext == ".clh"
                                            : ext == ".cu" || ext == ".cuh";
}

bool is_main_file(const std::string& name, KernelLanguage lang) {
    const std::string ext = fs::path(name).extension().string();
    return lang == KernelLanguage::opencl_c ? ext == ".cl" : ext == ".cu";
}

std::string read_file(const fs::path& p) {
    // Checked before opening: opening a FIFO for reading blocks until someone writes to it.
    std::error_code ec;
    if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
        throw Error::not_found("kernel source " + p.string() +
                               " is not a regular file (a FIFO, device or directory); give a "
                               "kernel source file");
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw Error::not_found("cannot read kernel source file " + p.string() +
                               ": check the path and its permissions");
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<SourceFile> files_from_dir(const fs::path& root, KernelLanguage lang) {
    const fs::path dir = root / (lang == KernelLanguage::opencl_c ? "kernels_cl" : "kernels_cu");
    std::vector<SourceFile> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::exists(dir) ? dir : root, ec))
        if (e.is_regular_file() && is_language(e.path().filename().string(), lang))
            out.push_back({e.path().filename().string(), read_file(e.path())});
    if (out.empty()) {
        const char* ext = lang == KernelLanguage::opencl_c ? ".cl/.clh" : ".cu/.cuh";
        throw Error::not_found(
            "DUET_KERNEL_DIR=" + root.string() + " holds no kernel sources: looked for " + ext +
            " files in " + dir.string() + " and " + root.string() +
            (ec ? " (" + ec.message() + ")" : std::string()) +
            ". Point it at a Duet source tree (the directory holding kernels_cl/ and "
            "kernels_cu/) or unset it to use the kernels built into Duet");
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
}

// An OpenCL program is built from one string, with no directory to search: a main file's
// `#include "NAME.clh"` lines are replaced by that header (one of the same kernel files), framed
// by #line so that build logs name the right file and line. The cache keys see the whole text.
// (CUDA's headers reach nvcc by -I and NVRTC by name: they need no expansion.)
std::string expand_cl_includes(const SourceFile& file, const std::vector<SourceFile>& files,
                               int depth = 0) {
    static const std::regex include_re(R"re(^\s*#\s*include\s*"([^"]+)"\s*$)re");
    std::istringstream in(file.text);
    std::string out, line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        std::smatch m;
        if (!std::regex_match(line, m, include_re)) {
            out += line + '\n';
            continue;
        }
        const std::string name = m[1].str();
        const auto h = std::find_if(files.begin(), files.end(),
                                    [&](const SourceFile& f) { return f.name == name; });
        if (h == files.end() || fs::path(name).extension() != ".clh")
            throw Error(ErrorKind::not_found, "", "", 0, "",
                        "kernel file " + file.name + " line " + std::to_string(number) +
                            " includes \"" + name +
                            "\", which is not an OpenCL header (.clh) "
                            "among Duet's kernel files; add it to kernels_cl/ or remove the line");
        if (depth > 8)
            throw Error(ErrorKind::usage, "", "", 0, "",
                        "kernel header " + name + " is included more than 8 levels deep (from " +
                            file.name + "): an include cycle?");
        out += "#line 1 \"" + name + "\"\n" + expand_cl_includes(*h, files, depth + 1) + "#line " +
               std::to_string(number + 1) + " \"" + file.name + "\"\n";
    }
    return out;
}

} // namespace

std::vector<SourceFile> kernel_files(KernelLanguage lang) {
    if (const char* dir = std::getenv("DUET_KERNEL_DIR"); dir && *dir)
        return files_from_dir(dir, lang);
    std::vector<SourceFile> out;
    for (unsigned long i = 0; i < duet_embedded_kernels_count; ++i) {
        const auto& f = duet_embedded_kernels[i];
        if (is_language(f.name, lang))
            out.push_back({f.name, std::string(reinterpret_cast<const char*>(f.data), f.size)});
    }
    return out;
}

std::vector<std::string> kernels_defined_in(const std::string& text, KernelLanguage lang) {
    // Attributes may sit between the qualifier and the return type in OpenCL C.
    static const std::regex cl_re(
        R"((?:__kernel|\bkernel)\s+(?:__attribute__\s*\(\(.*?\)\)\s*)*void\s+(\w+)\s*\()");
    // __launch_bounds__ may come before or after the return type.
    static const std::regex cu_re(
        R"(__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(\w+)\s*\()");
    std::set<std::string> names;
    const auto& re = lang == KernelLanguage::opencl_c ? cl_re : cu_re;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it)
        names.insert((*it)[1].str());
    return {names.begin(), names.end()};
}

std::optional<SourceFile> find_kernel_source(const std::string& kernel, KernelLanguage lang) {
    auto files = kernel_files(lang);
    for (auto& f : files)
        if (is_main_file(f.name, lang)) {
            const auto names = kernels_defined_in(f.text, lang);
            if (std::find(names.begin(), names.end(), kernel) != names.end()) {
                if (lang == KernelLanguage::opencl_c)
                    f.text = expand_cl_includes(f, files);
                return std::move(f);
            }
        }
    // Kernels stamped out by macros are invisible to the scan above; such files name their
    // kernels after the file ("reduction.cl" defines "reduction_*").
    for (auto& f : files)
        if (is_main_file(f.name, lang) &&
            kernel.rfind(fs::path(f.name).stem().string() + "_", 0) == 0) {
            if (lang == KernelLanguage::opencl_c)
                f.text = expand_cl_includes(f, files);
            return std::move(f);
        }
    return std::nullopt;
}

std::vector<std::string> kernel_names(KernelLanguage lang) {
    std::set<std::string> all;
    for (const auto& f : kernel_files(lang))
        if (is_main_file(f.name, lang))
            for (auto& n : kernels_defined_in(f.text, lang))
                all.insert(n);
    return {all.begin(), all.end()};
}

KernelSources KernelSources::from_files(const std::string& cl_path, const std::string& cu_path) {
    KernelSources s;
    if (!cl_path.empty())
        s.opencl = read_file(cl_path);
    if (!cu_path.empty())
        s.cuda = read_file(cu_path);
    s.origin = cl_path.empty() ? cu_path : cu_path.empty() ? cl_path : cl_path + ", " + cu_path;
    return s;
}

} // namespace duet
