// Conformance, on every device of every backend: the architecture facts a backend reports
// (DeviceCapabilities' compute capability, device-scope fence, warpgroup MMA, simulator) hold
// together, so apps that ask them instead of a backend's name get consistent answers.
#include <cstdlib>
#include <string>

#include "conformance.hpp"

TEST_CASE("conformance: a device's architecture facts are consistent") {
    // Under the Oclgrind entries of ctest every device is Oclgrind's; elsewhere none is.
    const bool under_oclgrind = std::getenv("DUET_TEST_UNDER_OCLGRIND") != nullptr;
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            const auto& i = dev->info();
            const auto& c = i.caps;
            CHECK(c.simulator == under_oclgrind);
            CHECK(c.compute_major >= 0);
            CHECK(c.compute_minor >= 0);
            if (c.compute_major > 0) // only NVIDIA reports a compute capability
                CHECK(i.vendor.find("NVIDIA") != std::string::npos);
            else
                CHECK(c.compute_minor == 0);
            if (c.warpgroup_mma) // sm_90a: Hopper only
                CHECK((c.compute_major == 9 && c.compute_minor == 0));
            if (c.sm90a_ptx) // NVIDIA's OpenCL on Hopper
                CHECK((c.compute_major == 9 && c.compute_minor == 0 && i.backend == "opencl"));
            if (c.device_scope_fence) // CUDA, or an OpenCL compiler that takes PTX
                CHECK(c.compute_major > 0);
        }
    }
}
