#!/usr/bin/env bash
# Without a GPU: the OpenCL matmul and tf32 kernels through clang's NVPTX target (a stand-in for
# NVIDIA's OpenCL compiler, which is LLVM-based too) and ptxas, per kernel: registers and stack
# bytes, with NVIDIA's unroll hints (DUET_UNROLL_HINTS, as the device profile sets it) and without (DUET_NO_NV_UNROLL).
# A stack frame where CUDA has none means a register block spilled to local memory: the first
# suspect when an OpenCL step is slower than its CUDA twin. Needs clang (15+) and the CUDA
# toolkit's ptxas; the libclc built-ins are replaced by PTX special registers (prelude below),
# so only ptxas's report matters, not the link. A proxy only: clang keeps `best`'s acc[8][16] on
# the stack (512 bytes) where NVIDIA's compiler reaches 45.6 TFLOP/s with it (docs/design/sgemm.md).
#   bench/nvptx_check.sh [sm_90]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ARCH=${1:-sm_90}
CLANG=$(command -v clang-15 || command -v clang)
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cat > "$T/prelude.h" <<'H'
#define get_local_id(d) ((d) == 0 ? __nvvm_read_ptx_sreg_tid_x() : __nvvm_read_ptx_sreg_tid_y())
#define get_group_id(d) ((d) == 0 ? __nvvm_read_ptx_sreg_ctaid_x() : __nvvm_read_ptx_sreg_ctaid_y())
#define get_global_id(d) ((d) == 0 ? __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() + __nvvm_read_ptx_sreg_tid_x() : __nvvm_read_ptx_sreg_ctaid_y() * __nvvm_read_ptx_sreg_ntid_y() + __nvvm_read_ptx_sreg_tid_y())
#define get_num_groups(d) __nvvm_read_ptx_sreg_nctaid_z()
#define barrier(f) __nvvm_bar_sync(0)
H
# The files' tile macros at the step records' textbook shapes (apps/ladders/matmul_steps.cpp; the
# kernels have no defaults): `runapp compile matmul` builds with them from the records themselves.
tiles() {
    case $1 in
    matmul_tiled) echo "-DT16_TS=16 -DT16_RPI=1 -DT32_TS=32 -DT32_RPI=1" ;;
    matmul_reg) echo "-DR4_BM=64 -DR4_BN=64 -DR4_BK=16 -DR8_BM=128 -DR8_BN=128 -DR8_BK=8" ;;
    matmul_best) echo "-DBEST_BM=128 -DBEST_BN=256 -DBEST_BK=16 -DBEST_TM=8 -DBEST_TN=16" ;;
    matmul_tf32) echo "-DTF_BM=128 -DTF_BN=128 -DTF_BK=16 -DTF_WM=2 -DTF_WN=4" ;;
    esac
}
for f in matmul_tiled matmul_reg matmul_best matmul_tf32; do
    python3 - "$ROOT" "$f" "$T" <<'PY'
import sys
root, f, t = sys.argv[1:]
src = open(f"{root}/kernels_cl/{f}.cl").read()
open(f"{t}/{f}.cl", "w").write(src.replace('#include "matmul.clh"', open(f"{root}/kernels_cl/matmul.clh").read()))
PY
    for mode in hints "-DDUET_NO_NV_UNROLL=1"; do
        defs="-DDUET_UNROLL_HINTS=1 -DDUET_PTX_ASM=1 -DDUET_TF32_PTX=1 $(tiles "$f")"
        [ "$mode" = hints ] || defs="$defs $mode"
        "$CLANG" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header \
            -include "$T/prelude.h" -I "$ROOT/kernels_cl" -O3 -S -march=sm_80 -Xclang -target-feature \
            -Xclang +ptx70 $defs "$T/$f.cl" -o "$T/$f.ptx" 2> "$T/err" || { echo "$f: clang failed: $(head -3 "$T/err")"; continue; }
        "$PTXAS" -arch="$ARCH" -v "$T/$f.ptx" -o "$T/$f.cubin" 2>&1 |
            awk -v f="$f" -v m="${mode%% *}" '/Compiling entry/ {k=$7} /stack frame/ {s=$1} /Used [0-9]+ registers/ {print f, k, m, "registers", $5, "stack", s}'
    done
done
# Hopper's wgmma builds of matmul_tf32 and matmul_tc3 (kernels_cl/matmul_wgmma.clh) as the OpenCL
# backend makes them on sm90a_ptx devices: the lines marked DUET_SM90A uncommented and the target
# raised to sm_90a (backends/opencl/opencl_ptx.cpp), then ptxas for sm_90a: registers (two
# 256-work-item work-groups an SM need 128 at most) and local memory (up to 227 KiB).
echo '#define min(a, b) ((a) < (b) ? (a) : (b))' >> "$T/prelude.h"
for f in matmul_tf32 matmul_tc3; do
    "$CLANG" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -Xclang -finclude-default-header \
        -include "$T/prelude.h" -I "$ROOT/kernels_cl" -O3 -S -march=sm_80 -Xclang -target-feature \
        -Xclang +ptx70 -DDUET_UNROLL_HINTS=1 -DDUET_PTX_ASM=1 -DDUET_TF32_PTX=1 -DDUET_TF32_WGMMA=1 $(tiles matmul_tf32) \
        "$ROOT/kernels_cl/$f.cl" -o "$T/$f.wg.ptx" 2> "$T/err" || { echo "$f wgmma: clang failed: $(head -3 "$T/err")"; continue; }
    sed -e 's#//duet-sm90a ##' -e 's/^\.target sm_[0-9]*/.target sm_90a/' -e 's/^\.version .*/.version 8.0/' \
        "$T/$f.wg.ptx" > "$T/$f.sm90a.ptx"
    "$PTXAS" -arch=sm_90a -v "$T/$f.sm90a.ptx" -o "$T/$f.wg.cubin" 2>&1 |
        awk -v f="$f" '/error/ {print f, "wgmma:", $0} /Compiling entry/ {k=$7} /stack frame/ {s=$1} /Used [0-9]+ registers/ {print f, k, "wgmma sm_90a", "registers", $5, "stack", s, "local", $(NF-2)}'
done
