#!/usr/bin/env bash
# On the GPU machine: builds of the CUDA plugin compared in one run, as in section 3 of
# results/nvidia-h100-2026-11-27-tc3-det.txt. Put each build's libduet_cuda.so in
# variants/A, variants/B, variants/C beside bench/ (they are chosen through DUET_BACKEND_PATH:
# the same runapp, libduet and OpenCL plugin for all), and DUET_BUILD at the relocatable build.
# Checks tc3 at odd sizes with each, then times tc3 at 4096^3 and 8192^3 with each, and NVIDIA
# OpenCL's tc3 in its default warp layout (W24) and in 4x2 warps (W42), beside cuBLAS; two rounds.
source "$(dirname "$0")/gpu_env.sh"
source "$(dirname "$0")/gpu_rows.sh"
V=$(cd "$(dirname "$0")/../variants" && pwd)
for v in A B C; do
    export DUET_BACKEND_PATH=$V/$v
    for s in 1001x999x37 1000x700x300 2049x1023x517; do
        run "check $v cuda:0 $s" matmul --device cuda:0 --variant tc3 --size "$s" --verify full --reps 2 --warmup 1
    done
done
unset DUET_BACKEND_PATH
for s in 1001x999x37 1000x700x300; do
    run "check W42 $NVCL $s" matmul --device "$NVCL" --variant tc3 --size "$s" --verify full --reps 2 --warmup 1 --define TF_WM=4 --define TF_WN=2
done
PYTHONUNBUFFERED=1 timeout 150 python3 "$(dirname "$0")/tc3_cublas.py" 4096 8192 > "$OUT/cublas.json" 2>> "$LOG"
say "cublas: exit $?"
for round in 1 2; do
    for v in A B C; do
        export DUET_BACKEND_PATH=$V/$v
        for s in 4096 8192; do
            run "speed$round $v cuda:0 $s" matmul --device cuda:0 --variant tc3 --size "$s" --verify sample --reps 10
        done
    done
    unset DUET_BACKEND_PATH
    for s in 4096 8192; do
        run "speed$round W24 $NVCL $s" matmul --device "$NVCL" --variant tc3 --size "$s" --verify sample --reps 10
        run "speed$round W42 $NVCL $s" matmul --device "$NVCL" --variant tc3 --size "$s" --verify sample --reps 10 --define TF_WM=4 --define TF_WN=2
    done
done
python3 "$(dirname "$0")/tc3_summary.py" "$J" "$OUT/cublas.json" | tee -a "$LOG"
