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
