// runapp: the command-line tool. Exit codes: 0 success, 1 a result was wrong, 2 a usage error,
// 3 a device or runtime error.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include <duet/duet.hpp>

#include "commands.hpp"

namespace {

// --timeout: a run that hangs (a kernel that never ends, a wedged driver) cannot be stopped
// from inside the process politely, so a watchdog reports it and ends the process.
void start_watchdog(double seconds) {
    std::thread([seconds] {
        std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
        std::cerr << "\nrunapp: error: timed out after " << seconds
                  << " s (--timeout); the kernel or the device did not finish\n";
        std::_Exit(3);
    }).detach();
}

} // namespace

int main(int argc, char** argv) {
    using namespace runapp;
    try {
        const Cli c = parse(argc, argv);
        if (c.timeout_s > 0)
            start_watchdog(c.timeout_s);
        if (c.command == "help") {
            std::cout << usage_text();
            return 0;
        }
        if (c.command == "version") {
            std::cout << "runapp (duet) " << duet::version << "\n";
            return 0;
        }
        if (c.command != "run" && c.command != "compare" && c.command != "tune" && c.command != "info" &&
            c.command != "cache" && !c.positional.empty())
            throw duet::Error::usage("runapp " + c.command + " takes no argument '" + c.positional[0] + "'");
        if (c.command == "list") return cmd_list(c);
        if (c.command == "info") return cmd_info(c);
        if (c.command == "run") return cmd_run(c, argc, argv);
        if (c.command == "compare") return cmd_compare(c, argc, argv);
        if (c.command == "tune") return cmd_tune(c);
        if (c.command == "bandwidth") return cmd_bandwidth(c);
        if (c.command == "doctor") return cmd_doctor(c);
        if (c.command == "cache") return cmd_cache(c);
        throw duet::Error::usage("unknown command " + c.command);
    } catch (const duet::Error& e) {
        std::cerr << "runapp: error: " << e.what() << "\n";
        const bool usage = e.kind() == duet::ErrorKind::usage || e.kind() == duet::ErrorKind::not_found;
        // unsupported (the device cannot run it) is a device error: exit code 3.
        if (usage)
            std::cerr << "(runapp --help shows the usage)\n";
        return usage ? 2 : 3;
    } catch (const std::exception& e) {
        std::cerr << "runapp: error: " << e.what() << "\n";
        return 3;
    }
}
