// The questions of ocl_sm90_probe (see ocl_sm90_probe.cpp), each printing its answer.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "ocl_sm90_probe.hpp"
#include "ocl_sm90_probe_kernels.hpp"

namespace probe {

namespace {

const char* const cluster2 = ".reqnctapercluster 2, 1, 1";

std::string cluster_ptx(const std::string& decl, const std::string& name, const char* dirs) {
    return hand_ptx(
        replace_all(replace_all(probe_ptx::cluster, "@NAME@", name), "@DIRECTIVES@", dirs), decl);
}

std::string static_ptx(const std::string& decl, std::size_t bytes) {
    return hand_ptx(
        replace_all(replace_all(probe_ptx::static_shared, "@BYTES@", std::to_string(bytes)),
                    "@WORDS@", std::to_string(bytes / 4)),
        decl);
}

std::string bulk_ptx(const std::string& decl, bool multicast) {
    const std::string body =
        replace_all(replace_all(replace_all(probe_ptx::bulk, "@NAME@",
                                            multicast ? "probe_mcast" : "probe_bulk"),
                                "@DIRECTIVES@", multicast ? cluster2 : ""),
                    "@COPY@", multicast ? probe_ptx::copy_multicast : probe_ptx::copy_unicast);
    return hand_ptx(replace_all(body, "@WAIT_COPY_OUT@",
                                replace_all(probe_ptx::wait_copy_out, "@WORDS@", "1024")),
                    decl);
}

// The sum probe_static / probe_local leave in work-item t: words j = (t + 1) mod n, j < words.
cl_uint expected_sum(cl_uint t, cl_uint n, cl_uint words) {
    cl_uint s = 0;
    for (cl_uint j = (t + 1) % n; j < words; j += n)
        s += j;
    return s;
}

// Runs a one-argument kernel over `groups` blocks with `words` of output; empty on failure.
std::vector<cl_uint> run1(Ctx& c, cl_program p, const char* name, std::size_t groups,
                          std::size_t words) {
    cl_kernel k = kernel_of(p, name);
    if (!k)
        return {};
    cl_mem out = buffer(c, words);
    clSetKernelArg(k, 0, sizeof out, &out);
    return launch(c, k, groups, out, words, name);
}

} // namespace

int dump_ptx(const char* dir) {
    const std::string d = ".param .u64 .ptr .global .align 4";
    const std::string base = std::string(dir) + "/";
    std::ofstream(base + "plain.ptx") << hand_ptx(probe_ptx::plain, d);
    std::ofstream(base + "cluster.ptx") << cluster_ptx(d, "probe_cluster", cluster2);
    std::ofstream(base + "cluster_explicit.ptx")
        << cluster_ptx(d, "probe_cluster", ".explicitcluster\n.reqnctapercluster 2, 1, 1");
    for (std::size_t kib : {32, 48, 96, 200, 227})
        std::ofstream(base + "static" + std::to_string(kib) + ".ptx") << static_ptx(d, kib * 1024);
    std::ofstream(base + "bulk.ptx") << bulk_ptx(d, false);
    std::ofstream(base + "bulk_mcast.ptx") << bulk_ptx(d, true);
    for (const char* how : {"tma", "tma-param"})
        std::ofstream(base + how + ".ptx") << tma_dump(d, how);
    std::ofstream(base + "probe.cl") << probe_cl::source;
    return 0;
}

int probe_info(Ctx& c) {
    cl_ulong local = 0;
    std::size_t wg = 0;
    clGetDeviceInfo(c.dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof local, &local, nullptr);
    clGetDeviceInfo(c.dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, nullptr);
    std::printf("[info] %s | %s | driver %s | CL_DEVICE_LOCAL_MEM_SIZE %llu | max work-group %zu\n",
                info_str(c.dev, CL_DEVICE_NAME).c_str(), info_str(c.dev, CL_DEVICE_VERSION).c_str(),
                info_str(c.dev, CL_DRIVER_VERSION).c_str(), (unsigned long long)local, wg);
    std::string ptx;
    param_decl(c, &ptx);
    std::printf("[info] the driver's PTX of the probe's OpenCL C (%zu bytes), to the first body:\n",
                ptx.size());
    std::size_t at = 0;
    for (int lines = 0; lines < 80 && at < ptx.size(); ++lines) {
        const std::size_t end = std::min(ptx.find('\n', at), ptx.size());
        const std::string line = ptx.substr(at, end - at);
        if (line.find("//duet-sm90a") != std::string::npos ||
            line.find(".param") != std::string::npos || line.find(".entry") != std::string::npos ||
            line.find(".shared") != std::string::npos || line.rfind(".", 0) == 0 ||
            line.find(".req") != std::string::npos || line.find(".max") != std::string::npos)
            std::printf("    %s\n", line.c_str());
        at = end + 1;
    }
    return 0;
}

int probe_plain(Ctx& c, const std::string& decl) {
    cl_program p = build(c, hand_ptx(probe_ptx::plain, decl), true, "plain");
    if (!p)
        return 1;
    const auto h = run1(c, p, "probe_plain", 4, 1024);
    bool ok = !h.empty();
    for (std::size_t i = 0; ok && i < h.size(); ++i)
        ok = h[i] == i;
    std::printf("plain: hand-written sm_90a PTX from clCreateProgramWithBinary: %s\n",
                ok ? "builds, launches, out[gid] == gid: YES" : "NO (above, or wrong words)");
    return ok ? 0 : 1;
}

int probe_cluster(Ctx& c, const std::string& decl, const std::string& which) {
    const bool expl = which == "a-explicit";
    const std::string dirs = expl ? std::string(".explicitcluster\n") + cluster2 : cluster2;
    cl_program p = build(c, cluster_ptx(decl, "probe_cluster", dirs.c_str()), true, which.c_str());
    if (!p) {
        std::printf("%s: a .reqnctapercluster 2,1,1%s kernel does NOT build\n", which.c_str(),
                    expl ? " .explicitcluster" : "");
        return 1;
    }
    std::printf("%s: the kernel with %s builds\n", which.c_str(),
                replace_all(dirs, "\n", " ").c_str());
    const std::size_t groups = which == "a-odd" ? 3 : 8;
    const auto h = run1(c, p, "probe_cluster", groups, groups * 264);
    if (h.empty()) {
        std::printf("%s: %zu blocks of 256 do NOT launch (above)\n", which.c_str(), groups);
        return 1;
    }
    int bad_regs = 0, bad_dsmem = 0, own = 0;
    for (std::size_t b = 0; b < groups; ++b) {
        const cl_uint* o = &h[b * 264];
        if (b < 4)
            std::printf("  block %zu: cluster_nctarank %u cluster_ctarank %u clusterid.x %u "
                        "nclusterid.x %u cluster_ctaid.x %u ctaid.x %u; buf[0] %u buf[255] %u\n",
                        b, o[0], o[1], o[2], o[3], o[4], o[5], o[8], o[8 + 255]);
        bad_regs +=
            !(o[0] == 2 && o[1] == b % 2 && o[2] == b / 2 && o[3] == groups / 2 && o[4] == b % 2);
        for (cl_uint t = 0; t < 256; ++t) {
            bad_dsmem += o[8 + t] != (b ^ 1) * 1000 + t;
            own += o[8 + t] == b * 1000 + t;
        }
    }
    std::printf("%s: %zu blocks launched; cluster registers as a 2-block cluster: %s (%d blocks "
                "differ); the other block's writes into its shared memory: %s (%d words wrong, "
                "%d its own)\n",
                which.c_str(), groups, bad_regs ? "NO" : "YES", bad_regs, bad_dsmem ? "NO" : "YES",
                bad_dsmem, own);
    return bad_regs || bad_dsmem;
}

int probe_src_cluster(Ctx& c) {
    std::string ptx;
    param_decl(c, &ptx);
    if (ptx.empty())
        return 1;
    ptx = replace_all(ptx, "//duet-sm90a ", "");
    const std::size_t t = ptx.find(".target sm_90");
    if (t == std::string::npos) {
        std::printf("a-src: the driver's PTX has no .target sm_90\n");
        return 1;
    }
    ptx.replace(t, 13, ".target sm_90a");
    if (ptx.find(".target sm_90aa") != std::string::npos)
        ptx = replace_all(ptx, ".target sm_90aa", ".target sm_90a");
    const std::size_t e = ptx.find(".entry kernel_src_cluster(");
    const std::size_t body = e == std::string::npos ? e : ptx.find("\n{", e);
    if (body == std::string::npos) {
        std::printf("a-src: kernel_src_cluster's body not found in the driver's PTX\n");
        return 1;
    }
    ptx.insert(body, std::string("\n") + cluster2);
    cl_program p = build(c, ptx, true, "a-src");
    if (!p)
        return 1;
    const auto h = run1(c, p, "kernel_src_cluster", 8, 32);
    if (h.empty())
        return 1;
    int bad = 0;
    for (cl_uint b = 0; b < 8; ++b)
        bad += !(h[4 * b] == 2 && h[4 * b + 1] == b % 2 && h[4 * b + 2] == b / 2);
    std::printf("a-src: the driver's PTX with marked lines uncommented, sm_90a and %s: builds, "
                "launches; block 1 reads nctarank %u ctarank %u clusterid %u: %s\n",
                cluster2, h[4], h[5], h[6],
                bad ? "NOT a 2-block cluster" : "a 2-block cluster, YES");
    return bad;
}

int probe_static(Ctx& c, const std::string& decl) {
    for (std::size_t kib : {32, 48, 96, 200, 227}) {
        const std::string what = "b: static .shared " + std::to_string(kib) + " KiB";
        cl_program p = build(c, static_ptx(decl, kib * 1024), true, what.c_str());
        if (!p) {
            std::printf("%s: does NOT build\n", what.c_str());
            continue;
        }
        const auto h = run1(c, p, "probe_static", 2, 512);
        int bad = h.empty() ? 1 : 0;
        for (cl_uint i = 0; !h.empty() && i < 512; ++i)
            bad += h[i] != expected_sum(i % 256, 256, kib * 256);
        std::printf("%s: builds; %s\n", what.c_str(),
                    h.empty() ? "does NOT launch"
                    : bad     ? "runs, WRONG sums"
                              : "runs, sums right: YES");
        clReleaseProgram(p);
    }
    return 0;
}

// One launch of probe_static_cl (2 blocks, `kib` KiB of words) checked; its answer printed.
void run_static_cl(Ctx& c, cl_program p, std::size_t kib, const std::string& what) {
    cl_kernel k = kernel_of(p, "probe_static_cl");
    const cl_uint words = cl_uint(kib * 256);
    cl_mem out = buffer(c, 512);
    clSetKernelArg(k, 0, sizeof out, &out);
    clSetKernelArg(k, 1, sizeof words, &words);
    const auto h = k ? launch(c, k, 2, out, 512, what.c_str()) : std::vector<cl_uint>{};
    int bad = 0;
    for (cl_uint i = 0; !h.empty() && i < 512; ++i)
        bad += h[i] != expected_sum(i % 256, 256, words);
    std::printf("%s: builds; %s\n", what.c_str(),
                h.empty() ? "does NOT run"
                : bad     ? "runs, WRONG sums"
                          : "runs, sums right: YES");
    clReleaseMemObject(out);
}

int probe_static_src(Ctx& c) {
    for (std::size_t kib : {32, 64, 96, 200}) {
        const std::string what =
            "b-src: static __local " + std::to_string(kib) + " KiB from source";
        const std::string opt = "-DKIB=" + std::to_string(kib);
        if (cl_program p = build(c, probe_cl::static_source, false, what.c_str(), opt.c_str()))
            run_static_cl(c, p, kib, what);
        else
            std::printf("%s: does NOT build\n", what.c_str());
    }
    cl_program p32 = build(c, probe_cl::static_source, false, "b-src", "-DKIB=32");
    const std::string ptx = p32 ? program_ptx(p32) : "";
    const std::size_t at = ptx.find(".shared");
    const std::size_t open = ptx.find('[', at), close = ptx.find(']', open);
    if (at == std::string::npos || close == std::string::npos || ptx.find('\n', at) < close) {
        std::printf("b-src: no .shared array found in the driver's PTX\n");
        return 1;
    }
    const std::size_t n = std::stoul(ptx.substr(open + 1, close - open - 1));
    std::printf("b-src: the driver declares it as: %s\n",
                ptx.substr(at, ptx.find('\n', at) - at).c_str());
    for (std::size_t kib : {96, 200}) {
        std::string raised = ptx;
        raised.replace(open + 1, close - open - 1, std::to_string(n * kib / 32));
        raised = replace_all(raised, ".target sm_90\n", ".target sm_90a\n");
        const std::string what =
            "b-src: the driver's PTX, array raised to " + std::to_string(kib) + " KiB";
        if (cl_program p = build(c, raised, true, what.c_str()))
            run_static_cl(c, p, kib, what);
        else
            std::printf("%s: does NOT build\n", what.c_str());
    }
    return 0;
}

int probe_local(Ctx& c, bool via_ptx) {
    const char* q = via_ptx ? "c-ptx" : "c";
    cl_program p = build(c, probe_cl::source, false, q);
    if (p && via_ptx) {
        std::string ptx = program_ptx(p);
        const std::size_t t = ptx.find(".target sm_90\n");
        if (t != std::string::npos)
            ptx.replace(t, 14, ".target sm_90a\n");
        std::printf("c-ptx: the driver's PTX (%s, %s) rebuilt with clCreateProgramWithBinary\n",
                    t != std::string::npos ? "target raised to sm_90a" : "target as it was",
                    ptx.find(".extern .shared") != std::string::npos ? "it declares .extern .shared"
                                                                     : "no .extern .shared in it");
        p = build(c, ptx, true, q);
    }
    if (!p)
        return 1;
    cl_kernel k = kernel_of(p, "probe_local");
    if (!k)
        return 1;
    cl_ulong dev_local = 0, k_local = 0;
    clGetDeviceInfo(c.dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_local, &dev_local, nullptr);
    for (std::size_t kib : {32, 47, 48, 64, 96, 200, 227}) {
        const cl_uint words = cl_uint(kib * 256);
        cl_mem out = buffer(c, 512);
        clSetKernelArg(k, 0, sizeof out, &out);
        clSetKernelArg(k, 2, sizeof words, &words);
        const cl_int e = clSetKernelArg(k, 1, kib * 1024, nullptr);
        clGetKernelWorkGroupInfo(k, c.dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof k_local, &k_local,
                                 nullptr);
        const std::string what =
            std::string(q) + ": __local argument of " + std::to_string(kib) + " KiB";
        if (e != CL_SUCCESS) {
            std::printf("%s: clSetKernelArg refuses it: %d\n", what.c_str(), e);
            clReleaseMemObject(out);
            continue;
        }
        const auto h = launch(c, k, 2, out, 512, what.c_str());
        int bad = 0;
        for (cl_uint i = 0; !h.empty() && i < 512; ++i)
            bad += h[i] != expected_sum(i % 256, 256, words);
        std::printf("%s (CL_KERNEL_LOCAL_MEM_SIZE %llu, device's %llu): %s\n", what.c_str(),
                    (unsigned long long)k_local, (unsigned long long)dev_local,
                    h.empty() ? "does NOT run"
                    : bad     ? "runs, WRONG sums"
                              : "runs, sums right: YES");
        clReleaseMemObject(out);
    }
    return 0;
}

int probe_bulk(Ctx& c, const std::string& decl, bool multicast) {
    const char* q = multicast ? "d-mcast" : "d";
    cl_program p = build(c, bulk_ptx(decl, multicast), true, q);
    if (!p) {
        std::printf("%s: the bulk-copy kernel does NOT build\n", q);
        return 1;
    }
    const char* name = multicast ? "probe_mcast" : "probe_bulk";
    cl_kernel k = kernel_of(p, name);
    if (!k)
        return 1;
    const cl_uint groups = 8;
    std::vector<cl_uint> src(groups * 1024);
    for (std::size_t i = 0; i < src.size(); ++i)
        src[i] = cl_uint(i * 2654435761u + 12345u);
    cl_mem in = buffer(c, src.size(), &src);
    cl_mem out = buffer(c, groups * 1024 + groups);
    clSetKernelArg(k, 0, sizeof in, &in);
    clSetKernelArg(k, 1, sizeof out, &out);
    const auto h = launch(c, k, groups, out, groups * 1024 + groups, q);
    if (h.empty()) {
        std::printf("%s: builds, does NOT run\n", q);
        return 1;
    }
    int bad = 0, timed_out = 0;
    for (cl_uint b = 0; b < groups; ++b) {
        const cl_uint from = multicast ? b / 2 : b; // the 4 KiB a block should hold
        for (cl_uint i = 0; i < 1024; ++i)
            bad += h[b * 1024 + i] != src[from * 1024 + i];
        timed_out += h[groups * 1024 + b] == 0xFFFFFFFFu;
    }
    std::printf("%s: %s: builds, runs; %d of %u words wrong, %d blocks' waits timed out (block 0 "
                "waited %u tries): %s\n",
                q,
                multicast
                    ? "cp.async.bulk .multicast::cluster, 2 x 2 KiB into both blocks of a 2-cluster"
                    : "cp.async.bulk global -> shared, 4 KiB a block",
                bad, groups * 1024, timed_out, h[groups * 1024],
                bad || timed_out ? "NO" : "correct bytes land: YES");
    return bad || timed_out;
}

} // namespace probe
