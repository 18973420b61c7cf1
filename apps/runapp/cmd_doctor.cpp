// runapp doctor: each backend's self-check (OpenCL: loader -> ICD files -> vendor libraries ->
// platforms; CUDA: the driver and NVRTC), each backend's devices, then a test kernel on each
// device, with PASS/FAIL and what to do about a failure. What a backend checks is its own
// (Backend::diagnose()); this file knows no backend.
#include <iostream>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "output.hpp"

namespace runapp {

int cmd_doctor(const Cli& c) {
    // 1. What every backend finds about what it needs (CUDA: the driver and NVRTC), and its
    // devices.
    std::vector<duet::Finding> steps = duet::diagnose_backends();
    // 2. A test kernel on every device.
    for (auto* d : duet::devices()) {
        try {
            const int n = 1000;
            std::vector<float> a(n), b(n), out(n, -1.f);
            for (int i = 0; i < n; ++i) {
                a[i] = float(i);
                b[i] = float(2 * i);
            }
            auto q = d->create_queue();
            auto da = d->alloc<float>(n), db = d->alloc<float>(n), dc = d->alloc<float>(n);
            q->write(*da, a);
            q->write(*db, b);
            auto k = d->load_kernel("vecadd_naive");
            q->launch(*k, duet::Range(duet::round_up(n, 64)).local(64), *da, *db, *dc, n);
            q->read(*dc, out);
            int bad = 0;
            for (int i = 0; i < n; ++i)
                bad += out[i] != float(3 * i);
            steps.push_back({bad ? "FAIL" : "PASS", "test kernel on " + d->info().id(),
                             d->info().name + (bad ? ": " + std::to_string(bad) + " wrong results"
                                                   : ": vecadd correct"),
                             bad ? "the device computes wrong results: update its driver" : ""});
        } catch (const std::exception& e) {
            steps.push_back({"FAIL", "test kernel on " + d->info().id(), e.what(),
                             "the device is listed but cannot run a kernel: check its driver"});
        }
    }
    bool failed = false;
    for (const auto& s : steps)
        failed = failed || s.status == "FAIL";
    if (c.format == Format::json) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& s : steps)
            j.push_back(
                {{"status", s.status}, {"step", s.what}, {"detail", s.detail}, {"hint", s.hint}});
        std::cout << dump_json(nlohmann::json{{"steps", j}, {"ok", !failed}}) << "\n";
    } else {
        for (const auto& s : steps) {
            std::cout << "[" << s.status << "] " << s.what << ": " << s.detail << "\n";
            if (!s.hint.empty() && s.status != "PASS")
                std::cout << "       -> " << s.hint << "\n";
        }
    }
    return failed ? 3 : 0;
}

} // namespace runapp
