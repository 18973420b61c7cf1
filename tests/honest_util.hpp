#pragma once
// Helpers of the honest-results tests (test_honest*.cpp): a kernel tree with one change, and a
// quick run's configuration.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <doctest/doctest.h>

#include "app.hpp"

namespace duet_test {

// DUET_KERNEL_DIR at a copy of the shipped kernels_cl with the first `from` in `file` replaced
// by `to` (looked up on each load); unset and removed however the case ends.
struct ChangedKernel {
    std::filesystem::path dir = std::filesystem::path(DUET_BINARY_DIR) / "test-changed-kernels";
    ChangedKernel(const std::string& file, const std::string& from, const std::string& to) {
        namespace fs = std::filesystem;
        fs::remove_all(dir);
        fs::create_directories(dir / "kernels_cl");
        for (const auto& f : fs::directory_iterator(fs::path(DUET_SOURCE_DIR) / "kernels_cl"))
            fs::copy_file(f.path(), dir / "kernels_cl" / f.path().filename());
        std::ifstream in(dir / "kernels_cl" / file);
        std::stringstream text;
        text << in.rdbuf();
        std::string src = text.str();
        const auto at = src.find(from);
        REQUIRE(at != std::string::npos);
        src.replace(at, from.size(), to);
        std::ofstream(dir / "kernels_cl" / file, std::ios::trunc) << src;
        ::setenv("DUET_KERNEL_DIR", dir.c_str(), 1);
    }
    ~ChangedKernel() {
        ::unsetenv("DUET_KERNEL_DIR");
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

// One timed run, no warm-up, at `size`.
inline duet::apps::RunConfig quick(const duet::apps::App& app, const std::string& size) {
    duet::apps::RunConfig cfg;
    cfg.size = app.parse_size(size);
    cfg.reps = 1;
    cfg.warmup = 0;
    return cfg;
}

} // namespace duet_test
