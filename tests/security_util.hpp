#pragma once
// What test_security.cpp and test_security_cache.cpp share: a child process with a deadline and
// the check that a command neither crashed nor hung.
#include <chrono>
#include <thread>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "runapp_child.hpp"

namespace duet_test {

// Runs `fn` in a child process; true when it returned true within `seconds` (a hang is killed).
// How much slower a sanitized build runs Duet's own code (the include expander's bound is met in
// seconds normally; under AddressSanitizer and a Debug build it takes several times as long).
#if defined(__SANITIZE_ADDRESS__)
constexpr double sanitizer_slowdown = 6.0;
#else
constexpr double sanitizer_slowdown = 1.0;
#endif

template <class Fn> inline bool in_child_within(double seconds, Fn fn) {
    seconds *= sanitizer_slowdown;
    const pid_t pid = ::fork();
    if (pid == 0)
        ::_exit(fn() ? 0 : 1);
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    for (;;) {
        if (::waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(seconds)) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

inline void check_no_crash(const Proc& r) {
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.signal == 0);
    CHECK_FALSE(r.timed_out);
    CHECK(r.code >= 0);
    CHECK(r.code <= 3);
}

} // namespace duet_test
