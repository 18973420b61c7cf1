#pragma once
// The plugin interface: what a backend module exports and implements.
#include <cstddef>
#include <memory>

#include <duet/device.hpp>
#include <duet/registry.hpp>

// Bumped whenever Backend or the public interfaces change in an incompatible way.
#define DUET_BACKEND_ABI 2

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
};

} // namespace duet

// Each plugin exports these two functions with C linkage.
extern "C" {
// Returns DUET_BACKEND_ABI as the plugin was compiled.
typedef int (*duet_backend_abi_fn)();
// Creates the backend; never throws (a backend with no devices reports why).
typedef duet::Backend* (*duet_backend_create_fn)();
}

#define DUET_BACKEND_EXPORT extern "C" __attribute__((visibility("default")))
