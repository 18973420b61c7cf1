// The builds a run starts from, per device description (step_builds.hpp).
#include "step_builds.hpp"

#include <algorithm>

#include "step.hpp"

namespace duet::apps {

namespace {

// The file of `lang` that defines `kernel`, or "".
std::string file_of(const std::string& kernel, KernelLanguage lang) {
    for (const auto& f : kernel_files(lang)) {
        const auto names = kernels_defined_in(f.text, lang);
        if (std::find(names.begin(), names.end(), kernel) != names.end())
            return f.name;
    }
    return "";
}

// Whether `text`, or a kernel header it includes, requires a step record's macro.
bool needs_records(const std::string& text, const std::vector<SourceFile>& files, int depth = 0) {
    if (text.find("is set by the host from the step record") != std::string::npos)
        return true;
    if (depth > 8)
        return false;
    for (const auto& f : files)
        if (text.find("#include \"" + f.name + "\"") != std::string::npos &&
            needs_records(f.text, files, depth + 1))
            return true;
    return false;
}

} // namespace

std::vector<std::string> bare_files(KernelLanguage lang) {
    const auto files = kernel_files(lang);
    std::vector<std::string> named;
    for (const auto& b : step_builds(plain_device(lang)))
        named.push_back(b.file);
    const std::string ext = lang == KernelLanguage::cuda ? ".cu" : ".cl";
    std::vector<std::string> out;
    for (const auto& f : files)
        if (f.name.size() > ext.size() && f.name.ends_with(ext) &&
            std::find(named.begin(), named.end(), f.name) == named.end() &&
            !needs_records(f.text, files))
            out.push_back(f.name);
    return out;
}

DeviceInfo plain_device(KernelLanguage lang) {
    DeviceInfo info;
    info.backend = lang == KernelLanguage::cuda ? "cuda" : "opencl";
    info.kernel_language = lang;
    info.type = "GPU";
    info.device_type = DeviceType::gpu;
    if (lang == KernelLanguage::cuda) { // what every CUDA GPU has: blocks of 1024, 48 KiB static
        info.max_work_group_size = 1024;
        info.local_mem_bytes = 48 * 1024;
    }
    return info;
}

std::vector<StepBuild> step_builds(const DeviceInfo& info) {
    const RunConfig cfg;
    std::vector<StepBuild> out;
    for (const auto* app : all_apps())
        for (const auto& step : app->steps()) {
            StepBuild b{app->name(), step.name, step.kernel, "", {}, false};
            BuildOptions opts;
            add_hook_defines(step, opts, info, cfg);
            b.device_specific = !opts.defines.empty();
            if (step.shapes) {
                const auto shapes = shapes_of(step, cfg, info);
                if (!shapes.empty()) { // the first the device allows, as build_fitting starts
                    const std::size_t i = first_fitting(shapes, device_limits(info));
                    const Shape& first = shapes[i < shapes.size() ? i : 0];
                    if (!first.kernel.empty())
                        b.kernel = first.kernel;
                    add_unset(opts.defines, first.defines);
                }
            }
            b.file = file_of(b.kernel, info.kernel_language);
            if (b.file.empty())
                continue;
            b.defines = std::move(opts.defines);
            std::stable_sort(b.defines.begin(), b.defines.end(),
                             [](const auto& x, const auto& y) { return x.first < y.first; });
            for (const auto& kernel : step.extra_kernels) {
                StepBuild e = b;
                e.kernel = kernel;
                e.file = file_of(kernel, info.kernel_language);
                e.extra = true;
                if (!e.file.empty())
                    out.push_back(std::move(e));
            }
            out.push_back(std::move(b));
        }
    return out;
}

std::string defines_text(const Defines& defines) {
    std::string out;
    for (const auto& [name, value] : defines)
        out += (out.empty() ? "" : " ") + name + "=" + value;
    return out;
}

} // namespace duet::apps
