// Build-time tool: the builds the steps' first shapes ask of each CUDA kernel file on a plain CUDA
// device (apps/framework/step_builds.hpp), one line each: "FILE[ NAME=VALUE...]", sorted; and a
// bare line "FILE" for each file no step names that builds with no defines (the files of extra
// kernels: duet_fill.cu, best's copies), as before.
// backends/cuda/CMakeLists.txt embeds one image per line, so that a run's first build of every
// step loads embedded code, as it did when the kernels held their tile macros as defaults. Steps
// whose own defines depend on the device (the cpu steps' cache size) are left to NVRTC, as before.
// Needs no GPU: it reads the step records only.
//
//   duet_step_builds OUTPUT     (OUTPUT is rewritten only when its text changes)
#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

#include "step_builds.hpp"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: duet_step_builds OUTPUT\n";
        return 2;
    }
    try {
        std::vector<std::string> lines;
        for (const auto& b :
             duet::apps::step_builds(duet::apps::plain_device(duet::KernelLanguage::cuda)))
            if (!b.device_specific && !b.extra)
                lines.push_back(b.file + (b.defines.empty() ? "" : " ") +
                                duet::apps::defines_text(b.defines));
        for (const auto& file : duet::apps::bare_files(duet::KernelLanguage::cuda))
            lines.push_back(file);
        std::sort(lines.begin(), lines.end());
        lines.erase(std::unique(lines.begin(), lines.end()), lines.end());
        std::string text;
        for (const auto& l : lines)
            text += l + "\n";
        std::ifstream old(argv[1], std::ios::binary);
        std::ostringstream was;
        was << old.rdbuf();
        if (old && was.str() == text)
            return 0;
        std::ofstream out(argv[1], std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) {
            std::cerr << "duet_step_builds: cannot write " << argv[1] << "\n";
            return 1;
        }
    } catch (const std::exception& e) {
        std::cerr << "duet_step_builds: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
