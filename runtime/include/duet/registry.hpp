#pragma once
// Finding devices: every backend plugin loaded once, devices in one global order.
#include <string>
#include <vector>

#include <duet/device.hpp>

namespace duet {

// One OpenCL platform (or the CUDA driver) as a backend found it.
struct PlatformReport {
    std::string name;     // platform name
    std::string vendor;   // platform vendor
    std::string version;  // platform version string
    std::string library;  // vendor library (ICD) the platform came from, when known
    int device_count = 0; // devices it reported (0 is not an error)
    std::string note;     // why it has no devices, or anything odd
};

// What one backend found, and why it has no devices when it has none.
struct BackendReport {
    std::string name;    // "opencl", "cuda"
    std::string plugin;  // path of the plugin module ("" when it could not be found)
    bool loaded = false; // the plugin module opened and initialised
    std::string reason;  // why there are no devices (empty when there are some)
    std::string version; // backend/runtime version, when known
    std::vector<PlatformReport> platforms;
    int device_count = 0;
};

// One thing a backend's self-check found; runapp doctor prints them in order.
struct Finding {
    std::string status; // "PASS", "WARN", "FAIL" or "INFO"
    std::string what;   // what was checked ("OpenCL ICD loader", "backend cuda")
    std::string detail; // what was found
    std::string hint;   // what to do about it (for WARN and FAIL), may be empty
};

// All devices of all backends, in global-index order (the order runapp list shows).
std::vector<Device*> devices();
// The device's index in devices() (the number runapp list shows).
int global_index(const Device& dev);
// What every backend found, including the ones that found nothing.
std::vector<BackendReport> backend_reports();
// Each DUET_BACKEND_PATH entry refused and each plugin left unloaded, with the reason.
std::vector<std::string> plugins_refused();
// Picks a device. The forms, tried in this order:
//   "opencl:portable-computing-language/cpu-..."  a stable id (device_id.hpp, runapp list's
//                        "stable id" column): the same device whatever else is installed; the
//                        form to write into scripts and configuration
//   "opencl:1", "cuda:0" backend:index, the index among that backend's devices (opens only that
//                        backend); it moves when another OpenCL implementation is installed
//   "cuda", "opencl"     that backend's first device
//   ""                   the first GPU, else the first device
//   "3"                  the index in devices() (runapp list's "#")
//   "uuid:<hex>"         the device with that UUID (DeviceInfo::uuid)
//   "pci:0000:17:00.0"   the first device on that PCI bus (CUDA before OpenCL)
//   anything else        the first device whose name contains it, ignoring case
// No match is a not_found Error listing the devices; no device at all is an unavailable Error.
Device& select_device(const std::string& spec);
// Picks device `spec` among one backend's devices ("0" is that backend's first device).
Device& select_device(const std::string& spec, const std::string& backend);
// Every device seen through another backend that is the same physical device as `dev`
// (matched by UUID, then PCI bus id).
std::vector<Device*> same_physical_device(const Device& dev);
// The names of the backends Duet knows: those this build was configured with (whether their
// plugin is present or not), then any other libduet_NAME.so found where plugins are looked for.
std::vector<std::string> known_backends();
// Every backend's self-check, in known_backends() order: what its plugin finds about what it
// needs (a loader, a driver, vendor libraries), then one finding for the backend itself (its
// devices, or why it has none). Loads every backend.
std::vector<Finding> diagnose_backends();

} // namespace duet
