#!/usr/bin/env bash
# On the GPU machine: NVIDIA OpenCL's tf32 (or STEP=tc3) fed by the tile copy engine (a build in
# $NEW, default .gpu/tma) against the cp.async kernel (the build in $BASE, default .gpu/run, with the kernels of
# this tree through DUET_KERNEL_DIR), and CUDA's tf32 of the new build in the same run.
# The tile-map conformance cases first, then full checks at sizes whose K % 4 == 0 (the tile copy
# engine's path) and one whose K % 4 != 0 (the cp.async fallback), then ROUNDS rounds (default 2)
# alternating the builds at 4096^3 and 8192^3. Writes $OUT/log.txt and $OUT/runs.jsonl and prints
# the speed rows (bench/tc3_summary.py's table without cuBLAS). VARIANTS (optional): directories
# of kernel sources (each holding kernels_cl/), timed in the same rounds through the new build
# with DUET_KERNEL_DIR, to compare kernel variants in one run.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NEW=${NEW:-$ROOT/.gpu/tma}
BASE=${BASE:-$ROOT/.gpu/run}
export DUET_BUILD=$NEW
source "$(dirname "$0")/gpu_env.sh"
source "$(dirname "$0")/gpu_rows.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$LOG" 2>&1
say "NVIDIA OpenCL: $NVCL"
OCL_ICD_VENDORS=/tmp/icd-nv timeout 120 "$NEW/bin/conformance" -tc='*tile map*' >> "$LOG" 2>&1
say "conformance (tile map cases, CUDA and NVIDIA OpenCL): exit $?"
STEP=${STEP:-tf32}
RUNAPP=$NEW/bin/runapp
for s in 1001x999x36 2049x1023x516 129x65x256 3000x129x4 1001x999x37; do
    run "check tma $s" matmul --device "$NVCL" --variant "$STEP" --size "$s" --verify full --reps 2 --warmup 1
done
for round in $(seq "${ROUNDS:-2}"); do
    for s in 4096 8192; do
        RUNAPP=$NEW/bin/runapp
        run "speed$round tma $s" matmul --device "$NVCL" --variant "$STEP" --size "$s" --verify sample --reps 10
        RUNAPP=$BASE/bin/runapp
        DUET_KERNEL_DIR=$ROOT run "speed$round cp.async $s" matmul --device "$NVCL" --variant "$STEP" --size "$s" --verify sample --reps 10
        RUNAPP=$NEW/bin/runapp
        for v in ${VARIANTS:-}; do
            DUET_KERNEL_DIR=$ROOT/$v run "speed$round $(basename "$v") $s" matmul --device "$NVCL" --variant "$STEP" --size "$s" --verify sample --reps 10
        done
    done
done
RUNAPP=$NEW/bin/runapp
run "speed cuda 8192" matmul --device cuda:0 --variant "$STEP" --size 8192 --verify sample --reps 10
python3 - "$J" <<'PY' | tee -a "$LOG"
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    tf = (r.get("gflops") or 0) / 1000
    print("%-28s %-6s %-14s %-9s %7.1f TFLOP/s  %s" % (r["label"], r["variant"], r.get("size"),
          r.get("status"), tf, r.get("note", "")[:110]))
PY
