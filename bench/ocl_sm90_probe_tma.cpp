// The tile copy engine from NVIDIA's OpenCL (ocl_sm90_probe's questions tma, tma-nofence and
// tma-param): a tensor map encoded on the host by the CUDA driver's cuTensorMapEncodeTiled
// (libcuda.so.1 opened with dlopen, nothing linked) over an OpenCL buffer's device address, then
// cp.async.bulk.tensor in a hand-written sm_90a kernel. The map lies in a global buffer (tma:
// with fence.proxy.tensormap::generic.acquire before its use; tma-nofence: without) or is the
// kernel's 128-byte by-value argument (tma-param, as CUDA's __grid_constant__ maps).
#include <CL/cl.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ocl_sm90_probe.hpp"
#include "ocl_sm90_probe_kernels.hpp"

namespace probe {

namespace {

// A 100 x 40 float matrix (rows of 160 bytes), boxes of 64 rows x 32 floats (128 bytes, the
// 128-byte swizzle's row). Block b copies the box at column 32 (b & 1), row 64 (b >> 1): block 0
// lies inside the matrix, blocks 1-3 partly outside it (the rest of the box must be zeros).
constexpr unsigned rows = 100, cols = 40, box_rows = 64, box_cols = 32, blocks = 4;
constexpr unsigned box_words = box_rows * box_cols;

// @MAPPARAM@: the map's parameter; @MAPADDR@ its generic address into %rd1; @FENCE@ the acquire
// fence or nothing. Param 1 is out, param 2 the matrix (not read: there so that the driver
// makes it resident). out[2048 b + i] = the tile's word i; out[8192 + b] = the wait's tries
// (-1: timed out); out[8196..8197] = param 2's value (the matrix's address as the kernel sees it).
const char* const tma_ptx = R"(.version 8.3
.target sm_90a
.address_size 64

.visible .entry probe_tma(
	@MAPPARAM@,
	@PARAM@ probe_tma_param_1,
	@PARAM@ probe_tma_param_2
)
{
	.reg .pred %p<5>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<12>;
	.shared .align 1024 .b8 tile[8192];
	.shared .align 8 .b64 mbar;
@MAPADDR@
	ld.param.u64 %rd2, [probe_tma_param_1];
	cvta.to.global.u64 %rd2, %rd2;
	ld.param.u64 %rd10, [probe_tma_param_2];
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, tile;
	mov.u32 %r4, mbar;
	and.b32 %r5, %r2, 1;
	mul.lo.u32 %r5, %r5, 32;
	shr.u32 %r6, %r2, 1;
	mul.lo.u32 %r6, %r6, 64;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r4], 1;
	fence.mbarrier_init.release.cluster;
	bar.sync 0;
@FENCE@
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r4], 8192;
	@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%r3], [%rd1, {%r5, %r6}], [%r4];
@WAIT_COPY_OUT@
	@!%p1 bra OUT;
	add.u32 %r16, %r2, 8192;
	mul.wide.u32 %rd6, %r16, 4;
	add.s64 %rd7, %rd2, %rd6;
	st.global.u32 [%rd7], %r9;
	setp.ne.u32 %p3, %r2, 0;
	@%p3 bra OUT;
	st.global.u64 [%rd2+32784], %rd10;
OUT:
	ret;
}
)";

std::string tma_text(const std::string& decl, const std::string& how) {
    const bool param = how == "tma-param";
    std::string s =
        replace_all(tma_ptx, "@WAIT_COPY_OUT@",
                    replace_all(probe_ptx::wait_copy_out, "@WORDS@", std::to_string(box_words)));
    s = replace_all(s, "@PARAM@", decl);
    s = replace_all(s, "@MAPPARAM@",
                    param ? ".param .align 64 .b8 probe_tma_param_0[128]"
                          : decl + " probe_tma_param_0");
    s = replace_all(s, "@MAPADDR@",
                    param ? "\tmov.u64 %rd1, probe_tma_param_0;\n\tcvta.param.u64 %rd1, %rd1;"
                          : "\tld.param.u64 %rd1, [probe_tma_param_0];");
    return replace_all(
        s, "@FENCE@",
        how == "tma" ? "\t@%p1 fence.proxy.tensormap::generic.acquire.gpu [%rd1], 128;" : "");
}

// CUDA driver API, declared here so that the probe links no CUDA: enum values from cuda.h
// (CU_TENSOR_MAP_DATA_TYPE_FLOAT32 7, SWIZZLE_128B 3, L2_PROMOTION_L2_256B 3, the rest 0).
using EncodeTiled = int (*)(void*, int, unsigned, void*, const std::uint64_t*, const std::uint64_t*,
                            const unsigned*, const unsigned*, int, int, int, int);
using CuInit = int (*)(unsigned);
using CuCtxGetCurrent = int (*)(void**);
using CuDeviceGet = int (*)(int*, int);
using CuPrimaryRetain = int (*)(void**, int);
using CuCtxSetCurrent = int (*)(void*);

// The map over `addr`; the return code of cuTensorMapEncodeTiled.
int encode(EncodeTiled fn, unsigned char (&map)[128], std::uint64_t addr) {
    const std::uint64_t dims[2] = {cols, rows}, strides[1] = {cols * 4};
    const unsigned box[2] = {box_cols, box_rows}, steps[2] = {1, 1};
    std::memset(map, 0, sizeof map);
    return fn(map, 7, 2, reinterpret_cast<void*>(addr), dims, strides, box, steps, 0, 3, 3, 0);
}

// The buffer's device address, read by a kernel that writes its pointer argument as a ulong.
std::uint64_t device_address(Ctx& c, cl_mem buf) {
    const char* src = "kernel void addr_of(global float* p, global ulong* out) { out[0] = "
                      "(ulong)p; }";
    cl_program p = build(c, src, false, "addr_of");
    cl_kernel k = p ? kernel_of(p, "addr_of") : nullptr;
    if (!k)
        return 0;
    cl_mem out = buffer(c, 2);
    clSetKernelArg(k, 0, sizeof buf, &buf);
    clSetKernelArg(k, 1, sizeof out, &out);
    const auto h = launch(c, k, 1, out, 2, "addr_of");
    return h.size() == 2 ? (std::uint64_t(h[1]) << 32 | h[0]) : 0;
}

// The word a 128-byte-swizzled box of block b holds at `i`: 16-byte chunk q of box row r lies
// at chunk q ^ (r % 8); zero outside the matrix.
cl_uint expected(const std::vector<float>& m, unsigned b, unsigned i) {
    const unsigned r = i / box_cols, q = (i % box_cols) / 4, w = i % 4;
    const unsigned col = 32 * (b & 1) + 4 * (q ^ (r % 8)) + w, row = 64 * (b >> 1) + r;
    if (row >= rows || col >= cols)
        return 0;
    cl_uint bits = 0;
    std::memcpy(&bits, &m[row * cols + col], 4);
    return bits;
}

int check_tma(Ctx& c, cl_program p, const char* q, const unsigned char (&map)[128],
              const std::vector<float>& m, cl_mem mat, std::uint64_t addr) {
    cl_kernel k = kernel_of(p, "probe_tma");
    if (!k)
        return 1;
    const bool param = std::string(q) == "tma-param";
    std::vector<cl_uint> words(32);
    std::memcpy(words.data(), map, 128);
    cl_mem mapbuf = buffer(c, 32, &words);
    cl_mem out = buffer(c, blocks * box_words + 8);
    cl_int e =
        param ? clSetKernelArg(k, 0, 128, map) : clSetKernelArg(k, 0, sizeof mapbuf, &mapbuf);
    if (e != CL_SUCCESS)
        std::printf("%s: clSetKernelArg(0, %s) failed: %d\n", q, param ? "128 bytes" : "buffer", e);
    clSetKernelArg(k, 1, sizeof out, &out);
    clSetKernelArg(k, 2, sizeof mat, &mat);
    const auto h = launch(c, k, blocks, out, blocks * box_words + 8, q);
    if (h.empty()) {
        std::printf("%s: builds, does NOT run\n", q);
        return 1;
    }
    int bad = 0, timed_out = 0, zeros = 0;
    for (unsigned b = 0; b < blocks; ++b) {
        timed_out += h[blocks * box_words + b] == 0xFFFFFFFFu;
        for (unsigned i = 0; i < box_words; ++i) {
            const cl_uint want = expected(m, b, i);
            zeros += want == 0;
            if (h[b * box_words + i] != want && bad++ < 4)
                std::printf("  block %u word %u: 0x%08x, want 0x%08x\n", b, i, h[b * box_words + i],
                            want);
        }
    }
    const std::uint64_t seen =
        std::uint64_t(h[blocks * box_words + 5]) << 32 | h[blocks * box_words + 4];
    std::printf("%s: the matrix's address in the kernel 0x%llx (%s the encoded one); waits timed "
                "out: %d of %u\n",
                q, (unsigned long long)seen, seen == addr ? "same as" : "NOT", timed_out, blocks);
    std::printf("%s: %u boxes of 64 x 32 floats, 128-byte swizzle, %d of them outside the matrix "
                "(zeros): every word right: %s (%d wrong)\n",
                q, blocks, zeros, bad == 0 && timed_out == 0 ? "YES" : "NO", bad);
    return bad == 0 && timed_out == 0 ? 0 : 1;
}

} // namespace

int probe_tma(Ctx& c, const std::string& decl, const std::string& how) {
    const char* q = how.c_str();
    std::printf("%s: cl_ext_buffer_device_address listed: %s\n", q,
                info_str(c.dev, CL_DEVICE_EXTENSIONS).find("cl_ext_buffer_device_address") !=
                        std::string::npos
                    ? "yes"
                    : "no");
    void* cu = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    auto fn = cu ? reinterpret_cast<EncodeTiled>(dlsym(cu, "cuTensorMapEncodeTiled")) : nullptr;
    auto init = cu ? reinterpret_cast<CuInit>(dlsym(cu, "cuInit")) : nullptr;
    auto current = cu ? reinterpret_cast<CuCtxGetCurrent>(dlsym(cu, "cuCtxGetCurrent")) : nullptr;
    auto get = cu ? reinterpret_cast<CuDeviceGet>(dlsym(cu, "cuDeviceGet")) : nullptr;
    auto retain =
        cu ? reinterpret_cast<CuPrimaryRetain>(dlsym(cu, "cuDevicePrimaryCtxRetain")) : nullptr;
    auto set = cu ? reinterpret_cast<CuCtxSetCurrent>(dlsym(cu, "cuCtxSetCurrent")) : nullptr;
    if (!fn || !init || !current || !get || !retain || !set) {
        std::printf("%s: libcuda.so.1 or one of its functions NOT found (%s)\n", q,
                    cu ? "symbol missing" : dlerror());
        return 1;
    }
    std::vector<float> m(rows * cols);
    for (unsigned i = 0; i < rows * cols; ++i)
        m[i] = float((i / cols) * 1000 + i % cols + 1);
    cl_int e = 0;
    cl_mem mat =
        clCreateBuffer(c.ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, m.size() * 4, m.data(), &e);
    const std::uint64_t addr = device_address(c, mat);
    std::printf("%s: the matrix buffer's device address 0x%llx\n", q, (unsigned long long)addr);
    unsigned char map[128];
    const int before = encode(fn, map, addr);
    const int rc_init = init(0);
    void* ctx = nullptr;
    const int rc_ctx = current(&ctx);
    const int no_ctx = encode(fn, map, addr);
    std::printf("%s: cuTensorMapEncodeTiled before cuInit: %d; cuInit(0): %d; cuCtxGetCurrent: %d "
                "(%s current context); cuTensorMapEncodeTiled after cuInit: %d\n",
                q, before, rc_init, rc_ctx, ctx ? "a" : "no", no_ctx);
    // With CUDA device 0's primary context current (the machine has one GPU).
    int dev = -1;
    const auto t0 = std::chrono::steady_clock::now();
    const int rc_get = get(&dev, 0), rc_retain = retain(&ctx, dev), rc_set = set(ctx);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const int after = encode(fn, map, addr);
    std::printf("%s: cuDeviceGet(0): %d, cuDevicePrimaryCtxRetain: %d, cuCtxSetCurrent: %d (%.1f "
                "ms); cuTensorMapEncodeTiled with it current: %d\n",
                q, rc_get, rc_retain, rc_set, ms, after);
    if (after != 0 || addr == 0)
        return 1;
    cl_program p = build(c, tma_text(decl, how), true, q);
    if (!p) {
        std::printf("%s: the tensor-copy kernel does NOT build\n", q);
        return 1;
    }
    return check_tma(c, p, q, map, m, mat, addr);
}

std::string tma_dump(const std::string& decl, const std::string& how) {
    return tma_text(decl, how);
}

} // namespace probe
