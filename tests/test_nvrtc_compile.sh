#!/usr/bin/env bash
# The build-time kernel compiler (backends/cuda/nvrtc_compile.cpp): bad arguments get a usage
# error, a missing file or a kernel that does not compile fails with NVRTC's own message, and a
# kernel file becomes machine code (ELF) for sm_XX and PTX text for compute_XX.
# Usage: test_nvrtc_compile.sh TOOL KERNEL_DIR WORK_DIR
set -u
tool=$1 kernels=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

"$tool" only-one-argument >out.txt 2>err.txt
[ $? -eq 2 ] && grep -q "usage: duet_nvrtc_compile" err.txt || fail "one argument: no usage error"
"$tool" "$kernels/vecadd.cu" "$kernels" gfx90a x.bin >out.txt 2>err.txt
[ $? -eq 2 ] && grep -q "'gfx90a' is neither sm_XX nor compute_XX" err.txt || fail "bad architecture accepted"
"$tool" "$work/none.cu" "$kernels" sm_80 x.bin >out.txt 2>err.txt
[ $? -eq 1 ] && grep -q "cannot read .*none.cu" err.txt || fail "missing source: no clear error"
printf 'extern "C" __global__ void broken(float* x) { x[0] = undeclared_name; }\n' >broken.cu
"$tool" broken.cu "$kernels" sm_80 broken.bin >out.txt 2>err.txt
[ $? -eq 1 ] && grep -q "undeclared_name" err.txt && grep -q "nvrtcCompileProgram failed for broken.cu" err.txt ||
    fail "a kernel that does not compile: no NVRTC log"
[ -s broken.bin ] && fail "a failed build left an output file"

"$tool" "$kernels/vecadd.cu" "$kernels" sm_80 vecadd.cubin 2>err.txt || fail "vecadd for sm_80: $(cat err.txt)"
[ "$(head -c 4 vecadd.cubin | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] || fail "sm_80 output is not ELF"
"$tool" "$kernels/vecadd.cu" "$kernels" compute_80 vecadd.ptx 2>err.txt || fail "vecadd for compute_80: $(cat err.txt)"
grep -q "^.target sm_80" vecadd.ptx && grep -q "^.visible .entry vecadd" vecadd.ptx || fail "compute_80 output is not vecadd's PTX"
[ "$(tr -d '\000' <vecadd.ptx | wc -c)" -eq "$(wc -c <vecadd.ptx)" ] || fail "the PTX holds a NUL byte"
# A header of the kernel directory is found (matmul.cuh), as the runtime's NVRTC finds it.
"$tool" "$kernels/matmul_naive.cu" "$kernels" compute_80 naive.ptx 2>err.txt || fail "matmul_naive (includes matmul.cuh): $(cat err.txt)"

[ $fails -eq 0 ] && echo "nvrtc_compile: all checks passed"
exit $fails
