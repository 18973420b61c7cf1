#!/usr/bin/env bash
# On the GPU machine: the large sizes of docs/results/nvidia-h100.md through CUDA and NVIDIA's OpenCL,
# the library references (PyTorch/cuBLAS/cuDNN, CuPy/CUB, CLBlast), sgemm against cuBLAS in
# alternating rounds, the launch overhead, the warm-cache start, and one summary table.
source "$(dirname "$0")/gpu_env.sh"
R="--reps ${REPS:-10} --warmup 3 --verify sample --quiet --format json"
for dev in ${DEVS:-cuda:0 $NVCL}; do
    tag=${dev/:/}
    timeout 60 $RUNAPP run vecadd --device $dev --size 2^28 $R > "$OUT/perf_vecadd_$tag.json"
    timeout 90 $RUNAPP run reduction --device $dev --size 2^28 --variant ${REDUCTION_VARIANTS:-sequential_f32,grid_stride_f32,shuffle_f32,atomic_f32,grid_stride_i32,shuffle_i32} $R > "$OUT/perf_reduction_$tag.json"
    timeout 90 $RUNAPP run matmul --device $dev --size 4096,8192 --variant ${MATMUL_VARIANTS:-reg4x4,reg8x8,best} $R > "$OUT/perf_matmul_$tag.json"
    timeout 60 $RUNAPP run conv5x5 --device $dev --size 8192 $R > "$OUT/perf_conv5x5_$tag.json"
    $RUNAPP bandwidth --device $dev --size 256M --format json > "$OUT/perf_bandwidth_$tag.json"
done
[ "${SKIP_REFERENCE:-0}" = 1 ] || timeout 120 python3 "$ROOT/bench/reference.py" > "$OUT/reference.json" 2> "$OUT/reference.err"
if [ "${SKIP_REFERENCE:-0}" != 1 ] && [ -x "$ROOT/.gpu/bin/clblast_sgemm" ]; then
    "$ROOT/.gpu/bin/clblast_sgemm" NVIDIA 4096 8192 > "$OUT/clblast.jsonl" 2> "$OUT/clblast.err"
fi
if [ "${SKIP_REFERENCE:-0}" != 1 ]; then
    timeout 400 python3 "$ROOT/bench/sgemm_rounds.py" --rounds ${ROUNDS:-3} --config cuda=cuda:0 \
        ${NVCL:+--config opencl=$NVCL} --json > "$OUT/sgemm_rounds.json" 2> "$OUT/sgemm_rounds.err"
    # odd and rectangular sizes, each against the nearest square figure (issue #15: >= 0.9)
    timeout 500 python3 "$ROOT/bench/sgemm_rounds.py" --odd --rounds ${ODD_ROUNDS:-1} --config cuda=cuda:0 \
        ${NVCL:+--config opencl=$NVCL} --json > "$OUT/sgemm_odd.json" 2> "$OUT/sgemm_odd.err"
fi
[ -x "$B/bin/duet_launch_overhead" ] &&
    timeout 120 "$B/bin/duet_launch_overhead" --device cuda:0${NVCL:+ --device $NVCL} --json > "$OUT/launch.json" 2> "$OUT/launch.err"
timeout 200 bash "$ROOT/bench/cache_startup.sh" --devices cuda:0${NVCL:+,$NVCL} --runs 3 --kernel-dir "$ROOT" --json \
    > "$OUT/startup.json" 2> "$OUT/startup.err"
python3 "$ROOT/bench/summarize.py" "$OUT" | tee "$OUT/summary.md"
