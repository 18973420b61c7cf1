#!/usr/bin/env bash
# The build-time kernel compiler (backends/cuda/nvrtc_compile.cpp): bad arguments get a usage
# error, a missing file or a kernel that does not compile fails with NVRTC's own message, and a
# kernel file becomes machine code (ELF) for sm_XX and PTX text for compute_XX, with the step
# records' tile macros as NAME=VALUE arguments.
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

# The tile macros come from the step records: a file built without them fails with the #error
# naming the macro and the record; with them (NAME=VALUE arguments, as the embedded builds pass
# them) it builds; an argument that is not NAME=VALUE is a usage error.
"$tool" "$kernels/matmul_tiled.cu" "$kernels" compute_80 bare.ptx >out.txt 2>err.txt
[ $? -eq 1 ] && grep -q "T16_TS and T16_RPI (tiled16) .* are set by the host from the step records (apps/ladders/matmul_steps.cpp)" err.txt ||
    fail "matmul_tiled.cu with no defines: no #error naming its macros"
"$tool" "$kernels/matmul_tiled.cu" "$kernels" compute_80 t16.ptx T16_TS=16 T16_RPI=1 2>err.txt || fail "tiled16 with its macros: $(cat err.txt)"
grep -q "^.visible .entry matmul_tiled16" t16.ptx && ! grep -q "matmul_tiled32" t16.ptx || fail "tiled16's build is not tiled16 alone"
"$tool" "$kernels/matmul_tiled.cu" "$kernels" compute_80 x.ptx T16_TS >out.txt 2>err.txt
[ $? -eq 2 ] && grep -q "'T16_TS' is not NAME=VALUE" err.txt || fail "a define that is not NAME=VALUE accepted"

[ $fails -eq 0 ] && echo "nvrtc_compile: all checks passed"
exit $fails
