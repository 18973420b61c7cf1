// The OpenCL backend's sm_90a path on every OpenCL device: a kernel with marked sm_90a lines
// (kernels_cl/sm90a.clh) runs them where the device has nv.sm90a_ptx, and is built with
// DUET_SM90A_FALLBACK (its other path) everywhere else.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <duet/duet.hpp>

#include "test_util.hpp"

namespace {

// Its marked lines: wgmma.fence, which ptxas takes for sm_90a only (so the target was raised),
// and a mov whose 7 reaches the output only if the line was uncommented.
const char* const probe_cl = R"(
#define DUET_SM90A "//duet-sm90a "
__kernel __attribute__((reqd_work_group_size(128, 1, 1))) void sm90a_probe(__global int* out) {
#ifdef DUET_SM90A_FALLBACK
    out[get_global_id(0)] = 1;
#else
    int x = 0;
    __asm__ __volatile__(DUET_SM90A "wgmma.fence.sync.aligned;" ::: "memory");
    __asm__ __volatile__(DUET_SM90A "mov.u32 %0, 7;" : "=r"(x));
    out[get_global_id(0)] = x;
#endif
}
)";

} // namespace

TEST_CASE("sm_90a lines: raised where the device has nv.sm90a_ptx, the fallback path elsewhere") {
    const auto devices = duet_test::devices_of("opencl");
    if (devices.empty())
        MESSAGE("no OpenCL device: nothing to run");
    for (auto* dev : devices) {
        SUBCASE(dev->label().c_str()) {
            const bool raised = dev->info().has_extension("nv.sm90a_ptx");
            duet::BuildOptions o;
            o.sources.opencl = probe_cl;
            o.sources.origin = "sm90a_probe.cl";
            auto k = dev->load_kernel("sm90a_probe", o);
            CHECK((k->build_options().find("DUET_SM90A_FALLBACK") == std::string::npos) == raised);
            auto q = dev->create_queue();
            auto out = dev->alloc<int>(128);
            q->launch(*k, duet::Range{128}.local(128), *out);
            std::vector<int> host(128, -1);
            q->read(*out, host);
            q->finish();
            for (int v : host)
                CHECK(v == (raised ? 7 : 1));
        }
    }
}
