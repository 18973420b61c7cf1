// Hostile kernel text (docs/design/security.md): kernel names of 50,000 characters and #include
// lines of 100,000 crashed the process through std::regex's recursion; a kernel tree's headers that
// include each other many times expanded for a minute and then ran out of memory; an unused
// 1 GiB header was read on every lookup. Each must now be a result or a clear error, quickly.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <duet/backend/kernel_sources.hpp>
#include <duet/error.hpp>

#include "runapp_child.hpp"
#include "security_util.hpp"

using duet::KernelLanguage;
using duet_test::in_child_within;

namespace {

// DUET_KERNEL_DIR set for one scope, unset however the scope ends.
struct KernelDir {
    explicit KernelDir(const fs::path& dir) { ::setenv("DUET_KERNEL_DIR", dir.c_str(), 1); }
    ~KernelDir() { ::unsetenv("DUET_KERNEL_DIR"); }
};

// What find_kernel_source says: the text's size, or the error's message.
std::string lookup(const std::string& kernel) {
    try {
        const auto f = duet::find_kernel_source(kernel, KernelLanguage::opencl_c);
        return f ? "found " + std::to_string(f->text.size()) : "not found";
    } catch (const duet::Error& e) {
        return e.what();
    }
}

} // namespace

TEST_CASE("security: kernel names of 50,000 characters and lines of 100,000 are scanned") {
    const std::string name(50000, 'k');
    CHECK(in_child_within(30, [&] {
        const auto cl = duet::kernels_defined_in("__kernel void " + name + "(int x) {}\n" +
                                                     "kernel __attribute__((x(1))) void b() {}",
                                                 KernelLanguage::opencl_c);
        const auto cu = duet::kernels_defined_in(
            "extern \"C\" __global__ void __launch_bounds__(64) " + name + "(int n) {}",
            KernelLanguage::cuda);
        return cl == std::vector<std::string>{"b", name} && cu == std::vector<std::string>{name};
    }));
    CHECK(in_child_within(30, [&] {
        std::string junk;
        for (int i = 0; i < 5000; ++i)
            junk += "__kernel __attribute__((";
        junk += std::string(100000, '(') + std::string(100000, ' ');
        return duet::kernels_defined_in(junk, KernelLanguage::opencl_c).empty() &&
               duet::kernels_defined_in("__global__ " + junk, KernelLanguage::cuda).empty();
    }));
    CHECK(in_child_within(30, [] {
        const std::string header(100000, 'h');
        return duet::included_name("  #  include \"" + header + ".clh\"  ") == header + ".clh" &&
               !duet::included_name("#include \"" + header) &&
               !duet::included_name("#include \"a.clh\" x") &&
               !duet::included_name(std::string(100000, ' ') + "x");
    }));
}

TEST_CASE("security: a DUET_KERNEL_DIR tree cannot crash, exhaust memory or make Duet read all") {
    TempDir t("kerneltext");
    const fs::path cl = t.path / "kernels_cl";
    fs::create_directories(cl);
    write_file(cl / "a.cl", "#include \"" + std::string(100000, 'x') +
                                ".clh\"\n"
                                "__kernel void a_long_line(int n) {}\n");
    write_file(cl / "b.cl", "__kernel void plain(int n) {}\n");
    // An unused 1 GiB header (sparse): a lookup that does not include it must not read it.
    const int fd = ::open((cl / "huge.clh").c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(1) << 30) == 0);
    ::close(fd);
    KernelDir dir(t.path);
    CHECK(in_child_within(30, [] { return lookup("plain") == "found 30"; }));
    CHECK(in_child_within(30, [] {
        const std::string r = lookup("a_long_line");
        return r.find("line 1: include of") != std::string::npos; // not a .clh of the tree
    }));
    // Included, the huge header is refused by its size, naming it.
    write_file(cl / "c.cl", "#include \"huge.clh\"\n__kernel void uses_huge(int n) {}\n");
    CHECK(in_child_within(30, [] {
        const std::string r = lookup("uses_huge");
        return r.find("huge.clh is 1073741824 bytes") != std::string::npos &&
               r.find("16 MiB") != std::string::npos;
    }));
    fs::remove(cl / "huge.clh");
    // Eight headers, each including the next 30 times: 30^8 copies unbounded.
    for (int h = 0; h < 8; ++h) {
        std::string text;
        for (int i = 0; i < 30; ++i)
            text += h < 7 ? "#include \"h" + std::to_string(h + 1) + ".clh\"\n" : "int x;\n";
        write_file(cl / ("h" + std::to_string(h) + ".clh"), text);
    }
    write_file(cl / "d.cl", "#include \"h0.clh\"\n__kernel void bomb(int n) {}\n");
    CHECK(in_child_within(30, [] {
        const std::string r = lookup("bomb");
        return r.find("expands to more than 64 MiB") != std::string::npos;
    }));
}

TEST_CASE("security: a kernel name longer than 255 characters is refused before a driver sees it") {
    // PoCL aborted (an assertion on its cache file's name) on a 60,000-character kernel name
    // in the program, even when another kernel of the file was asked for.
    TempDir t("longname");
    const fs::path cl = t.path / "kernels_cl";
    fs::create_directories(cl);
    for (const auto& f : fs::directory_iterator(fs::path(DUET_SOURCE_DIR) / "kernels_cl"))
        fs::copy_file(f.path(), cl / f.path().filename());
    std::string text = "__kernel void " + std::string(60000, 'k') + "(__global float* x) {}\n";
    {
        std::ifstream in(cl / "vecadd.cl");
        text += std::string(std::istreambuf_iterator<char>(in), {});
    }
    write_file(cl / "vecadd.cl", text);
    const auto r = runapp(
        {"run", "vecadd", "--variant", "naive", "--size", "1000", "--reps", "1", "--warmup", "0"},
        {{"DUET_KERNEL_DIR", t.path.string()}}, t.path, 120);
    duet_test::check_no_crash(r);
    INFO(r.err);
    CHECK(r.code == 2);
    CHECK(
        contains(r.err, "kernel file vecadd.cl defines a kernel whose name has 60000 characters"));
    // 255 characters are still a name.
    const std::string ok(255, 'n');
    CHECK_NOTHROW(duet::check_kernel_names("__kernel void " + ok + "(int n) {}",
                                           KernelLanguage::opencl_c, "<test>"));
    CHECK_THROWS_AS(duet::check_kernel_names("extern \"C\" __global__ void " + ok + "x(int n) {}",
                                             KernelLanguage::cuda, "<test>"),
                    duet::Error);
}
