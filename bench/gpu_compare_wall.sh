#!/usr/bin/env bash
# On the GPU machine: the main job's wall time (bench/compare_wall.py), `runapp compare` with
# defaults on every device (CUDA, NVIDIA's OpenCL, PoCL), cold program cache and warm.
source "$(dirname "$0")/gpu_env.sh"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
$RUNAPP list > "$OUT/list.txt" 2>&1
python3 "$ROOT/bench/compare_wall.py" "$RUNAPP" --cold --out "$OUT/compare_cold.json" ${COMPARE_ARGS:-} \
    | tee "$OUT/compare_cold.md"
python3 "$ROOT/bench/compare_wall.py" "$RUNAPP" --out "$OUT/compare_warm.json" ${COMPARE_ARGS:-} \
    | tee "$OUT/compare_warm.md"
