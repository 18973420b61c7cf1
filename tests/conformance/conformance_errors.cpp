// Conformance, on every device of every backend: each kind of bad input is a clear Error, never
// a crash. The checks on one backend's own wording are guarded by the backend, and say why.
#include <string>
#include <vector>

#include "conformance.hpp"

using conformance::contains;
using duet::Error;
using duet::Range;

namespace {

const char* const broken_cl = "__kernel void oops(__global float* p) { p[0] = undeclared_thing; }";
const char* const broken_cu =
    "extern \"C\" __global__ void oops(float* p) { p[0] = undeclared_thing; }";

} // namespace

TEST_CASE("conformance: bad input is a clear Error, never a crash") {
    for (auto* dev : conformance::every_device()) {
        SUBCASE(dev->label().c_str()) {
            auto q = dev->create_queue();
            auto buf = dev->alloc<float>(16);
            std::vector<float> big(32), small(16);

            CHECK_THROWS_WITH_AS(q->write(*buf, big),
                                 doctest::Contains("does not fit a buffer of 64 bytes"), Error);
            CHECK_THROWS_WITH_AS(q->read(*buf, big), doctest::Contains("does not fit"), Error);
            CHECK_THROWS_AS(q->read_bytes(*buf, small.data(), 8, 60), Error);

            // Over the device's largest allocation, and 0 bytes: OpenCL's own checks
            // (CL_DEVICE_MAX_MEM_ALLOC_SIZE, and clCreateBuffer refuses 0 bytes); CUDA has no
            // per-allocation limit below its memory size (test_cuda checks an allocation over
            // the memory) and allocates 0 bytes.
            if (!conformance::runs_cuda(*dev)) {
                const std::size_t huge = dev->info().max_alloc_bytes + 4096;
                CHECK_THROWS_WITH_AS(dev->alloc_bytes(huge),
                                     doctest::Contains("largest allocation"), Error);
                CHECK_THROWS_AS(dev->alloc_bytes(0), Error);
            }

            // A kernel name that is nowhere, and one missing from a user program.
            try {
                dev->load_kernel("no_such_kernel");
                FAIL("no error");
            } catch (const Error& e) {
                CHECK(e.kind() == duet::ErrorKind::not_found);
                CHECK(contains(e.what(), "no_such_kernel"));
                // The OpenCL backend's wording (CUDA's is "no CUDA kernel named ...", test_cuda).
                if (!conformance::runs_cuda(*dev))
                    CHECK(contains(e.what(), "no OpenCL kernel named 'no_such_kernel'"));
            }
            auto opts = conformance::user_program(conformance::user_cl, conformance::user_cu,
                                                  "user source");
            opts.defines = {{"FACTOR", "1.0f"}};
            try {
                dev->load_kernel("missing", opts);
                FAIL("no error");
            } catch (const Error& e) {
                if (!conformance::compiler_missing(e)) {
                    CHECK(e.kind() == duet::ErrorKind::not_found);
                    CHECK(contains(e.what(), "scale_add"));
                }
            }

            // A source that does not compile: the message holds the build log and the origin.
            auto broken = conformance::user_program(broken_cl, broken_cu, "broken.src");
            try {
                dev->load_kernel("oops", broken);
                FAIL("no error");
            } catch (const Error& e) {
                if (!conformance::compiler_missing(e)) {
                    CHECK(e.kind() == duet::ErrorKind::build);
                    CHECK(contains(e.what(), "broken.src"));
                    CHECK(contains(e.build_log(), "undeclared_thing"));
                }
            }

            // Local sizes over the device's limit, and ranges that do not divide.
            auto k = dev->load_kernel("vecadd_naive");
            const std::size_t over = dev->info().max_work_group_size * 2;
            CHECK_THROWS_WITH_AS(q->launch(*k, Range(over).local(over), *buf, *buf, *buf, 16),
                                 doctest::Contains("limit"), Error);
            CHECK_THROWS_WITH_AS(q->launch(*k, Range(100).local(64), *buf, *buf, *buf, 16),
                                 doctest::Contains("not a multiple"), Error);
            // A scalar of the wrong width for an int parameter.
            CHECK_THROWS_AS(q->launch(*k, Range(16).local(16), *buf, *buf, *buf, std::size_t{16}),
                            Error);
            // An empty event.
            CHECK_THROWS_AS(duet::Event().elapsed_ms(), Error);
            // Bad defines.
            duet::BuildOptions bad_define;
            bad_define.defines = {{"1BAD", "x"}};
            CHECK_THROWS_AS(dev->load_kernel("vecadd_naive", bad_define), Error);
        }
    }
}
