// runapp compile [APP|FILE.cl|FILE.cu] --target LIST: builds kernels with the vendors' offline
// compilers and prints, per kernel and target, success or the log and the resources used.
#include <algorithm>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

#include "cmd_compile.hpp"
#include "commands.hpp"
#include "output.hpp"

namespace runapp {

namespace {

namespace fs = std::filesystem;
using namespace compile;

bool is_main(const std::string& name, const std::string& ext) {
    return fs::path(name).extension() == ext;
}

// A compiler quotes the lines of what it includes: every include of the files to build must
// name one of the kernel files written beside them (include_expand.hpp), in every spelling.
void check_file_includes(const std::vector<SourceFile>& files,
                         const std::vector<SourceFile>& headers, duet::KernelLanguage lang) {
    std::vector<std::string> names;
    for (const auto* list : {&files, &headers})
        for (const auto& f : *list)
            names.push_back(f.name);
    for (const auto* list : {&files, &headers})
        for (const auto& f : *list)
            duet::check_kernel_includes(f.text, lang, f.name, names);
}

// The files to build: every shipped kernel file, one app's, or a user's file.
void choose_sources(const Cli& c, std::vector<SourceFile>& cl, std::vector<SourceFile>& cu,
                    std::vector<SourceFile>& cl_headers, std::vector<SourceFile>& cu_headers) {
    if (c.positional.size() > 1)
        throw duet::Error::usage("runapp compile takes one APP or FILE.cl/FILE.cu, not " +
                                 std::to_string(c.positional.size()));
    const std::string what = c.positional.empty() ? "" : c.positional[0];
    for (auto& f : duet::kernel_files(duet::KernelLanguage::opencl_c))
        (is_main(f.name, ".cl") ? cl : cl_headers).push_back(f);
    for (auto& f : duet::kernel_files(duet::KernelLanguage::cuda))
        (is_main(f.name, ".cu") ? cu : cu_headers).push_back(f);
    if (what.empty()) {
        check_file_includes(cl, cl_headers, duet::KernelLanguage::opencl_c);
        check_file_includes(cu, cu_headers, duet::KernelLanguage::cuda);
        return;
    }
    const std::string ext = fs::path(what).extension().string();
    if (ext == ".cl" || ext == ".cu") {
        // Bounded, regular files only, and not through someone else's link (kernel_sources.cpp).
        const auto source =
            duet::KernelSources::from_files(ext == ".cl" ? what : "", ext == ".cu" ? what : "");
        SourceFile user;
        user.name = fs::path(what).filename().string();
        user.text = ext == ".cl" ? source.opencl : source.cuda;
        cl.clear();
        cu.clear();
        (ext == ".cl" ? cl : cu).push_back(user);
        check_file_includes(cl, cl_headers, duet::KernelLanguage::opencl_c);
        check_file_includes(cu, cu_headers, duet::KernelLanguage::cuda);
        return;
    }
    auto keep = [&](std::vector<SourceFile>& v, const std::string& e) {
        std::vector<SourceFile> k;
        for (auto& f : v) // an app's kernels: APP.cl, or one file per step APP_STEP.cl
            if (f.name == what + e ||
                (f.name.rfind(what + "_", 0) == 0 && fs::path(f.name).extension() == e))
                k.push_back(f);
        v = k;
    };
    keep(cl, ".cl");
    keep(cu, ".cu");
    check_file_includes(cl, cl_headers, duet::KernelLanguage::opencl_c);
    check_file_includes(cu, cu_headers, duet::KernelLanguage::cuda);
    if (cl.empty() && cu.empty())
        throw duet::Error::usage("'" + what +
                                 "' is neither an app (vecadd, matmul, conv5x5, reduction) "
                                 "nor a .cl or .cu file");
}

std::string num(long v) {
    return v < 0 ? "-" : std::to_string(v);
}

std::string regs(const std::string& group, const KernelUsage& k) {
    if (group == "amd")
        return "v" + num(k.vgpr) + " s" + num(k.sgpr) + (k.agpr > 0 ? " a" + num(k.agpr) : "");
    return num(k.vgpr);
}

std::string today() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", std::gmtime(&t));
    return buf;
}

// runapp compile --format json: the date, the tools' versions and every file's result.
void write_json(std::ostream& os, const std::vector<FileResult>& results,
                const std::vector<Target>& ts, bool failed) {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& r : results) {
        nlohmann::json ks = nlohmann::json::array();
        for (const auto& k : r.kernels)
            ks.push_back({{"kernel", k.kernel},
                          {"vgpr", k.vgpr},
                          {"sgpr", k.sgpr},
                          {"agpr", k.agpr},
                          {"spill_bytes", k.spill},
                          {"scratch_bytes", k.scratch},
                          {"local_bytes", k.local},
                          {"max_work_group", k.max_wg},
                          {"simd", k.simd},
                          {"note", k.note}});
        j.push_back({{"target", r.target},
                     {"file", r.file},
                     {"available", r.available},
                     {"ok", r.ok},
                     {"log", r.log},
                     {"seconds", r.seconds},
                     {"kernels", ks}});
    }
    os << dump_json(nlohmann::json{
              {"date", today()}, {"tools", tool_versions(ts)}, {"results", j}, {"ok", !failed}})
       << "\n";
}

// runapp compile --format csv: one line a kernel, or a file that did not build.
void write_csv(std::ostream& os, const std::vector<FileResult>& results) {
    os << "target,file,kernel,status,registers,sgpr,agpr,spill_bytes,scratch_bytes,local_bytes,"
          "max_work_group,simd\n";
    for (const auto& r : results) {
        if (!r.ok) {
            os << r.target << "," << r.file << ",," << (r.available ? "FAIL" : "unavailable")
               << ",,,,,,,,\n";
            continue;
        }
        for (const auto& k : r.kernels)
            os << r.target << "," << r.file << "," << k.kernel << ",ok," << k.vgpr << "," << k.sgpr
               << "," << k.agpr << "," << k.spill << "," << k.scratch << "," << k.local << ","
               << k.max_wg << "," << k.simd << "\n";
    }
}

// runapp compile as a table: one line a kernel, a failed file's log, the unavailable targets.
void write_table(std::ostream& os, const std::vector<FileResult>& results,
                 const std::vector<Target>& ts) {
    auto group_of = [&](const std::string& name) {
        for (const auto& t : targets())
            if (t.name == name)
                return t.group;
        return std::string();
    };
    os << "# runapp compile, " << today() << "\n";
    for (const auto& v : tool_versions(ts))
        os << "#   " << v << "\n";
    os << std::left << std::setw(9) << "target" << std::setw(24) << "kernel" << std::setw(6) << "ok"
       << std::setw(17) << "registers" << std::setw(8) << "spill" << std::setw(9) << "scratch"
       << std::setw(8) << "local" << std::setw(8) << "max WG"
       << "SIMD\n";
    std::vector<std::string> unavailable;
    for (const auto& r : results) {
        if (!r.available) {
            const std::string line = r.target + ": " + r.log;
            if (std::find(unavailable.begin(), unavailable.end(), line) == unavailable.end())
                unavailable.push_back(line);
            continue;
        }
        if (!r.ok) {
            os << std::setw(9) << r.target << std::setw(24) << r.file << "FAIL\n";
            std::istringstream log(r.log);
            for (std::string line; std::getline(log, line);)
                os << "    " << line << "\n";
            continue;
        }
        for (const auto& k : r.kernels)
            os << std::setw(9) << r.target << std::setw(24) << k.kernel << std::setw(6) << "ok"
               << std::setw(17) << regs(group_of(r.target), k) << std::setw(8) << num(k.spill)
               << std::setw(9) << num(k.scratch) << std::setw(8) << num(k.local) << std::setw(8)
               << num(k.max_wg) << num(k.simd) << "\n";
    }
    for (const auto& u : unavailable)
        os << "unavailable " << u << "\n";
    os << "(registers: AMD VGPR/SGPR/AGPR, NVIDIA per thread, Intel not reported by ocloc; "
          "spill and "
          "scratch in bytes, scratch per work-item (Intel: per hardware thread); max WG: AMD's "
          "flat limit, NVIDIA's from the register count, Intel's only where "
          "reqd_work_group_size "
          "fixes it)\n";
}

} // namespace

int cmd_compile(const Cli& c) {
    const std::vector<Target> ts = select_targets(c.target.empty() ? "all" : c.target);
    std::vector<SourceFile> cl, cu, clh, cuh;
    choose_sources(c, cl, cu, clh, cuh);
    // Opened before the builds: a name that cannot be written is refused before minutes of work.
    std::ofstream out;
    if (!c.output.empty())
        open_output(out, c.output, "--output file");
    std::vector<FileResult> results;
    // Duet's own files build with their step records' tile macros; a user's file as it is.
    const bool own = c.positional.empty() ||
                     (!is_main(c.positional[0], ".cl") && !is_main(c.positional[0], ".cu"));
    const FileDefines cl_defines =
                          own ? record_defines(duet::KernelLanguage::opencl_c) : FileDefines{},
                      cu_defines = own ? record_defines(duet::KernelLanguage::cuda) : FileDefines{};
    for (const auto& t : ts) {
        const bool opencl = t.language == "opencl";
        if ((opencl ? cl : cu).empty())
            continue;
        if (!c.quiet && c.format == Format::table)
            std::cerr << "compiling for " << t.name << "...\n";
        for (auto& r :
             build_for(t, opencl ? cl : cu, opencl ? clh : cuh, opencl ? cl_defines : cu_defines))
            results.push_back(r);
    }
    if (results.empty())
        throw duet::Error::usage(
            std::string("none of the targets chosen builds ") +
            (cl.empty() ? "CUDA (.cu) files: choose nvidia or sm_XX"
                        : "OpenCL C (.cl) files: choose intel, amd, spirv or a target of theirs"));
    bool failed = false;
    for (const auto& r : results)
        failed = failed || (r.available && !r.ok);
    std::ostringstream os;
    if (c.format == Format::json)
        write_json(os, results, ts, failed);
    else if (c.format == Format::csv)
        write_csv(os, results);
    else
        write_table(os, results, ts);
    if (!c.output.empty()) {
        out << os.str();
        close_written(out, "--output file " + c.output);
    } else {
        std::cout << os.str();
    }
    return failed ? 1 : 0;
}

} // namespace runapp
