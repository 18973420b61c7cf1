#!/usr/bin/env bash
# CI: every app's ladder, verified, on Intel's CPU OpenCL runtime (scripts/intel_cpu_runtime.sh)
# at small sizes. Exit 77 (ctest: skipped) with the reason when the runtime cannot be installed.
#   bash scripts/test_intel_cpu.sh PATH/TO/runapp
set -euo pipefail
runapp=${1:?usage: scripts/test_intel_cpu.sh PATH/TO/runapp}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if ! env_lines=$(bash "$here/intel_cpu_runtime.sh" --env); then
    echo "SKIPPED: Intel's CPU OpenCL runtime could not be installed (see above)"
    exit 77
fi
eval "$env_lines" # export OCL_ICD_VENDORS=... LD_LIBRARY_PATH=..., quoted by printf %q
export OCL_ICD_FILENAMES=
"$runapp" list
"$runapp" compare vecadd --devices opencl --size 65536 --reps 2 --warmup 1
"$runapp" compare matmul --devices opencl --size 256 --reps 2 --warmup 1
"$runapp" compare conv5x5 --devices opencl --size 512x384 --reps 2 --warmup 1
"$runapp" compare reduction --devices opencl --size 1M --reps 2 --warmup 1
# The sub-group path of the reduction (DUET_HAS_SUBGROUPS=1) at the sub-group width Intel's
# vectoriser picks (it offers 4 to 64; nothing assumes 32), in groups of 16 and 64. Forced:
# this runtime offers sub-groups as the OpenCL C 3.0 feature __opencl_c_subgroups and as
# cl_intel_subgroups, not as the cl_khr_subgroups extension Duet detects, so a plain run takes
# the local-memory tree.
# The launch checks of argument kinds need each kernel's argument information, which this
# runtime drops from programs made from cached binaries: they must hold on a warm cache too.
conformance=$(dirname "$runapp")/conformance
if [ -x "$conformance" ]; then
    cache=$(mktemp -d)
    for pass in cold warm; do
        echo "conformance's argument checks, $pass cache"
        DUET_CACHE_DIR=$cache "$conformance" -tc="conformance: arguments are per launch*"
    done
    rm -rf "$cache"
fi
# Duet's own CUDA C++ kernels (kernels_cu/) on this runtime through SPIR-V, checked like every
# row; the steps the route cannot build (warp intrinsics, 8-wide vectors) are SKIPPED with the
# compiler's reason.
"$runapp" compare vecadd --devices opencl --kernel-text cuda-c++ --size 65536 --reps 2 --warmup 1
"$runapp" compare conv5x5 --devices opencl --kernel-text cuda-c++ --size 512x384 --reps 2 --warmup 1
"$runapp" compare matmul --devices opencl --kernel-text cuda-c++ --size 256 --reps 2 --warmup 1 |
    tee /dev/stderr | grep "reg4x4 \[cuda-c++\].*PASS" >/dev/null
# One kernel text: tests/data/one_text/tile_sums.cu, written only in CUDA C++, must build here
# through SPIR-V (clang -> llvm-spirv; this runtime takes IL) and pass, as group_sums.cl (OpenCL
# C only) and Duet's own kernels built from one dialect's files (BuildOptions::own_dialect).
dialects=$(dirname "$runapp")/test_dialects
if [ -x "$dialects" ]; then
    "$dialects" -tc="one kernel text*" | tee /dev/stderr | grep "built as spir-v" >/dev/null
fi
for local in 16 64; do
    "$runapp" reduction --variant shuffle_i32,shuffle_f32,atomic_f32 --size 1M --reps 1 \
        --warmup 0 --local "$local" --define DUET_HAS_SUBGROUPS=1 | tee /dev/stderr |
        grep "sub-groups (sub_group_reduce_add)" >/dev/null
done
