#pragma once
// Test helpers shared by the suites that drive the real runapp binary: a child process with its
// own environment and output files, killed past a time limit; scratch directories.
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "runapp_shell.hpp"

extern char** environ;

namespace {

namespace fs = std::filesystem;

using duet_test::runapp_path;

// A directory of its own for one test, removed (writable again first) when the test ends.
struct TempDir {
    fs::path path;
    explicit TempDir(const std::string& name) {
        static std::atomic<unsigned> counter{0};
        path = fs::temp_directory_path() / ("duet-rel-" + name + "-" + std::to_string(::getpid()) +
                                            "-" + std::to_string(counter++));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(path, ec); !ec && it != fs::end(it);
             it.increment(ec))
            if (it->is_directory(ec))
                ::chmod(it->path().c_str(), 0755);
        ::chmod(path.c_str(), 0755);
        fs::remove_all(path, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
};

[[maybe_unused]] std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

[[maybe_unused]] void write_file(const fs::path& p, const std::string& s) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << s;
}

// Environment changes for a child: a value sets the variable (empty included), nullopt unsets it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

struct Proc {
    std::string cmd;        // the command line, for messages
    int code = -1;          // exit status when the process exited
    int signal = 0;         // the signal that ended it, if one did
    bool timed_out = false; // we had to kill it
    double seconds = 0;
    long peak_rss_kb = 0; // the process's largest resident set (getrusage's ru_maxrss)
    std::string out, err;
};

// One runapp process, started at construction (fork + execve: no shell, so arguments reach
// runapp byte for byte), with stdout and stderr in files of `scratch`. Safe to use from several
// threads; holds no doctest assertions.
class Child {
  public:
    Child(const std::vector<std::string>& args, const EnvChanges& env, const fs::path& scratch) {
        static std::atomic<unsigned> counter{0};
        const std::string stem = "child-" + std::to_string(counter++);
        out_path_ = scratch / (stem + ".out");
        err_path_ = scratch / (stem + ".err");
        std::vector<std::string> argv_s = {runapp_path()};
        argv_s.insert(argv_s.end(), args.begin(), args.end());
        for (const auto& a : argv_s)
            proc_.cmd += (proc_.cmd.empty() ? "" : " ") +
                         (a.empty() || a.find(' ') != std::string::npos ? "'" + a + "'" : a);
        std::vector<std::string> env_s;
        for (char** e = environ; *e; ++e) {
            const std::string kv = *e;
            if (!env.count(kv.substr(0, kv.find('='))))
                env_s.push_back(kv);
        }
        for (const auto& [k, v] : env)
            if (v)
                env_s.push_back(k + "=" + *v);
        std::vector<char*> argv, envp;
        for (auto& s : argv_s)
            argv.push_back(s.data());
        argv.push_back(nullptr);
        for (auto& s : env_s)
            envp.push_back(s.data());
        envp.push_back(nullptr);
        const int out = ::open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const int err = ::open(err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        const int in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (out < 0 || err < 0 || in < 0)
            throw std::runtime_error("cannot open output files in " + scratch.string());
        start_ = std::chrono::steady_clock::now();
        pid_ = ::fork();
        if (pid_ == 0) { // only async-signal-safe calls from here to execve
            ::dup2(in, 0);
            ::dup2(out, 1);
            ::dup2(err, 2);
            ::execve(argv[0], argv.data(), envp.data());
            ::_exit(127);
        }
        ::close(out);
        ::close(err);
        ::close(in);
        if (pid_ < 0)
            throw std::runtime_error("fork failed");
    }

    // Waits for the process; one that runs past `timeout_s` seconds is killed.
    Proc wait(double timeout_s) {
        int status = 0;
        struct rusage usage {};
        for (;;) {
            const pid_t r = ::wait4(pid_, &status, WNOHANG, &usage);
            if (r == pid_)
                break;
            if (r < 0 && errno != EINTR)
                throw std::runtime_error("waitpid failed");
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
                timeout_s) {
                ::kill(pid_, SIGKILL);
                ::wait4(pid_, &status, 0, &usage);
                proc_.timed_out = true;
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        proc_.peak_rss_kb = usage.ru_maxrss;
        proc_.seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        if (WIFEXITED(status))
            proc_.code = WEXITSTATUS(status);
        else if (WIFSIGNALED(status))
            proc_.signal = WTERMSIG(status);
        proc_.out = read_file(out_path_);
        proc_.err = read_file(err_path_);
        std::error_code ec;
        fs::remove(out_path_, ec);
        fs::remove(err_path_, ec);
        return proc_;
    }

  private:
    pid_t pid_ = -1;
    std::chrono::steady_clock::time_point start_;
    fs::path out_path_, err_path_;
    Proc proc_;
};

// Whether a child's stderr shows LeakSanitizer's own tracer crashing at its exit (sanitizer
// builds: "Tracer caught signal", then "LeakSanitizer has encountered a fatal error") and no
// report of a leak, a memory error or undefined behaviour: a crash of the tool, not of runapp
// (.ci/lsan_tracer_retry.py says more).
[[maybe_unused]] bool lsan_tracer_crashed(const std::string& err) {
    const auto has = [&](const char* s) { return err.find(s) != std::string::npos; };
    return has("Tracer caught signal") && has("LeakSanitizer has encountered a fatal error") &&
           !has("detected memory leaks") && !has("ERROR: AddressSanitizer:") &&
           !has("runtime error:");
}

// runapp with `args` as a child; a child whose exit only LeakSanitizer's tracer crashed runs once
// more (the second run's result counts, and the test log says so).
Proc runapp(const std::vector<std::string>& args, const EnvChanges& env, const fs::path& scratch,
            double timeout_s = 120) {
    Proc first = Child(args, env, scratch).wait(timeout_s);
    if (first.code == 0 || !lsan_tracer_crashed(first.err))
        return first;
    MESSAGE("LeakSanitizer's tracer crashed at the exit of `" << first.cmd
                                                              << "` (no report): run once more");
    return Child(args, env, scratch).wait(timeout_s);
}

[[maybe_unused]] bool contains(const std::string& s, const std::string& what) {
    return s.find(what) != std::string::npos;
}

// A run that ended by itself, exit code 0, with PASS and no FAIL in its table.
[[maybe_unused]] void check_pass(const Proc& r) {
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.signal == 0);
    CHECK(r.code == 0);
    CHECK(contains(r.out, "PASS"));
    CHECK_FALSE(contains(r.out, "FAIL"));
}

// Whether runapp sees an OpenCL device opencl:0, asked of runapp itself.
[[maybe_unused]] bool has_opencl0() {
    static const bool has = [] {
        TempDir t("probe");
        const auto r = runapp({"list", "--format", "json"}, {}, t.path, 60);
        if (r.code != 0)
            return false;
        try {
            const auto j = nlohmann::json::parse(r.out);
            for (const auto& d : j["devices"])
                if (d["id"] == "opencl:0")
                    return true;
        } catch (const std::exception&) {
        }
        return false;
    }();
    return has;
}

#define DUET_NEED_OPENCL()                                                                         \
    if (!has_opencl0()) {                                                                          \
        MESSAGE("no OpenCL device opencl:0: skipped");                                             \
        return;                                                                                    \
    }

const std::vector<std::string> small_vecadd = {"vecadd",   "--size", "1000",     "--reps",  "1",
                                               "--warmup", "0",      "--device", "opencl:0"};

[[maybe_unused]] std::vector<std::string> with(std::vector<std::string> a,
                                               const std::vector<std::string>& more) {
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

} // namespace
