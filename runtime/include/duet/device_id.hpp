#pragma once
// Stable device ids: a name for a device that stays the same when other OpenCL implementations
// (ICDs) or GPUs are installed or removed, unlike "opencl:0", which is a position.
#include <string>
#include <vector>

#include <duet/device.hpp>

namespace duet {

// The device's stable id: "BACKEND:PLATFORM/DEVICE" for OpenCL ("opencl:portable-computing-
// language/cpu-haswell-amd-epyc-7b13"), "cuda:DEVICE" for CUDA ("cuda:nvidia-h100-80gb-hbm3"),
// names lower-cased with every run of other characters turned into one '-'. Where several
// devices of a backend share that name, each gets "@PCI-BUS-ID" when the device reports one
// ("cuda:nvidia-h100-80gb-hbm3@0000:17:00.0"), else "#N", its 1-based position among them. It
// depends only on the devices of its own backend and platform, so it survives adding or
// removing other ICDs. select_device() accepts it (case-insensitive). Opens every backend.
std::string stable_id(const Device& dev);

// The same, for a device among `siblings` (the devices of its backend, in the backend's order,
// `info` among them): the rule above, without opening other backends.
std::string stable_id(const DeviceInfo& info, const std::vector<const DeviceInfo*>& siblings);

} // namespace duet
