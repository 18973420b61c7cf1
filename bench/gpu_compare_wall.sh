#!/usr/bin/env bash
# On the GPU machine: the main job's wall time (bench/compare_wall.py), `runapp compare` with
# defaults on every device (CUDA, NVIDIA's OpenCL, PoCL), cold program cache and warm.
source "$(dirname "$0")/gpu_env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
$RUNAPP list > "$OUT/list.txt" 2>&1
python3 "$ROOT/bench/compare_wall.py" "$RUNAPP" --cold --runs 2 --out "$OUT/compare_cold.json" ${COMPARE_ARGS:-} \
    | tee "$OUT/compare_cold.md"
python3 "$ROOT/bench/compare_wall.py" "$RUNAPP" --out "$OUT/compare_warm.json" ${COMPARE_ARGS:-} \
    | tee "$OUT/compare_warm.md"
# One variant at a time, as a user times one step (auto size, warm program cache): wall seconds.
TIMEFORMAT=%R
for dev in cuda:0 $NVCL; do
    for av in "vecadd naive" "reduction atomic_f32" "matmul best" "conv5x5 best"; do
        set -- $av
        s=$( { time $RUNAPP run $1 --device $dev --variant $2 --reps 1 --warmup 0 --quiet --format csv \
              > "$OUT/one_${1}_${dev/:/}.csv" 2>&1; } 2>&1 )
        echo "one variant: $1 $2 on $dev: $s s wall" | tee -a "$OUT/one_variant.txt"
    done
done
