// Conformance, on every device of every backend: the architecture facts a backend reports
// (DeviceInfo's architecture and vendor extensions, DeviceCapabilities' device-scope fence and
// simulator) hold together, so apps that ask them instead of a backend's name get consistent
// answers.
#include <algorithm>
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
            // Extensions: sorted, each once, each "vendor.feature".
            CHECK(std::is_sorted(i.extensions.begin(), i.extensions.end()));
            CHECK(std::adjacent_find(i.extensions.begin(), i.extensions.end()) ==
                  i.extensions.end());
            for (const auto& e : i.extensions) {
                INFO(e);
                CHECK(e.find('.') != std::string::npos);
                CHECK(i.has_extension(e));
            }
            CHECK_FALSE(i.has_extension("no.such_extension"));
            const bool nvidia_arch = i.architecture.rfind("sm_", 0) == 0;
            if (nvidia_arch) // only NVIDIA reports an sm_ architecture
                CHECK(i.vendor.find("NVIDIA") != std::string::npos);
            if (i.has_extension("nv.mma_sync")) // mma.sync .tf32: sm_80+, through inline PTX
                CHECK((nvidia_arch && c.inline_asm && c.matrix_units));
            if (i.has_extension("nv.wgmma")) // sm_90a: Hopper only
                CHECK(i.architecture == "sm_90");
            if (i.has_extension("nv.sm90a_ptx")) // NVIDIA's OpenCL on Hopper
                CHECK((i.architecture == "sm_90" && i.backend == "opencl"));
            if (c.device_scope_fence) // CUDA, or an OpenCL compiler that takes PTX
                CHECK(nvidia_arch);
        }
    }
}
