// Unit tests of the runtime's backend-neutral parts (part of test_units): ranges, stats,
// errors, kernel lookup, the registry, device selection and stable device ids.
#include <doctest/doctest.h>

#include <duet/backend/kernel_sources.hpp>
#include <duet/duet.hpp>

using duet::Error;
using duet::Range;

TEST_CASE("Range: local sizes, rounding and validation") {
    Range r(1000);
    r.local(256);
    CHECK_THROWS_WITH_AS(r.validate(), doctest::Contains("not a multiple"), Error);
    const Range up = r.rounded_up();
    CHECK(up.global()[0] == 1024);
    CHECK_NOTHROW(up.validate());
    CHECK(Range(64, 48).local(16, 16).to_string() == "64x48 / 16x16");
    CHECK_THROWS_AS(Range(0).validate(), Error);
    CHECK_THROWS_AS(Range(64).local(0).validate(), Error);
    CHECK(duet::round_up(17, 8) == 24);
    CHECK(duet::round_up(16, 8) == 16);
}

TEST_CASE("stats: median of odd and even counts") {
    auto s = duet::summarize({5, 1, 3});
    CHECK(s.median == 3);
    CHECK(s.min == 1);
    CHECK(s.max == 5);
    s = duet::summarize({4, 1, 3, 2});
    CHECK(s.median == doctest::Approx(2.5));
    CHECK(s.count == 4);
    CHECK(duet::summarize({}).count == 0);
}

TEST_CASE("Error: message names backend, call, code name and carries the build log") {
    Error e(duet::ErrorKind::build, "opencl", "clBuildProgram", -11, "CL_BUILD_PROGRAM_FAILURE",
            "building x.cl", "x.cl:3: error: expected ';'");
    const std::string w = e.what();
    CHECK(w.find("opencl") != std::string::npos);
    CHECK(w.find("clBuildProgram failed with CL_BUILD_PROGRAM_FAILURE (-11)") != std::string::npos);
    CHECK(w.find("expected ';'") != std::string::npos);
    CHECK(e.build_log() == "x.cl:3: error: expected ';'");
    CHECK(e.code() == -11);
    CHECK(Error::usage("x").kind() == duet::ErrorKind::usage);
}

TEST_CASE("kernel sources: every kernel is found in both languages, in the same file") {
    using duet::KernelLanguage;
    const auto cl = duet::kernel_names(KernelLanguage::opencl_c);
    REQUIRE(!cl.empty());
    for (const auto& name : cl) {
        INFO(name);
        auto clf = duet::find_kernel_source(name, KernelLanguage::opencl_c);
        auto cuf = duet::find_kernel_source(name, KernelLanguage::cuda);
        REQUIRE(clf);
        REQUIRE(cuf);
        const auto stem = [](std::string f) { return f.substr(0, f.rfind('.')); };
        CHECK(stem(clf->name) == stem(cuf->name));
    }
    CHECK_FALSE(duet::find_kernel_source("no_such_kernel", KernelLanguage::opencl_c));
    CHECK(duet::kernels_defined_in("__kernel void a(int x) {}\nkernel "
                                   "__attribute__((reqd_work_group_size(64,1,1))) void b(int y) {}",
                                   KernelLanguage::opencl_c) == std::vector<std::string>{"a", "b"});
    CHECK(duet::kernels_defined_in("extern \"C\" __global__ void k(float* p) {}",
                                   KernelLanguage::cuda) == std::vector<std::string>{"k"});
    CHECK(duet::kernels_defined_in(
              "extern \"C\" __global__ void __launch_bounds__(256) a(int n) {}\n"
              "extern \"C\" __global__ __launch_bounds__(128, 2) void b(int n) {}\n"
              "extern \"C\" __global__ void __launch_bounds__(N * (2), 1) __cluster_dims__(2, 1, "
              "1) c(int n) {}\n"
              "extern \"C\" __global__ void __launch_bounds__(384, 1) CLUSTER d(int n) {}\n"
              "__global__ f(int n) {}",
              KernelLanguage::cuda) == std::vector<std::string>{"a", "b", "c", "d"});
}

TEST_CASE("registry: both backends are reported, with a reason when they have no device") {
    const auto reports = duet::backend_reports();
    REQUIRE(reports.size() == 2);
    CHECK(reports[0].name == "cuda");
    CHECK(reports[1].name == "opencl");
    for (const auto& r : reports) {
        INFO(r.name);
        if (r.device_count == 0)
            CHECK(!r.reason.empty());
    }
    for (auto* d : duet::devices())
        CHECK(duet::global_index(*d) >= 0);
}

TEST_CASE("device selection: bad specs are clear errors that list the devices") {
    CHECK_THROWS_WITH_AS(duet::select_device("999"), doctest::Contains("there is no device 999"),
                         Error);
    CHECK_THROWS_WITH_AS(duet::select_device("0", "metal"),
                         doctest::Contains("unknown backend 'metal'"), Error);
    CHECK_THROWS_WITH_AS(duet::select_device("opencl:77"), doctest::Contains("no device opencl:77"),
                         Error);
    CHECK_THROWS_WITH_AS(duet::select_device("no such device name"),
                         doctest::Contains("no device matches"), Error);
    CHECK_THROWS_AS(duet::select_device("uuid:00112233"), Error);
    for (auto* d : duet::devices()) {
        CHECK(&duet::select_device(std::to_string(duet::global_index(*d))) == d);
        CHECK(&duet::select_device(d->info().id()) == d);
        CHECK(&duet::select_device(std::to_string(d->info().local_index), d->info().backend) == d);
    }
}

TEST_CASE("stable device ids: names, not positions; twins told apart by PCI bus, else position") {
    duet::DeviceInfo a, b, c;
    a.backend = b.backend = c.backend = "opencl";
    a.platform = b.platform = "Portable Computing Language";
    a.name = b.name = "cpu-haswell-Intel(R) Xeon(R) CPU";
    c.platform = "Oclgrind";
    c.name = "Oclgrind Simulator";
    a.local_index = 0;
    b.local_index = 1;
    c.local_index = 2;
    std::vector<const duet::DeviceInfo*> all{&a, &b, &c};
    CHECK(duet::stable_id(c, all) == "opencl:oclgrind/oclgrind-simulator");
    // The same id whether or not the other platform's devices are there.
    CHECK(duet::stable_id(c, {&c}) == duet::stable_id(c, all));
    CHECK(duet::stable_id(a, {&a}) ==
          "opencl:portable-computing-language/cpu-haswell-intel-r-xeon-r-cpu");
    CHECK(duet::stable_id(a, all) ==
          "opencl:portable-computing-language/cpu-haswell-intel-r-xeon-r-cpu#1");
    CHECK(duet::stable_id(b, all) ==
          "opencl:portable-computing-language/cpu-haswell-intel-r-xeon-r-cpu#2");
    a.pci_bus_id = "0000:17:00.0";
    b.pci_bus_id = "0000:18:00.0";
    CHECK(duet::stable_id(b, all) ==
          "opencl:portable-computing-language/cpu-haswell-intel-r-xeon-r-cpu@0000:18:00.0");
    duet::DeviceInfo g;
    g.backend = "cuda";
    g.platform = "CUDA";
    g.name = "NVIDIA H100 80GB HBM3";
    CHECK(duet::stable_id(g, {&g}) == "cuda:nvidia-h100-80gb-hbm3");
}
