// Conformance, on every device of every backend: launch geometry as the app means it (the
// driver's choice of local size, the occupancy suggestion) and the device facts launch code
// sizes itself by (vector widths, every device-type bit).
#include <cstdlib>
#include <vector>

#include "conformance.hpp"
#include "idiom_kernels.hpp"

using duet::Range;

namespace {

duet::BuildOptions iota_program() {
    auto o = conformance::user_program(idioms::opencl_source, idioms::cuda_source, "idioms");
    o.defines = {{"TYPE", "float"}};
    return o;
}

} // namespace

TEST_CASE("conformance: the driver chooses the local size, and a group size is suggested") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto k = conformance::load_or_skip(*dev, "fill_iota", iota_program());
            if (!k)
                continue;
            auto q = dev->create_queue();
            // 1000 work-items: no power of two above 8 divides it; the driver's choice is its own
            // (OpenCL: any size that divides; CUDA: the occupancy block that divides).
            const int n = 1000;
            std::vector<int> out(n, -1);
            auto dout = dev->alloc<int>(n);
            q->launch(*k, Range(n).driver_local(), *dout, 5, n);
            q->read(*dout, out);
            CHECK(out[0] == 5);
            CHECK(out[n - 1] == 5 + n - 1);

            const std::size_t g = k->suggested_group_size();
            CHECK(g >= 1);
            CHECK(g <= k->max_work_group_size());
            // It launches: rounded up to whole groups of the suggested size.
            q->launch(*k, Range(duet::round_up(n, g)).local(g), *dout, 9, n);
            q->read(*dout, out);
            CHECK(out[n - 1] == 9 + n - 1);
            // More local memory than the device has is refused by name.
            CHECK_THROWS_AS(k->suggested_group_size(dev->info().local_mem_bytes +
                                                    dev->info().local_mem_optin_bytes + 1),
                            duet::Error);
        }
    }
}

TEST_CASE("conformance: vector widths and device-type bits") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            const auto& i = dev->info();
            CHECK(i.native_vector_width.i32 >= 1);
            CHECK(i.native_vector_width.f32 >= 1);
            CHECK(i.preferred_vector_width.i32 >= 1);
            CHECK(i.preferred_vector_width.f32 >= 1);
            if (i.caps.fp64)
                CHECK(i.preferred_vector_width.f64 >= 1);
            CHECK(i.has_type(i.device_type)); // the type shown is one of the bits
            CHECK(i.device_type_bits != 0);
            if (duet_test::under_oclgrind()) { // Oclgrind reports every type at once
                CHECK(i.is_cpu());
                CHECK(i.is_gpu());
                CHECK(i.is_accelerator());
                CHECK(i.device_type == duet::DeviceType::gpu);
            } else if (i.backend == "cuda") {
                CHECK(i.is_gpu());
                CHECK_FALSE(i.is_cpu());
            }
        }
    }
}

TEST_CASE("conformance: a pinned host buffer is a kernel argument the kernel writes") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto k = conformance::load_or_skip(*dev, "fill_iota", iota_program());
            if (!k)
                continue;
            const int n = 64;
            auto host = dev->alloc_host(n * sizeof(int));
            if (!host->device_buffer()) {
                MESSAGE("this device cannot reach its pinned host memory; nothing to check");
                CHECK_FALSE(host->pinned());
                continue;
            }
            CHECK(host->device_buffer()->size() == host->size());
            int* values = static_cast<int*>(host->data());
            for (int i = 0; i < n; ++i)
                values[i] = -1;
            auto q = dev->create_queue();
            q->launch(*k, Range(n).local(16), *host, 100, n);
            q->finish();
            values = static_cast<int*>(host->data()); // OpenCL maps it again after the kernel
            CHECK(values[0] == 100);
            CHECK(values[n - 1] == 100 + n - 1);
            // Written by the host, read by the next kernel, written again.
            values[0] = -5;
            q->launch(*k, Range(n).local(16), *host, values[0], n);
            q->finish();
            values = static_cast<int*>(host->data());
            CHECK(values[n - 1] == -5 + n - 1);
        }
    }
}
