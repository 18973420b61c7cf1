#!/usr/bin/env bash
# On the GPU machine: matmul's tc3 step and reduction's det_f32, checked and then timed beside
# cuBLAS in one run (docs/design/tc3.md). DUET_BUILD: the relocatable build (bin/, lib/).
# PARTS=matmul leaves det_f32 out. Writes $OUT/log.txt (everything), $OUT/runs.jsonl (runapp's
# rows) and $OUT/cublas.json.
source "$(dirname "$0")/gpu_env.sh"
source "$(dirname "$0")/gpu_rows.sh"
{
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
    "$RUNAPP" list
} >> "$LOG" 2>&1
DEVS="cuda:0 ${NVCL}"
say "devices: $DEVS"
# 1. Correctness: odd sizes in full, the padded path (K % 4 != 0), both languages.
for d in $DEVS; do
    for s in 1000x700x300 1001x999x37 129x65x257; do
        run "check $d $s" matmul --device "$d" --variant tc3,tf32,best --size "$s" --verify full --reps 2 --warmup 1
    done
    [ "${PARTS:-all}" = matmul ] && continue # PARTS=matmul: the matmul steps only
    run "det $d 2^28" reduction --device "$d" --variant det_f32 --size 268435456 --reps 20
    for s in 1 1000003; do
        run "det $d $s" reduction --device "$d" --variant det_f32 --size "$s" --reps 5
        run "det $d $s local 64" reduction --device "$d" --variant det_f32 --size "$s" --local 64 --reps 5
    done
done
if [ "${PARTS:-all}" != matmul ] && [ -x "$DUET_BUILD/bin/test_reduction_det" ]; then
    DUET_TEST_SKIP_PLATFORM=Portable timeout 120 "$DUET_BUILD/bin/test_reduction_det" >> "$LOG" 2>&1
    say "test_reduction_det (CUDA, NVIDIA OpenCL): exit $?"
fi
# 2. Speed: cuBLAS and a device copy (PyTorch), then the matmul steps, two rounds.
PYTHONUNBUFFERED=1 timeout 150 python3 "$(dirname "$0")/tc3_cublas.py" 4096 8192 > "$OUT/cublas.json" 2>> "$LOG"
say "cublas: exit $?"
for round in 1 2; do
    for d in $DEVS; do
        for s in 4096 8192; do
            run "speed$round $d $s" matmul --device "$d" --variant tc3,tf32,best --size "$s" --verify sample --reps 10
        done
    done
done
python3 "$(dirname "$0")/tc3_summary.py" "$J" "$OUT/cublas.json" | tee -a "$LOG"
