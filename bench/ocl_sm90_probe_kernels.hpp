// The kernels of ocl_sm90_probe.cpp: hand-written PTX for sm_90a (built by NVIDIA's OpenCL with
// clCreateProgramWithBinary) and OpenCL C for what goes through the driver's compiler. In the
// PTX texts, @PARAM@ is the declaration of a global pointer parameter (taken at run time from
// the driver's own PTX of kernel_src_cluster, so that it is spelled as the driver expects),
// @NAME@ the entry, @DIRECTIVES@ its performance directives, @BYTES@ / @WORDS@ a size and
// @WAIT_COPY_OUT@ the shared tail wait_copy_out.
#pragma once

namespace probe_ptx {

inline const char* const header = ".version 8.0\n.target sm_90a\n.address_size 64\n\n";

// out[gid] = gid: does a hand-written sm_90a entry build, launch and take its argument?
inline const char* const plain = R"(
.visible .entry probe_plain(
	@PARAM@ probe_plain_param_0
)
{
	.reg .b32 %r<5>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [probe_plain_param_0];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, %tid.x;
	mad.lo.s32 %r4, %r1, %r2, %r3;
	mul.wide.u32 %rd3, %r4, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4], %r4;
	ret;
}
)";

// A cluster's blocks: block b writes out[264 b + 0..5] = cluster_nctarank, cluster_ctarank,
// clusterid.x, nclusterid.x, cluster_ctaid.x, ctaid.x; then each work-item t writes
// 1000 ctaid + t into buf[t] of the next block of its cluster (mapa + st.shared::cluster,
// between cluster barriers) and out[264 b + 8 + t] = its own buf[t] after the exchange.
inline const char* const cluster = R"(
.visible .entry @NAME@(
	@PARAM@ @NAME@_param_0
)
@DIRECTIVES@
{
	.reg .pred %p<2>;
	.reg .b32 %r<20>;
	.reg .b64 %rd<6>;
	.shared .align 16 .b32 buf[256];
	ld.param.u64 %rd1, [@NAME@_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %ctaid.x;
	mov.u32 %r2, %tid.x;
	mov.u32 %r3, %cluster_nctarank;
	mov.u32 %r4, %cluster_ctarank;
	mov.u32 %r5, %clusterid.x;
	mov.u32 %r6, %nclusterid.x;
	mov.u32 %r7, %cluster_ctaid.x;
	mul.lo.u32 %r8, %r1, 264;
	mul.wide.u32 %rd2, %r8, 4;
	add.s64 %rd2, %rd1, %rd2;
	setp.ne.u32 %p1, %r2, 0;
	@%p1 bra SKIP_INFO;
	st.global.u32 [%rd2], %r3;
	st.global.u32 [%rd2+4], %r4;
	st.global.u32 [%rd2+8], %r5;
	st.global.u32 [%rd2+12], %r6;
	st.global.u32 [%rd2+16], %r7;
	st.global.u32 [%rd2+20], %r1;
SKIP_INFO:
	mov.u32 %r9, buf;
	shl.b32 %r10, %r2, 2;
	add.u32 %r11, %r9, %r10;
	mov.u32 %r12, -1;
	st.shared.u32 [%r11], %r12;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	add.u32 %r13, %r4, 1;
	rem.u32 %r13, %r13, %r3;
	mapa.shared::cluster.u32 %r14, %r11, %r13;
	mad.lo.u32 %r15, %r1, 1000, %r2;
	st.shared::cluster.u32 [%r14], %r15;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ld.shared.u32 %r16, [%r11];
	mul.wide.u32 %rd3, %r2, 4;
	add.s64 %rd4, %rd2, %rd3;
	st.global.u32 [%rd4+32], %r16;
	ret;
}
)";

// Static .shared of @BYTES@: work-item t writes word i = i for i = t mod ntid, then sums the
// words j = (t + 1) mod ntid; out[ctaid ntid + t] = the sum.
inline const char* const static_shared = R"(
.visible .entry probe_static(
	@PARAM@ probe_static_param_0
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<5>;
	.shared .align 16 .b8 big[@BYTES@];
	ld.param.u64 %rd1, [probe_static_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ntid.x;
	mov.u32 %r3, big;
	shl.b32 %r4, %r1, 2;
	add.u32 %r5, %r3, %r4;
	mov.u32 %r6, %r1;
	shl.b32 %r7, %r2, 2;
LOOP_W:
	setp.ge.u32 %p1, %r6, @WORDS@;
	@%p1 bra DONE_W;
	st.shared.u32 [%r5], %r6;
	add.u32 %r6, %r6, %r2;
	add.u32 %r5, %r5, %r7;
	bra LOOP_W;
DONE_W:
	bar.sync 0;
	add.u32 %r6, %r1, 1;
	rem.u32 %r6, %r6, %r2;
	shl.b32 %r8, %r6, 2;
	add.u32 %r5, %r3, %r8;
	mov.u32 %r9, 0;
LOOP_R:
	setp.ge.u32 %p2, %r6, @WORDS@;
	@%p2 bra DONE_R;
	ld.shared.u32 %r10, [%r5];
	add.u32 %r9, %r9, %r10;
	add.u32 %r6, %r6, %r2;
	add.u32 %r5, %r5, %r7;
	bra LOOP_R;
DONE_R:
	mov.u32 %r11, %ctaid.x;
	mad.lo.u32 %r11, %r11, %r2, %r1;
	mul.wide.u32 %rd2, %r11, 4;
	add.s64 %rd3, %rd1, %rd2;
	st.global.u32 [%rd3], %r9;
	ret;
}
)";

// Non-tensor bulk copies into a 4 KiB tile, completed on an mbarrier (waits bounded: a copy
// that never lands gives wrong words and a flag, not a hang). Unicast: work-item 0 of each block
// copies src[1024 b ..] whole. Multicast (@DIRECTIVES@ a cluster of 2): each block copies half
// of its cluster's 4 KiB, src[1024 clusterid + 512 rank ..], into both blocks. Then
// out[1024 b + i] = tile[i], and out[1024 nblocks + b] = the wait's tries (-1: timed out).
inline const char* const bulk = R"(
.visible .entry @NAME@(
	@PARAM@ @NAME@_param_0,
	@PARAM@ @NAME@_param_1
)
@DIRECTIVES@
{
	.reg .pred %p<5>;
	.reg .b16 %rs<2>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<12>;
	.shared .align 128 .b8 tile[4096];
	.shared .align 8 .b64 mbar;
	ld.param.u64 %rd1, [@NAME@_param_0];
	cvta.to.global.u64 %rd1, %rd1;
	ld.param.u64 %rd2, [@NAME@_param_1];
	cvta.to.global.u64 %rd2, %rd2;
	mov.u32 %r1, %tid.x;
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, tile;
	mov.u32 %r4, mbar;
	mov.u32 %r5, %cluster_ctarank;
	mov.u32 %r6, %clusterid.x;
	setp.eq.u32 %p1, %r1, 0;
	@%p1 mbarrier.init.shared::cta.b64 [%r4], 1;
	fence.mbarrier_init.release.cluster;
	bar.sync 0;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 %rd3, [%r4], 4096;
@COPY@
@WAIT_COPY_OUT@
	@!%p1 bra OUT;
	mov.u32 %r15, %nctaid.x;
	mad.lo.u32 %r16, %r15, 1024, %r2;
	mul.wide.u32 %rd6, %r16, 4;
	add.s64 %rd7, %rd2, %rd6;
	st.global.u32 [%rd7], %r9;
OUT:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ret;
}
)";

// The tail of bulk's and probe_tma's copies (ocl_sm90_probe_tma.cpp): every work-item waits on
// the mbarrier at %r4 (bounded: %r9 = the tries, -1 when it timed out), then the block's 256
// work-items copy the tile's @WORDS@ words at %r3 to out (%rd2) from word @WORDS@ b (b: %r2).
inline const char* const wait_copy_out = R"(	mov.u32 %r9, 0;
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 %p2, [%r4], 0;
	@%p2 bra DONE;
	add.u32 %r9, %r9, 1;
	setp.lt.u32 %p3, %r9, 2000000;
	@%p3 bra WAIT;
	mov.u32 %r9, -1;
DONE:
	mov.u32 %r10, %r1;
LOOP:
	setp.ge.u32 %p4, %r10, @WORDS@;
	@%p4 bra END;
	shl.b32 %r11, %r10, 2;
	add.u32 %r12, %r3, %r11;
	ld.shared.u32 %r13, [%r12];
	mad.lo.u32 %r14, %r2, @WORDS@, %r10;
	mul.wide.u32 %rd4, %r14, 4;
	add.s64 %rd5, %rd2, %rd4;
	st.global.u32 [%rd5], %r13;
	add.u32 %r10, %r10, 256;
	bra LOOP;
END:)";

inline const char* const copy_unicast = R"(	mul.wide.u32 %rd8, %r2, 4096;
	add.s64 %rd9, %rd1, %rd8;
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r3], [%rd9], 4096, [%r4];)";

inline const char* const copy_multicast = R"(	mul.wide.u32 %rd8, %r6, 4096;
	mul.wide.u32 %rd10, %r5, 2048;
	add.s64 %rd8, %rd8, %rd10;
	add.s64 %rd9, %rd1, %rd8;
	mul.lo.u32 %r7, %r5, 2048;
	add.u32 %r8, %r3, %r7;
	mov.b16 %rs1, 3;
	@%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%r8], [%rd9], 2048, [%r4], %rs1;)";

} // namespace probe_ptx

namespace probe_cl {

// Through the driver's compiler. kernel_src_cluster reads the cluster registers through marked
// asm lines (kernels_cl/sm90a.clh's convention), for the PTX-transform route; probe_local takes
// a __local argument of any size (the same check as probe_static).
inline const char* const source = R"(
kernel void probe_local(global uint* out, local uint* buf, uint words) {
    const uint t = get_local_id(0), n = get_local_size(0);
    for (uint i = t; i < words; i += n)
        buf[i] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint s = 0;
    for (uint j = (t + 1) % n; j < words; j += n)
        s += buf[j];
    out[get_group_id(0) * n + t] = s;
}

kernel void kernel_src_cluster(global uint* out) {
    uint n = 0, r = 0, c = 0;
    __asm__ __volatile__("//duet-sm90a mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    __asm__ __volatile__("//duet-sm90a mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    __asm__ __volatile__("//duet-sm90a mov.u32 %0, %%clusterid.x;" : "=r"(c));
    if (get_local_id(0) == 0) {
        out[4 * get_group_id(0) + 0] = n;
        out[4 * get_group_id(0) + 1] = r;
        out[4 * get_group_id(0) + 2] = c;
        out[4 * get_group_id(0) + 3] = get_group_id(0);
    }
}
)";

// A static __local array of KIB KiB (a -D), the same check as probe_static over `words`.
inline const char* const static_source = R"(
kernel void probe_static_cl(global uint* out, uint words) {
    local uint big[KIB * 256];
    const uint t = get_local_id(0), n = get_local_size(0);
    for (uint i = t; i < words; i += n)
        big[i] = i;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint s = 0;
    for (uint j = (t + 1) % n; j < words; j += n)
        s += big[j];
    out[get_group_id(0) * n + t] = s;
}
)";

} // namespace probe_cl
