// A contributed kernel tree that includes a private file, bandwidth under `ulimit -v`, pinned
// host buffers misused, and runapp's message items (docs/design/security.md; issue 50 items 6
// to 8, 10 and 11).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <sys/stat.h>

#include <doctest/doctest.h>

#include <duet/duet.hpp>

#include "runapp_child.hpp"
#include "security_util.hpp"
#include "test_util.hpp"

using duet_test::check_no_crash;

namespace {

const char* secret_line = "root:$6$duet-secret-hash$abcdefgh:19000:0:99999:7:::";

// A 0600 file outside the kernel tree holding a password-hash line.
fs::path make_secret(const TempDir& t) {
    const fs::path p = t.path / "secret" / "shadow";
    fs::create_directories(p.parent_path());
    write_file(p, std::string(secret_line) + "\n");
    ::chmod(p.c_str(), 0600);
    return p;
}

// Every spelling of an include of `p` the issue found reaching the compiler, and others.
std::vector<std::string> spellings(const std::string& p) {
    return {"#include \"" + p + "\"\n",      "#include <" + p + ">\n",
            "#include \"" + p + "\" // x\n", "#/**/include \"" + p + "\"\n",
            "#inc\\\nlude \"" + p + "\"\n",  "#define F \"" + p + "\"\n#include F\n",
            "%:include \"" + p + "\"\n",     "/* a\n*/ #include \"" + p + "\"\n"};
}

} // namespace

TEST_CASE("security: a kernel tree's includes reach no file Duet did not resolve") {
    DUET_NEED_OPENCL();
    TempDir t("includes");
    const fs::path secret = make_secret(t);
    const fs::path tree = t.path / "tree", cl = tree / "kernels_cl";
    fs::create_directories(cl);
    for (const auto& f : fs::directory_iterator(fs::path(DUET_SOURCE_DIR) / "kernels_cl"))
        fs::copy_file(f.path(), cl / f.path().filename());
    const std::string vecadd = read_file(cl / "vecadd.cl");
    for (const auto& spelled : spellings(secret.string())) {
        INFO(spelled);
        write_file(cl / "vecadd.cl", spelled + vecadd);
        const auto r = runapp({"run", "vecadd", "--variant", "naive", "--size", "1000", "--reps",
                               "1", "--warmup", "0", "--device", "opencl:0"},
                              {{"DUET_KERNEL_DIR", tree.string()}}, t.path, 120);
        check_no_crash(r);
        CHECK(r.code == 2);
        CHECK(contains(r.err, "kernel file vecadd.cl line "));
        CHECK_FALSE(contains(r.out + r.err, "duet-secret-hash"));
        // runapp compile prints the compilers' logs: the file is refused before any runs.
        write_file(t.path / "user.cl", spelled + "__kernel void k(__global int* x) {}\n");
        const auto c = runapp({"compile", (t.path / "user.cl").string(), "--target", "spirv"}, {},
                              t.path, 120);
        check_no_crash(c);
        CHECK(c.code == 2);
        CHECK_FALSE(contains(c.out + c.err, "duet-secret-hash"));
    }
    write_file(cl / "vecadd.cl", vecadd); // the tree as shipped still runs
    check_pass(runapp({"run", "vecadd", "--variant", "naive", "--size", "1000", "--reps", "1",
                       "--warmup", "0", "--device", "opencl:0"},
                      {{"DUET_KERNEL_DIR", tree.string()}}, t.path, 120));
}

TEST_CASE("security: runapp bandwidth is checked against ulimit -v before it allocates") {
    DUET_NEED_OPENCL();
    TempDir t("bandwidth");
#if defined(__SANITIZE_ADDRESS__)
    MESSAGE("AddressSanitizer build: runapp cannot start under ulimit -v; not checked");
#else
    // 6 GiB per array under a 4 GiB address space: PoCL asserted after 15 s before.
    const auto [code, out] = duet_test::shell(
        "ulimit -v 4194304 && DUET_CACHE_DIR=" + (t.path / "c").string() + " timeout 60 " +
        duet_test::runapp_path() + " bandwidth --size 6G --reps 1 --warmup 0 --device opencl:0");
    INFO(out);
    CHECK(code == 2);
    CHECK(contains(out, "bandwidth on opencl:0"));
    CHECK(contains(out, "available"));
#endif
}

namespace {

// `what` on stderr and false (the parent shows the child's output).
bool fails(const char* what) {
    std::fprintf(stderr, "HostBuffer misuse: %s\n", what);
    return false;
}

// The misuses on one device; true when each is refused or correct.
bool host_buffer_misuse(duet::Device& dev) {
    duet::BuildOptions opts;
    opts.sources.opencl = "__kernel void inc(__global int* x) { x[get_global_id(0)] += 1; }\n";
    opts.sources.origin = "<inc>";
    auto k = dev.load_kernel("inc", opts);
    auto q1 = dev.create_queue(), q2 = dev.create_queue();
    auto host = dev.alloc_host(1024 * sizeof(int));
    std::fill_n(static_cast<int*>(host->data()), 1024, 0);
    // Two queues: the second launch while the first may still run is refused (it was a
    // SIGSEGV); had the first finished, it is allowed and in order.
    q1->launch(*k, duet::Range(1024), *host);
    try {
        q2->launch(*k, duet::Range(1024), *host);
        q2->finish();
    } catch (const duet::Error& e) {
        if (e.kind() != duet::ErrorKind::usage || !contains(e.what(), "another queue"))
            return fails(e.what());
    }
    q1->finish();
    q2->finish();
    // Once it is done, another queue may take the buffer.
    q2->launch(*k, duet::Range(1024), *host);
    q2->finish();
    const int v = static_cast<int*>(host->data())[1023];
    if (v != 2 && v != 3)
        return fails("wrong sums after the launches");
    // A view of the mapped memory would run a kernel on mapped memory.
    try {
        auto view = dev.view(*host->device_buffer(), 0, 512 * sizeof(int));
        return fails("a view of a pinned host buffer was made");
    } catch (const duet::Error& e) {
        return e.kind() == duet::ErrorKind::usage || fails(e.what());
    }
}

} // namespace

TEST_CASE("security: a pinned HostBuffer misused is an Error, not a crash") {
    DUET_NEED_OPENCL();
    // In a process of its own (this binary, the case below): loading the drivers here would
    // raise the peak RSS that test_security_report bounds in forked children, and a fork of a
    // process whose drivers run threads cannot use them.
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    const auto [code, out] = duet_test::shell("DUET_TEST_HOST_BUFFER_CHILD=1 " + self +
                                              " -tc=\"security: pinned HostBuffer misuses*\"");
    INFO(out);
    CHECK(code == 0);
    CHECK(contains(out, "1 passed"));
}

TEST_CASE("security: pinned HostBuffer misuses, in a process of its own") {
    if (!std::getenv("DUET_TEST_HOST_BUFFER_CHILD"))
        return;
    for (auto* dev : duet_test::devices_of("opencl"))
        CHECK(host_buffer_misuse(*dev));
}

TEST_CASE("security: runapp's message items say what is wrong") {
    TempDir t("messages");
    const auto usage = [&](const std::vector<std::string>& args, const std::string& says) {
        const auto r = runapp(args, {}, t.path, 120);
        INFO(r.cmd << "\n" << r.err);
        check_no_crash(r);
        CHECK(r.code == 2);
        CHECK(contains(r.err, says));
    };
    usage({"run", "matmul", "--define", "TS=16", "--define", "TS=32"},
          "--define TS is given twice");
    usage({"info", " "}, "give a device");
    usage({"run", "vecadd", "--device", " "}, "give a device");
    usage({"info", "opencl:0", "--device", "cuda:0"}, "two devices named");
    usage({"run", "vecadd", "--local", "2x2"}, "vecadd launches 1-D work-groups");
    std::string sizes = "64";
    for (int i = 0; i < 2000; ++i)
        sizes += ",64";
    usage({"run", "vecadd", "--size", sizes}, "a run takes at most 64");
    // doctor: OCL_ICD_VENDORS elsewhere is not "run sudo tee" for a file that exists.
    if (fs::exists("/etc/OpenCL/vendors/pocl.icd")) {
        fs::create_directories(t.path / "vendors");
        const auto r =
            runapp({"doctor"}, {{"OCL_ICD_VENDORS", (t.path / "vendors").string()}}, t.path, 300);
        check_no_crash(r);
        CHECK_FALSE(contains(r.out, "sudo tee /etc/OpenCL/vendors/pocl.icd"));
        CHECK(contains(r.out, "unset OCL_ICD_VENDORS"));
    }
    // An unwritable HOME (PoCL then offers no device) is named, not missing hardware.
    const auto r =
        runapp({"list"}, {{"HOME", "/proc/self"}, {"XDG_CACHE_HOME", std::nullopt}}, t.path, 120);
    check_no_crash(r);
    if (r.code == 3) // no device: it says why
        CHECK(contains(r.out + r.err, "HOME=/proc/self cannot be written"));
}
