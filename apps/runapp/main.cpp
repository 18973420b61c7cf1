// runapp: the command-line tool. Exit codes: 0 success, 1 a result was wrong, 2 a usage error,
// 3 a device or runtime error.
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include <unistd.h>

#include <duet/duet.hpp>

#include "commands.hpp"
#include "problem.hpp"
#include "timing.hpp"

namespace {

// Who ends the process: main with its exit code, or the --timeout watchdog with 3. Whoever
// claims it first wins; the other never prints or exits, so a timed-out run can never exit
// with another code (or print an error after the time-out message).
enum : int { running, finishing, timed_out };
std::atomic<int> ending{running};

// Main's claim; when the watchdog already has it, main waits for it to end the process.
void claim_exit() {
    int expected = running;
    if (!ending.compare_exchange_strong(expected, finishing))
        for (;;)
            std::this_thread::sleep_for(std::chrono::seconds(1));
}

// The watchdog: a run that hangs (a kernel that never ends, a wedged driver) cannot be stopped
// from inside the process politely, so a thread reports it and ends the process. With
// --timeout S it ends a run that takes over S seconds in all; by default one in which nothing
// made progress (no step started, no kernel run finished: duet::apps::heartbeat) for
// idle_limit_s() (600 s, or DUET_IDLE_TIMEOUT_S). --timeout 0 turns it off.
double idle_limit_s() {
    if (const char* v = std::getenv("DUET_IDLE_TIMEOUT_S")) {
        char* end = nullptr;
        const double s = std::strtod(v, &end);
        if (end && end != v && !*end && s > 0 && s <= 86400)
            return s;
    }
    return 600;
}

[[noreturn]] void time_out(const std::string& why) {
    // write(2), not std::cerr: the hung thread may hold the stream's lock. _Exit ends every
    // thread, a PoCL worker spinning in a kernel included.
    const std::string msg = "\nrunapp: error: " + why + "\n";
    [[maybe_unused]] auto n = ::write(2, msg.data(), msg.size());
    std::_Exit(3);
}

void start_watchdog(double seconds, bool idle) {
    duet::apps::heartbeat();
    const auto start = std::chrono::steady_clock::now();
    std::thread([seconds, idle, start] {
        using namespace std::chrono;
        const auto limit = duration_cast<steady_clock::duration>(duration<double>(seconds));
        for (;;) {
            const auto since = idle ? duet::apps::last_heartbeat() : start;
            const auto left = since + limit - steady_clock::now();
            if (left > steady_clock::duration::zero()) {
                std::this_thread::sleep_for(
                    std::min<steady_clock::duration>(left, std::chrono::seconds(1)));
                continue;
            }
            int expected = running;
            if (!ending.compare_exchange_strong(expected, timed_out))
                return; // main is already ending with its own code
            char text[300];
            if (idle)
                std::snprintf(text, sizeof text,
                              "nothing finished for %g s (the default watchdog): the kernel or "
                              "the device did not finish; give --timeout SECONDS to allow a run "
                              "that long in all, or --timeout 0 for no limit",
                              seconds);
            else
                std::snprintf(text, sizeof text,
                              "timed out after %g s (--timeout); the kernel or the device did "
                              "not finish",
                              seconds);
            time_out(text);
        }
    }).detach();
}

// An LD_LIBRARY_PATH with empty or relative elements makes the dynamic linker load libraries
// from the current directory (duet/library_path.hpp), and it reads the variable once,
// at start: runapp starts itself again with those elements removed, saying so. Should that
// fail, libduet refuses to load backends under such a path.
void sanitize_library_path(char** argv) {
    const char* env = std::getenv("LD_LIBRARY_PATH");
    if (duet::library_path_problem(env).empty() || std::getenv("DUET_LIBRARY_PATH_CLEANED"))
        return;
    const std::string value = env; // setenv may free what getenv gave
    const std::string safe = duet::safe_library_path(value);
    std::cerr << "runapp: warning: LD_LIBRARY_PATH '" << value
              << "' has empty or relative elements, which would load libraries from the "
                 "current directory; running with '"
              << safe << "' instead\n";
    if (safe.empty())
        ::unsetenv("LD_LIBRARY_PATH");
    else
        ::setenv("LD_LIBRARY_PATH", safe.c_str(), 1);
    ::setenv("DUET_LIBRARY_PATH_CLEANED", "1", 1);
    ::execv("/proc/self/exe", argv);
    // Not restarted: the path stays as it was, and libduet refuses backends under it.
    ::setenv("LD_LIBRARY_PATH", value.c_str(), 1);
}

// Runs the command; returns its exit code.
int dispatch(int argc, char** argv, const runapp::Cli& c);

} // namespace

int main(int argc, char** argv) {
    // A closed pipe (runapp ... | head) makes a write fail with EPIPE, reported and exit 3,
    // instead of killing the process silently (exit 141).
    std::signal(SIGPIPE, SIG_IGN);
    sanitize_library_path(argv);
    // The shared device copies and download spaces go before the backends' own teardown at exit.
    struct ReleaseShared {
        ~ReleaseShared() { duet::apps::release_shared_uploads(); }
    } release_shared;
    try {
        const runapp::Cli c = runapp::parse(argc, argv);
        if (c.timeout_s > 0)
            start_watchdog(c.timeout_s, false);
        else if (c.timeout_s < 0) // not given: the default
            start_watchdog(idle_limit_s(), true);
        const int code = dispatch(argc, argv, c);
        claim_exit();
        std::cout.flush();
        if (!std::cout || std::fflush(stdout) != 0) {
            std::cerr
                << "runapp: error: writing to standard output failed; the output is incomplete\n";
            return 3;
        }
        return code;
    } catch (const duet::Error& e) {
        claim_exit();
        std::cerr << "runapp: error: " << e.what() << "\n";
        const bool usage =
            e.kind() == duet::ErrorKind::usage || e.kind() == duet::ErrorKind::not_found;
        // unsupported (the device cannot run it) is a device error: exit code 3.
        if (usage)
            std::cerr << "(runapp --help shows the usage)\n";
        return usage ? 2 : 3;
    } catch (const std::exception& e) {
        claim_exit();
        std::cerr << "runapp: error: " << e.what() << "\n";
        return 3;
    }
}

namespace {

int dispatch(int argc, char** argv, const runapp::Cli& c) {
    using namespace runapp;
    if (c.command == "help") {
        std::cout << usage_text();
        return 0;
    }
    if (c.command == "version") {
        std::cout << "runapp (duet) " << duet::version << "\n";
        return 0;
    }
    if (c.command != "run" && c.command != "compare" && c.command != "tune" &&
        c.command != "info" && c.command != "cache" && c.command != "compile" &&
        c.command != "list" && c.command != "report" && !c.positional.empty())
        throw duet::Error::usage("runapp " + c.command + " takes no argument '" + c.positional[0] +
                                 "'");
    if (c.command == "list")
        return cmd_list(c);
    if (c.command == "info")
        return cmd_info(c);
    if (c.command == "run")
        return cmd_run(c, argc, argv);
    if (c.command == "compare")
        return cmd_compare(c, argc, argv);
    if (c.command == "report")
        return cmd_report(c);
    if (c.command == "tune")
        return cmd_tune(c);
    if (c.command == "bandwidth")
        return cmd_bandwidth(c);
    if (c.command == "doctor")
        return cmd_doctor(c);
    if (c.command == "cache")
        return cmd_cache(c);
    if (c.command == "compile")
        return cmd_compile(c);
    throw duet::Error::usage("unknown command " + c.command);
}

} // namespace
