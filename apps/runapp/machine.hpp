#pragma once
// The machine a run happened on (host name, CPU model, OS) and a device's peaks: what a result
// file records so that results from several machines can be told apart and put side by side.
#include <nlohmann/json.hpp>

#include <duet/duet.hpp>

namespace runapp {

// {"host", "cpu", "os", "kernel"}: from gethostname, /proc/cpuinfo, /etc/os-release and uname;
// a fact that cannot be read is "" (never guessed).
nlohmann::json machine_info();
// The device's peak FP32 arithmetic in GFLOP/s where the device says enough to know it (CUDA:
// SMs x FP32 lanes of its architecture x 2 x clock); 0 when unknown.
double peak_gflops(const duet::DeviceInfo& info);

} // namespace runapp
