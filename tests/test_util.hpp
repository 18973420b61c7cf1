#pragma once
// Helpers for device tests: every device of a backend, and whether the run must find one.
#include <cstdlib>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include <duet/duet.hpp>

namespace duet_test {

// The devices of `backend`. With DUET_REQUIRE_<BACKEND>=1 (set by CI) finding none fails the
// test, so a broken install cannot pass by testing nothing.
inline std::vector<duet::Device*> devices_of(const std::string& backend) {
    // DUET_TEST_SKIP_PLATFORM=A,B leaves out devices whose platform name contains A or B (on the
    // GPU machine: its PoCL 5.0, while its kernel compiler asserted on two of our kernels).
    const char* skip_env = std::getenv("DUET_TEST_SKIP_PLATFORM");
    const std::string skip = skip_env ? skip_env : "";
    auto skipped = [&](const std::string& platform) {
        std::size_t start = 0;
        while (start <= skip.size()) {
            const auto comma = skip.find(',', start);
            const auto item =
                skip.substr(start, comma == std::string::npos ? comma : comma - start);
            if (!item.empty() && platform.find(item) != std::string::npos)
                return true;
            if (comma == std::string::npos)
                break;
            start = comma + 1;
        }
        return false;
    };
    std::vector<duet::Device*> out;
    for (auto* d : duet::devices())
        if (d->info().backend == backend && !skipped(d->info().platform))
            out.push_back(d);
    if (out.empty()) {
        std::string reason;
        for (const auto& r : duet::backend_reports())
            if (r.name == backend)
                reason = r.reason;
        std::string var = "DUET_REQUIRE_" + backend;
        for (auto& c : var)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        const char* req = std::getenv(var.c_str());
        if (req && std::string(req) == "1")
            FAIL("no " << backend << " device, and " << var << "=1: " << reason);
        MESSAGE("no " << backend << " device: " << reason);
    }
    return out;
}

inline bool under_oclgrind() {
    const char* v = std::getenv("DUET_TEST_UNDER_OCLGRIND");
    return v && std::string(v) == "1";
}

} // namespace duet_test
