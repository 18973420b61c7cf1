#pragma once
// Running runapp (or any command) from a test through the shell: where runapp is, and a command's
// exit code and joined stdout/stderr. One copy for every test that drives the tool this way.
#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>

#include <sys/wait.h>

#include <doctest/doctest.h>

namespace duet_test {

// runapp sits next to this test in bin/, wherever the build tree has been copied to.
inline std::string runapp_path() {
    std::error_code ec;
    const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec && std::filesystem::exists(self.parent_path() / "runapp"))
        return (self.parent_path() / "runapp").string();
    return DUET_RUNAPP;
}

// Runs `cmd` through the shell with stderr joined to stdout: the exit code (128 + the signal
// when a signal ended it) and the output.
inline std::pair<int, std::string> shell(const std::string& cmd) {
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    REQUIRE(p);
    std::string out;
    std::array<char, 4096> buf;
    while (std::size_t n = fread(buf.data(), 1, buf.size(), p))
        out.append(buf.data(), n);
    const int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), out};
}

} // namespace duet_test
