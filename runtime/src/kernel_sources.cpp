// Duet's own kernels: the sources embedded at build time (embedded_kernels.cpp, generated),
// or, when DUET_KERNEL_DIR is set, the files of that source tree, read on each lookup so that
// kernels can be edited without rebuilding (only the files a lookup needs, each bounded).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <duet/backend/include_expand.hpp>
#include <duet/backend/kernel_sources.hpp>
#include <duet/backend/private_files.hpp>
#include <duet/device.hpp>
#include <duet/dialect.hpp>

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
    return dialect_of_file(name) == &dialect_of(lang);
}

bool is_main_file(const std::string& name, KernelLanguage lang) {
    const auto& main = dialect_of(lang).extensions;
    return std::find(main.begin(), main.end(), fs::path(name).extension().string()) != main.end();
}

// ".cl/.clh": a dialect's extensions, for messages.
std::string extensions_text(const Dialect& d) {
    std::string out;
    for (const auto* list : {&d.extensions, &d.headers})
        for (const auto& e : *list)
            out += (out.empty() ? "" : "/") + e;
    return out;
}

// Bounds on what a kernel tree may make Duet read: Duet's largest kernel file is tens of
// kilobytes (include_expand.cpp bounds the expanded program).
constexpr std::uintmax_t max_file_bytes = std::uintmax_t(16) << 20;

std::string read_file(const fs::path& p) {
    // A compiler's errors quote the source's lines: a link someone else planted could make them
    // quote any file the user can read (a key, a password file).
    std::string why;
    if (!check_links(p.string(), "Copy the kernel to a place of your own", &why))
        throw Error::usage("kernel source refused: " + why);
    // Checked before opening: opening a FIFO for reading blocks until someone writes to it.
    std::error_code ec;
    if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
        throw Error::not_found("kernel source " + p.string() +
                               " is not a regular file (a FIFO, device or directory); give a "
                               "kernel source file");
    const std::uintmax_t size = fs::file_size(p, ec);
    if (!ec && size > max_file_bytes)
        throw Error::usage("kernel source " + p.string() + " is " + std::to_string(size) +
                           " bytes, more than the " + std::to_string(max_file_bytes >> 20) +
                           " MiB a kernel file may hold; is it the right file?");
    std::ifstream in(p, std::ios::binary);
    if (!in)
        throw Error::not_found("cannot read kernel source file " + p.string() +
                               ": check the path and its permissions");
    std::string text;
    char chunk[65536];
    while (text.size() <= max_file_bytes && in.read(chunk, sizeof chunk).gcount() > 0)
        text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_file_bytes)
        throw Error::usage("kernel source " + p.string() + " grew past " +
                           std::to_string(max_file_bytes >> 20) + " MiB while it was read");
    return text;
}

// One kernel file: embedded (text set), or in DUET_KERNEL_DIR (path set, read when needed, so
// that a header nothing includes is never read).
struct FileRef {
    std::string name;
    fs::path path;
    std::optional<std::string> text;

    const std::string& contents() {
        if (!text)
            text = read_file(path);
        return *text;
    }
};

std::vector<FileRef> refs_from_dir(const fs::path& root, KernelLanguage lang) {
    const Dialect& d = dialect_of(lang);
    const fs::path dir = root / d.kernel_dir;
    std::vector<FileRef> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(fs::exists(dir) ? dir : root, ec))
        if (e.is_regular_file() && is_language(e.path().filename().string(), lang))
            out.push_back({e.path().filename().string(), e.path(), std::nullopt});
    if (out.empty()) {
        const std::string ext = extensions_text(d);
        throw Error::not_found("DUET_KERNEL_DIR=" + root.string() +
                               " holds no kernel sources: looked for " + ext + " files in " +
                               dir.string() + " and " + root.string() +
                               (ec ? " (" + ec.message() + ")" : std::string()) +
                               ". Point it at a Duet source tree (the directory holding " +
                               d.kernel_dir + "/) or unset it to use the kernels built into Duet");
    }
    std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.name < b.name; });
    return out;
}

std::vector<FileRef> kernel_refs(KernelLanguage lang) {
    if (const char* dir = std::getenv("DUET_KERNEL_DIR"); dir && *dir)
        return refs_from_dir(dir, lang);
    std::vector<FileRef> out;
    for (unsigned long i = 0; i < duet_embedded_kernels_count; ++i) {
        const auto& f = duet_embedded_kernels[i];
        if (is_language(f.name, lang))
            out.push_back({f.name, {}, std::string(reinterpret_cast<const char*>(f.data), f.size)});
    }
    return out;
}

// The kernel file `name` among `files` (read when first asked), or nullptr.
const std::string* file_text(std::vector<FileRef>& files, const std::string& name,
                             const char* ext) {
    const auto h =
        std::find_if(files.begin(), files.end(), [&](const FileRef& f) { return f.name == name; });
    return h == files.end() || fs::path(name).extension() != ext ? nullptr : &h->contents();
}

// CUDA's headers reach nvcc by -I and NVRTC by name, unexpanded: each include of the file and
// of the headers it includes must name one of them (include_expand.hpp).
void check_cu_includes(const std::string& name, const std::string& text,
                       std::vector<FileRef>& files, std::set<std::string>& seen) {
    if (!seen.insert(name).second)
        return;
    check_includes(text, KernelLanguage::cuda, name,
                   [&](const std::string& h) { return file_text(files, h, ".cuh") != nullptr; });
    for (const auto& d : include_directives(text, name, true))
        if (!d.angled)
            check_cu_includes(d.quoted, *file_text(files, d.quoted, ".cuh"), files, seen);
}

SourceFile finished(FileRef& f, std::vector<FileRef>& files, KernelLanguage lang,
                    bool self_contained) {
    SourceFile out{f.name, f.contents()};
    // A program built from one string has no directory to search: its includes are replaced by
    // the headers (among the same kernel files), bounded in depth and size. Otherwise each include
    // must name one of those headers (include_expand.hpp).
    const Dialect& d = dialect_of(lang);
    const char* header_ext = d.headers.empty() ? "" : d.headers.front().c_str();
    if (d.inline_headers || self_contained) {
        out.text = expand_includes(f.name, f.contents(), [&](const std::string& h) {
            return file_text(files, h, header_ext);
        });
    } else {
        std::set<std::string> seen;
        check_cu_includes(f.name, f.contents(), files, seen);
    }
    check_kernel_names(out.text, lang, "kernel file " + f.name);
    return out;
}

} // namespace

std::vector<SourceFile> kernel_files(KernelLanguage lang) {
    std::vector<SourceFile> out;
    for (auto& f : kernel_refs(lang))
        out.push_back({f.name, f.contents()});
    return out;
}

std::optional<SourceFile> find_kernel_source(const std::string& kernel, KernelLanguage lang,
                                             bool self_contained) {
    auto files = kernel_refs(lang);
    for (auto& f : files)
        if (is_main_file(f.name, lang)) {
            const auto names = kernels_defined_in(f.contents(), lang);
            if (std::find(names.begin(), names.end(), kernel) != names.end())
                return finished(f, files, lang, self_contained);
        }
    // Kernels stamped out by macros are invisible to the scan above; such files name their
    // kernels after the file ("reduction.cl" defines "reduction_*").
    for (auto& f : files)
        if (is_main_file(f.name, lang) &&
            kernel.rfind(fs::path(f.name).stem().string() + "_", 0) == 0)
            return finished(f, files, lang, self_contained);
    return std::nullopt;
}

std::vector<std::string> kernel_names(KernelLanguage lang) {
    std::set<std::string> all;
    for (auto& f : kernel_refs(lang))
        if (is_main_file(f.name, lang))
            for (auto& n : kernels_defined_in(f.contents(), lang))
                all.insert(n);
    return {all.begin(), all.end()};
}

namespace {

// `path` as from_files reads it: a relative one against the executable's directory when asked.
std::string resolve(const std::string& path, KernelSources::Base base) {
    if (path.empty() || path[0] == '/' || base == KernelSources::Base::current_directory)
        return path;
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec)
        throw Error::usage("cannot find the running program's directory to read " + path +
                           " beside it (/proc/self/exe: " + ec.message() +
                           "); give an absolute path");
    return (exe.parent_path() / path).string();
}

} // namespace

KernelSources KernelSources::from_files(const std::string& cl_path, const std::string& cu_path,
                                        Base base) {
    KernelSources s;
    const std::string cl = resolve(cl_path, base), cu = resolve(cu_path, base);
    if (!cl.empty())
        s.opencl = read_file(cl);
    if (!cu.empty())
        s.cuda = read_file(cu);
    s.origin = cl.empty() ? cu : cu.empty() ? cl : cl + ", " + cu;
    return s;
}

KernelSources& KernelSources::add(const std::string& dialect_name, std::string text,
                                  std::string kernel, std::string text_origin) {
    const Dialect& d = dialect(dialect_name);
    for (const auto& t : all())
        if (t.dialect == d.name)
            throw Error::usage("kernel sources hold two " + d.title + " texts (" + t.origin + ", " +
                               text_origin + "); give each dialect once");
    texts.push_back({d.name, std::move(text), std::move(kernel), std::move(text_origin)});
    return *this;
}

KernelSources& KernelSources::add_file(const std::string& path, std::string kernel, Base base) {
    const Dialect* d = dialect_of_file(path);
    if (!d || std::find(d->extensions.begin(), d->extensions.end(),
                        fs::path(path).extension().string()) == d->extensions.end()) {
        std::string known;
        for (const auto& row : dialects())
            for (const auto& e : row.extensions)
                known += (known.empty() ? "" : ", ") + e + " (" + row.title + ")";
        throw Error::usage("kernel file " + path +
                           ": its extension names no kernel dialect; the extensions are " + known);
    }
    const std::string resolved = resolve(path, base);
    add(d->name, read_file(resolved), std::move(kernel), resolved);
    origin += (origin.empty() ? "" : ", ") + resolved;
    return *this;
}

std::vector<KernelText> KernelSources::all() const {
    std::vector<KernelText> out = texts;
    // The deprecated fields are the texts of the dialects whose options had the same fields.
    const std::string o = origin.empty() ? "<string>" : origin;
    for (const auto& d : dialects()) {
        const std::string* old = d.options_field == "opencl_options" ? &opencl
                                 : d.options_field == "cuda_options" ? &cuda
                                                                     : nullptr;
        if (old && !old->empty())
            out.push_back({d.name, *old, {}, o});
    }
    for (auto& t : out)
        if (t.origin.empty())
            t.origin = o;
    return out;
}

std::vector<std::string> BuildOptions::options_for(const std::string& dialect_name) const {
    std::vector<std::string> out;
    if (auto it = compiler_options.find(dialect_name); it != compiler_options.end())
        out = it->second;
    const Dialect* d = find_dialect(dialect_name);
    const std::vector<std::string>* old = !d                                     ? nullptr
                                          : d->options_field == "opencl_options" ? &opencl_options
                                          : d->options_field == "cuda_options"   ? &cuda_options
                                                                                 : nullptr;
    if (old)
        out.insert(out.end(), old->begin(), old->end());
    return out;
}

} // namespace duet
