#!/usr/bin/env bash
# On the GPU machine (issue 51's done-when): BabelStream's CUDA and OpenCL versions and the
# cuda-samples reduction, each built natively from the upstream files and run through Duet
# (bench/ports: duet_babelstream, duet_cuda_reduction, the kernel files as upstream has them),
# alternately for a few rounds (the order flips each round), every run held to its own check;
# then one table of Duet / native per kernel, each round's and the median, and the JSON in
# $OUT/ports.json (raw outputs in $OUT/ports/).
#
#   bash bench/gpu_ports.sh     # needs .gpu/build (gpu_env.sh) and .gpu/ports
#                               # (bash bench/ports/fetch_upstream.sh .gpu/ports MIRROR MIRROR)
# ROUNDS (3), ARCH (sm_90), PAIRS ("int:0 ... double:7"), STREAM_N (BabelStream's 2^25) and
# STREAM_TIMES (100) change what runs.
source "$(dirname "$0")/gpu_env.sh"
P=${PORTS:-$ROOT/.gpu/ports}
CUDA=${CUDA_HOME:-/usr/local/cuda}
ARCH=${ARCH:-sm_90}
ROUNDS=${ROUNDS:-3}
PAIRS=${PAIRS:-"int:0 int:1 int:2 int:3 int:4 int:5 int:6 int:7 int:8 int:9 float:6 float:7 double:6 double:7"}
RAW=$OUT/ports
NAT=$RAW/native
mkdir -p "$NAT"
S=$P/babelstream/src
R=$P/cuda-samples/Samples/2_Concepts_and_Techniques/reduction
[ -f "$S/cuda/CUDAStream.cu" ] && [ -f "$R/reduction_kernel.cu" ] ||
    { echo "gpu_ports: no upstream files in $P (bench/ports/fetch_upstream.sh)" >&2; exit 2; }
cat "$P/UPSTREAM"

# The native programs, as upstream builds them: BabelStream's CUDA model flags (model.cmake:
# --extended-lambda, GRID_STRIDE, UNROLL_FACTOR=4, NVML) at -O3, its OpenCL model with the
# bundled cl2.hpp, and the sample with its Common/ helpers.
nvml_inc="" nvml_lib="-lnvidia-ml"
if [ ! -f "$CUDA/include/nvml.h" ]; then # a toolkit without NVML's header: the driver's library
    nvml_inc="-I$ROOT/bench/ports/nvml_shim"
    nvml_lib=$(ls /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 /usr/lib64/libnvidia-ml.so.1 2>/dev/null | head -1)
    nvml_lib=${nvml_lib:+-Xlinker $nvml_lib}
fi
[ -f "$CUDA/include/nvml.h" ] || [ -n "$nvml_lib" ] || nvml_lib="-L$CUDA/lib64/stubs -lnvidia-ml"
set -x
"$CUDA/bin/nvcc" -O3 -std=c++17 -arch="$ARCH" --extended-lambda -DCUDA -DGRID_STRIDE -DUNROLL_FACTOR=4 \
    -I"$S" -I"$S/cuda" $nvml_inc "$S/main.cpp" "$S/cuda/CUDAStream.cu" $nvml_lib -o "$NAT/babelstream-cuda" || exit 3
g++ -O3 -std=c++17 -DOCL -I"$S" -I"$S/ocl" -I"$CUDA/include" "$S/main.cpp" "$S/ocl/OCLStream.cpp" \
    -L"$CUDA/lib64" -lOpenCL -o "$NAT/babelstream-ocl" || exit 3
"$CUDA/bin/nvcc" -O3 -std=c++17 -arch="$ARCH" -I"$P/cuda-samples/Common" "$R/reduction.cpp" \
    "$R/reduction_kernel.cu" -o "$NAT/reduction" || exit 3
set +x

STREAM_ARGS="--csv -s ${STREAM_N:-33554432} -n ${STREAM_TIMES:-100}"
# One run: NAME, then the command; its output kept as $RAW/NAME.txt, its exit status in .rc.
one() {
    local name=$1
    shift
    timeout 600 "$@" >"$RAW/$name.txt" 2>&1
    echo $? >"$RAW/$name.rc"
    echo "$name: rc $(cat "$RAW/$name.rc")"
}
stream_pair() { # ROUND BACKEND PRECISION
    local r=$1 be=$2 prec=$3 flag="" nat dev env=""
    [ "$prec" = float ] && flag=--float
    if [ "$be" = cuda ]; then nat=$NAT/babelstream-cuda dev=cuda:0; else
        nat=$NAT/babelstream-ocl dev=opencl:0 env=OCL_ICD_VENDORS=/tmp/icd-nv; fi
    local n=(one "stream-$be-$prec-native-$r" env $env "$nat" $STREAM_ARGS $flag)
    local d=(one "stream-$be-$prec-duet-$r" env $env "$B/bin/duet_babelstream" --upstream "$P/babelstream" --device $dev $STREAM_ARGS $flag)
    if [ $((r % 2)) -eq 0 ]; then "${n[@]}"; "${d[@]}"; else "${d[@]}"; "${n[@]}"; fi
}
reduce_pair() { # ROUND TYPE KERNEL
    local r=$1 t=$2 k=$3
    local n=(one "reduce-$t-$k-native-$r" "$NAT/reduction" -type=$t -kernel=$k)
    local d=(one "reduce-$t-$k-duet-$r" "$B/bin/duet_cuda_reduction" --upstream "$P/cuda-samples" -type=$t -kernel=$k)
    if [ $((r % 2)) -eq 0 ]; then "${n[@]}"; "${d[@]}"; else "${d[@]}"; "${n[@]}"; fi
}
[ -e /tmp/icd-nv/nvidia.icd ] || echo "gpu_ports: no NVIDIA OpenCL ICD: the OpenCL rows will fail" >&2
for r in $(seq 1 "$ROUNDS"); do
    for be in cuda opencl; do for prec in double float; do stream_pair "$r" $be $prec; done; done
    for p in $PAIRS; do reduce_pair "$r" "${p%%:*}" "${p##*:}"; done
done
python3 "$ROOT/bench/ports/ports_summary.py" "$RAW" "$OUT/ports.json"
