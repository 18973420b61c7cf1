#pragma once
// runapp through the shell for the test_runapp suites: a command line's exit code and joined
// output, whether an OpenCL device is there, and a private scratch directory.
#include <filesystem>
#include <string>

#include <sys/stat.h>

#include <duet/duet.hpp>

#include "runapp_shell.hpp"

namespace {

struct Run {
    int code;
    std::string out;
};

// runapp sits next to this test in bin/, wherever the build tree has been copied to.
using duet_test::runapp_path;

// `runapp ARGS` through the shell (ARGS may hold redirections and a trailing `#`).
[[maybe_unused]] Run runapp(const std::string& args) {
    auto [code, out] = duet_test::shell(runapp_path() + " " + args);
    return {code, out};
}

[[maybe_unused]] bool has_opencl() {
    for (auto* d : duet::devices())
        if (d->info().backend == "opencl")
            return true;
    return false;
}

// A fresh private directory under the build tree (the cache refuses one that others can write).
[[maybe_unused]] std::filesystem::path fresh_dir(const std::string& name) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(DUET_BINARY_DIR) / "test-scratch" / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::chmod(dir.parent_path().c_str(), 0700);
    ::chmod(dir.c_str(), 0700);
    return dir;
}

} // namespace
