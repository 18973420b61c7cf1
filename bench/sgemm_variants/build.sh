#!/usr/bin/env bash
# The cubins that order.py and stream.py time (docs/design/sgemm.md): built as
# Duet builds its CUDA kernels (NVRTC, bin/duet_nvrtc_compile of a build with DUET_CUDA=ON), then
# ptxas for sm_90. Run here, carry OUT_DIR to the GPU machine:
#   bash bench/sgemm_variants/build.sh BUILD_DIR OUT_DIR
# bench/cubin_loop.py OUT_DIR/*.cubin reads their loops without a GPU.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:?usage: build.sh BUILD_DIR OUT_DIR [NAME=SOURCE[:MACRO=VALUE,...] ...]}
out=${2:?usage: build.sh BUILD_DIR OUT_DIR [NAME=SOURCE[:MACRO=VALUE,...] ...]}
shift 2
mkdir -p "$out/src"
cp "$root"/kernels_cu/*.cuh "$root"/kernels_cu/matmul_best.cu "$root"/kernels_cu/matmul_best_stream.cu \
    "$here/order.cu" "$out/src/"
# The stream kernel before its divisions were multiplies (2026-11-26, commit 2d1b1d8).
git -C "$root" show 2d1b1d8:kernels_cu/matmul_best_stream.cu >"$out/src/stream_old.cu"
one() { # NAME SOURCE [MACRO=VALUE ...]
    local name=$1 src=$2
    shift 2
    { for d in "$@"; do echo "#define ${d%%=*} ${d#*=}"; done; echo "#include \"$src\""; } \
        >"$out/src/w_$name.cu"
    "$build/bin/duet_nvrtc_compile" "$out/src/w_$name.cu" "$out/src" compute_90 "$out/$name.ptx"
    "${CUDA_PATH:-/usr/local/cuda}/bin/ptxas" -arch=sm_90 "$out/$name.ptx" -o "$out/$name.cubin"
}
if [ $# -gt 0 ]; then
    for spec in "$@"; do
        name=${spec%%=*} rest=${spec#*=}
        src=${rest%%:*} defs=
        [ "$src" != "$rest" ] && defs=${rest#*:}
        # shellcheck disable=SC2086 # the macros, split at commas
        one "$name" "$src" ${defs//,/ }
    done
    echo "cubins in $out"
    exit 0
fi
one matmul_best matmul_best.cu
one order order.cu
one stream_old stream_old.cu BEST_STREAM_INLINE=1
one stream_new1 matmul_best_stream.cu BEST_STREAM_INLINE=1
one stream_new0 matmul_best_stream.cu BEST_STREAM_INLINE=0
echo "cubins in $out"
