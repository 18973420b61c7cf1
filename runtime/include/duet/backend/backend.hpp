#pragma once
// The plugin interface: what a backend module exports and implements.
#include <cstddef>
#include <memory>
#include <vector>

#include <duet/device.hpp>
#include <duet/registry.hpp>

// Bumped whenever Backend or the public interfaces change in an incompatible way (8: sources
// and compiler options keyed by dialect, Device::takes, Kernel::declaration; 9:
// BuildOptions::own_dialect; 10: DeviceInfo's architecture and extensions in place of the
// vendor's fields of DeviceCapabilities).
#define DUET_BACKEND_ABI 10

namespace duet {

// A backend: its report and its devices. Created once by the plugin loader.
class Backend {
  public:
    virtual ~Backend() = default;
    // What the backend found, and why it has no devices when it has none.
    virtual BackendReport report() const = 0;
    // Number of devices.
    virtual std::size_t device_count() const = 0;
    // Device i (0-based), owned by the backend.
    virtual Device& device(std::size_t i) = 0;
    // What the backend finds about what it needs, for runapp doctor: a loader, a driver, vendor
    // libraries, each a PASS/WARN/FAIL/INFO finding with what to do. Never throws. The registry
    // adds the backend's own line (its devices, or why it has none) after these.
    virtual std::vector<Finding> diagnose() const { return {}; }
};

} // namespace duet

// Each plugin is a module named libduet_NAME.so (NAME is the backend's name, the prefix of its
// device ids) that exports these two functions with C linkage. The registry loads every such
// module in its search path, checks the ABI number first and only then creates the backend.
extern "C" {
// Returns DUET_BACKEND_ABI as the plugin was compiled.
typedef int (*duet_backend_abi_fn)();
// Creates the backend; never throws (a backend with no devices reports why).
typedef duet::Backend* (*duet_backend_create_fn)();
}

#define DUET_BACKEND_EXPORT extern "C" __attribute__((visibility("default")))
