#!/usr/bin/env bash
# On the GPU machine: one kernel text through both APIs of the GPU. test_dialects runs a kernel
# written only in OpenCL C (tests/data/one_text/group_sums.cl) on CUDA (NVRTC with
# duet_opencl_c.cuh) and NVIDIA's OpenCL, a kernel written only in CUDA C++ (tile_sums.cu) on
# CUDA and NVIDIA's OpenCL (PTX by NVRTC, pointer parameters marked .ptr .global; else by clang
# with libclc; with neither its load names what is missing), a PTX text (scale.ptx) on both, and the
# separately written twins bound by parameter name, each on every device, checked against the
# host. Then runapp runs Duet's own ladders through both APIs of the GPU three times in one call:
# each device its twin file, and every device kernels_cl/ (--kernel-text opencl-c), then
# kernels_cu/ (--kernel-text cuda-c++), with the same defines, and `runapp report` puts them side
# by side (steps marked [opencl-c], [cuda-c++]). Prints each test's
# doctest summary, the devices it ran on and the report; the output is in $OUT (one archive,
# one_text.tgz, as the device machine returns few files).
#   bash bench/gpu_one_text.sh        (with the relocatable build in .gpu/build, as gpu_env.sh)
source "$(dirname "$0")/gpu_env.sh"
export DUET_REQUIRE_CUDA=1 DUET_TEST_SKIP_PLATFORM=Portable
for t in test_dialects test_nvrtc_opencl_c; do
    [ -x "$B/bin/$t" ] || { echo "$t: not in $B/bin (build it)"; continue; }
    timeout 300 "$B/bin/$t" > "$OUT/$t.txt" 2>&1
    echo "$t: exit $? $(grep -E '^\[doctest\] (test cases|assertions)' "$OUT/$t.txt" | tr '\n' ' ')"
    grep -E "on (cuda|opencl):[0-9]+" "$OUT/$t.txt" | sed 's/^.*MESSAGE( *//' | sort | uniq -c | head -20
done
[ -n "$NVCL" ] || { echo "no NVIDIA OpenCL device: the ladders through both APIs are not run"; exit 0; }
R=$(mktemp -d)
for text in twins opencl-c cuda-c++; do
    for app in vecadd reduction conv5x5 matmul; do
        opt=""
        [ "$text" = twins ] || opt="--kernel-text $text"
        # shellcheck disable=SC2086 # opt holds an option and its value
        timeout 120 "$RUNAPP" compare "$app" --devices "cuda:0,$NVCL" $opt --reps 5 --quiet \
            --format json --output "$R/$app-$text.json" > "$R/$app-$text.log" 2>&1
        echo "$app, $text: exit $?"
    done
done
"$RUNAPP" report "$R"/*.json > "$R/report.txt" 2>&1
cat "$R/report.txt"
tar -czf "$OUT/one_text.tgz" -C "$R" .
rm -rf "$R"
