// Limits that must be clear errors before anything runs, and a hang that must end: launch sizes
// the drivers cannot take, a fill whose size overflows, problems beyond the memory that a
// cgroup or RLIMIT_AS leaves, an LD_LIBRARY_PATH that would load libraries from the current
// directory, and the default watchdog (docs/design/security.md).
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>

#include <sys/resource.h>

#include <doctest/doctest.h>

#include <duet/backend/elf_check.hpp>
#include <duet/duet.hpp>
#include <duet/host_memory.hpp>
#include <duet/library_path.hpp>

#include "inputs.hpp"
#include "runapp_child.hpp"
#include "security_util.hpp"
#include "test_util.hpp"

using duet_test::check_no_crash;
using duet_test::in_child_within;

TEST_CASE("security: launch sizes past what the drivers take, and fill overflows, are errors") {
    duet::BuildOptions opts;
    opts.sources.opencl = "__kernel void nothing(__global int* x) { if (x[0] == 7) x[0] = 8; }\n";
    opts.sources.origin = "<nothing>";
    const std::size_t big = std::size_t{1} << 31;
    for (auto* dev : duet_test::devices_of("opencl")) {
        SUBCASE(dev->label().c_str()) {
            auto k = dev->load_kernel("nothing", opts);
            auto q = dev->create_queue();
            auto buf = dev->alloc<int>(16);
            for (const auto& range :
                 {duet::Range(std::size_t{1} << 62), duet::Range(big, big),
                  duet::Range(std::size_t{1} << 40), duet::Range(std::size_t{1} << 33)}) {
                CAPTURE(range.to_string());
                try {
                    q->launch(*k, range, *buf);
                    q->finish();
                    FAIL("launched");
                } catch (const duet::Error& e) {
                    CHECK(e.kind() == duet::ErrorKind::usage);
                }
            }
            CHECK_THROWS_AS(q->fill(*buf, 1.0f, std::numeric_limits<std::size_t>::max() / 4 + 2),
                            duet::Error);
        }
    }
}

TEST_CASE("security: host memory counts RLIMIT_AS; a problem beyond it fails at once") {
    // In a child: with the address space limited to 512 MiB more than in use, what is
    // available is at most that.
    CHECK(in_child_within(30, [] {
        std::ifstream in("/proc/self/status");
        std::string key;
        std::uint64_t vm_kib = 0;
        for (std::string line; in >> key;)
            if (key == "VmSize:" && in >> vm_kib)
                break;
            else
                std::getline(in, line);
        const rlim_t lim = (vm_kib + 512 * 1024) * 1024;
        const rlimit r{lim, lim};
        if (vm_kib == 0 || ::setrlimit(RLIMIT_AS, &r) != 0)
            return false;
        const std::uint64_t avail = duet::host_memory_available();
        return avail > 0 && avail <= (std::uint64_t{512} << 20);
    }));
    DUET_NEED_OPENCL();
    // reduction of 2e9 ints (8 GB, and as much again on a CPU device) under an 8 GiB address
    // space: a usage error before anything is built or generated.
    TempDir t("rlimit");
    const auto [code, out] = duet_test::shell(
        "ulimit -v 8388608 && DUET_CACHE_DIR=" + (t.path / "c").string() + " " +
        duet_test::runapp_path() +
        " run reduction --size 2000000000 --variant cpu_i32 --reps 1 --warmup 0 --device opencl:0");
    INFO(out);
#if defined(__SANITIZE_ADDRESS__)
    // AddressSanitizer reserves terabytes of shadow address space: under `ulimit -v` the process
    // cannot start, so only the in-process check above runs in a sanitizer build.
    (void)code;
    MESSAGE("AddressSanitizer build: runapp cannot start under ulimit -v; not checked");
#else
    CHECK(code == 2);
    CHECK(contains(out, "available"));
#endif
}

TEST_CASE("security: a buffer over the device's largest allocation fails before inputs are made") {
    duet::DeviceInfo info;
    info.backend = "opencl";
    info.max_alloc_bytes = std::uint64_t{4} << 30;
    CHECK_NOTHROW(duet::apps::check_device_alloc(info, 4.0 * (1 << 30), "a"));
    CHECK_THROWS_AS(duet::apps::check_device_alloc(info, 8e9, "reduction's values"), duet::Error);
    info.max_alloc_bytes = 0; // not known: not checked
    CHECK_NOTHROW(duet::apps::check_device_alloc(info, 8e9, "a"));
    DUET_NEED_OPENCL();
    // reduction of 2e9 ints is one 8 GB buffer: on a device that cannot allocate it (PoCL takes
    // a quarter to a third of the host's memory), it made its values for 49 s before the
    // driver refused the buffer.
    auto* dev = duet_test::devices_of("opencl").front();
    if (dev->info().max_alloc_bytes == 0 || dev->info().max_alloc_bytes >= 8000000000ull) {
        MESSAGE(dev->label() << " can allocate 8 GB in one buffer: not checked");
        return;
    }
    TempDir t("maxalloc");
    const auto r = runapp({"run", "reduction", "--size", "2000000000", "--variant", "cpu_i32",
                           "--reps", "1", "--warmup", "0", "--device", dev->info().id()},
                          {{"DUET_CACHE_DIR", (t.path / "c").string()}}, t.path, 20);
    check_no_crash(r);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(contains(r.err, "reduction's values"));
    CHECK(contains(r.err, "largest allocation"));
}

TEST_CASE("security: LD_LIBRARY_PATH with an empty element and a truncated library in the "
          "current directory: no SIGBUS, backends refused or the path cleaned") {
    CHECK(duet::library_path_problem("/usr/lib:/opt/lib").empty());
    CHECK(contains(duet::library_path_problem("/nonexistent:"), "empty element"));
    CHECK(contains(duet::library_path_problem("lib:/usr/lib"), "relative element 'lib'"));
    CHECK(duet::safe_library_path("/a::b:/c:") == "/a:/c");
    std::string listed;
    std::ifstream("/etc/OpenCL/vendors/pocl.icd") >> listed;
    const std::string lib = listed.empty() ? "" : duet::find_shared_library(listed);
    if (lib.empty() || listed.find('/') != std::string::npos) {
        MESSAGE("no PoCL ICD library named by soname: skipped");
        return;
    }
    TempDir t("ldpath");
    for (const std::string& name : {listed, std::string("libOpenCL.so.1")}) {
        std::ofstream f(t.path / name, std::ios::binary);
        const std::string head = read_file(lib).substr(0, 8192); // an ELF header, then nothing
        f << head;
    }
    // runapp cleans the path (and says so); libduet alone refuses its backends.
    for (const char* cleaned : {"", "DUET_LIBRARY_PATH_CLEANED=1 "}) {
        const auto [code, out] =
            duet_test::shell("cd " + t.path.string() + " && " + cleaned +
                             "LD_LIBRARY_PATH=/nonexistent: " + duet_test::runapp_path() + " list");
        INFO(out);
        CHECK(code == (*cleaned ? 3 : 0)); // refused: no device, exit 3; cleaned: PoCL's
        CHECK(contains(out, "LD_LIBRARY_PATH"));
        CHECK(contains(out, "opencl:0") == !*cleaned);
    }
}

TEST_CASE("security: the default watchdog ends a kernel that never returns, saying how to "
          "change it") {
    DUET_NEED_OPENCL();
    TempDir t("idle");
    const fs::path src = DUET_SOURCE_DIR;
    fs::copy(src / "kernels_cl", t.path / "kernels_cl", fs::copy_options::recursive);
    const fs::path f = t.path / "kernels_cl" / "vecadd.cl";
    std::string text = read_file(f);
    const auto at = text.find("c[i] = a[i] + b[i];");
    REQUIRE(at != std::string::npos);
    text.replace(at, 19, "for (int k = 0; ; k = (k + 1) & 7) c[(i + k) % n] = a[i] + b[i] + k;");
    write_file(f, text);
    // No --timeout: the default, shortened for the test.
    const auto r = runapp({"vecadd", "--variant", "naive", "--size", "1000", "--reps", "1",
                           "--warmup", "0", "--device", "opencl:0"},
                          {{"DUET_KERNEL_DIR", t.path.string()},
                           {"DUET_CACHE_DIR", (t.path / "c").string()},
                           {"DUET_IDLE_TIMEOUT_S", "5"}},
                          t.path, 90);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK_FALSE(r.timed_out);
    CHECK(r.code == 3);
    CHECK(contains(r.err, "default watchdog"));
    CHECK(contains(r.err, "--timeout"));
}

TEST_CASE("security: a run in which Oclgrind reported an invalid access fails, whatever its "
          "output") {
    const fs::path vendors = fs::path(DUET_BINARY_DIR) / "oclgrind-vendors";
    if (!fs::exists(vendors / "oclgrind.icd")) {
        MESSAGE("no Oclgrind ICD: skipped");
        return;
    }
    // vecadd_naive, right, but also writing past the end of its input b (which has no guard).
    TempDir t("oclgrind");
    const fs::path src = DUET_SOURCE_DIR;
    fs::copy(src / "kernels_cl", t.path / "kernels_cl", fs::copy_options::recursive);
    const fs::path f = t.path / "kernels_cl" / "vecadd.cl";
    std::string text = read_file(f);
    const auto at = text.find("c[i] = a[i] + b[i];");
    REQUIRE(at != std::string::npos);
    text.replace(at, 19,
                 "{ c[i] = a[i] + b[i]; if (i == 0) ((__global float*)b)[n + 1000] = 1.0f; }");
    write_file(f, text);
    const auto r = runapp({"vecadd", "--variant", "naive", "--size", "1000", "--reps", "1",
                           "--warmup", "0", "--device", "opencl:0"},
                          {{"DUET_KERNEL_DIR", t.path.string()},
                           {"DUET_CACHE_DIR", (t.path / "c").string()},
                           {"OCL_ICD_VENDORS", vendors.string()},
                           {"OCL_ICD_FILENAMES", std::nullopt}},
                          t.path, 120);
    INFO(r.cmd << "\nstdout: " << r.out << "\nstderr: " << r.err);
    CHECK(r.signal == 0);
    CHECK(contains(r.err, "Invalid write"));
    CHECK(r.code == 1);
    CHECK(contains(r.out + r.err, "Oclgrind reported"));
}
