#!/usr/bin/env bash
# On the GPU machine: one kernel text through both APIs of the GPU. test_dialects runs a kernel
# written only in OpenCL C (tests/data/one_text/group_sums.cl) on CUDA (NVRTC with
# duet_opencl_c.cuh) and NVIDIA's OpenCL, a kernel written only in CUDA C++ (tile_sums.cu) on
# CUDA (and on OpenCL devices that take SPIR-V; NVIDIA's does not: its load must name why), and
# the separately written twins bound by parameter name, each on every device, checked against the
# host. Prints each test's doctest summary and the devices it ran on; the output is in $OUT.
#   bash bench/gpu_one_text.sh        (with the relocatable build in .gpu/build, as gpu_env.sh)
source "$(dirname "$0")/gpu_env.sh"
export DUET_REQUIRE_CUDA=1 DUET_TEST_SKIP_PLATFORM=Portable
for t in test_dialects test_nvrtc_opencl_c; do
    [ -x "$B/bin/$t" ] || { echo "$t: not in $B/bin (build it)"; continue; }
    timeout 300 "$B/bin/$t" > "$OUT/$t.txt" 2>&1
    echo "$t: exit $? $(grep -E '^\[doctest\] (test cases|assertions)' "$OUT/$t.txt" | tr '\n' ' ')"
    grep -E "on (cuda|opencl):[0-9]+" "$OUT/$t.txt" | sed 's/^.*MESSAGE( *//' | sort | uniq -c | head -20
done
