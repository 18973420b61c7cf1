#!/usr/bin/env bash
# On the GPU machine: CUDA's tf32 (matmul_tf32_wgmma) against cuBLAS TF32, kernel variants in the
# same rounds. Full checks of the build's own kernel at odd sizes first (an odd count of column
# tiles, K % 4 != 0, one tile), then ROUNDS rounds (default 2), each timing cuBLAS TF32 through
# PyTorch (bench/tc3_cublas.py), the build's kernel and every tree in VARIANTS (directories
# holding kernels_cu/, built by NVRTC through DUET_KERNEL_DIR, each checked once first) at SIZES
# (default 8192); UNCHECKED: trees timed without that check (diagnostics whose results may be
# wrong: their rows' status says so).
# Needs DUET_BUILD (the relocatable build) and OUT; writes $OUT/log.txt, runs.jsonl and
# cublas-ROUND.json and prints TFLOP/s and the ratio to the round's cuBLAS TF32.
source "$(dirname "$0")/gpu_env.sh"
source "$(dirname "$0")/gpu_rows.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$LOG" 2>&1
SIZES=${SIZES:-8192}
for s in 1001x999x36 2049x1023x516 129x65x256 3000x129x4 1001x999x37 4096x4224x4096; do
    run "check $s" matmul --device cuda:0 --variant tf32 --size "$s" --verify full --reps 2 --warmup 1
done
# Each variant checked once (a variant that fails or hangs is left out of the rounds).
kept=""
for v in ${VARIANTS:-}; do
    RUN_TIMEOUT=60 DUET_KERNEL_DIR=$ROOT/$v run "check $(basename "$v") 1001x999x36" matmul \
        --device cuda:0 --variant tf32 --size 1001x999x36 --verify full --reps 2 --warmup 1
    python3 -c 'import json, sys
sys.exit(not any(r.get("label") == sys.argv[2] and r.get("status") == "pass"
                 for r in map(json.loads, open(sys.argv[1]))))' "$J" "check $(basename "$v") 1001x999x36" &&
        kept="$kept $v"
done
VARIANTS="$kept ${UNCHECKED:-}"
for round in $(seq "${ROUNDS:-2}"); do
    PYTHONUNBUFFERED=1 timeout 150 python3 "$ROOT/bench/tc3_cublas.py" $SIZES \
        > "$OUT/cublas-$round.json" 2>> "$LOG"
    say "cublas round $round: exit $?"
    for s in $SIZES; do
        run "r$round build $s" matmul --device cuda:0 --variant tf32 --size "$s" --verify sample --reps 10
        for v in ${VARIANTS:-}; do
            DUET_KERNEL_DIR=$ROOT/$v run "r$round $(basename "$v") $s" matmul --device cuda:0 \
                --variant tf32 --size "$s" --verify sample --reps 10
        done
    done
done
python3 - "$J" "$OUT" <<'PY' | tee -a "$LOG"
import json, os, sys
cub = {}
for f in sorted(os.listdir(sys.argv[2])):
    if f.startswith("cublas-"):
        try:
            cub[f[7:-5]] = json.load(open(os.path.join(sys.argv[2], f)))
        except ValueError:
            pass
for line in open(sys.argv[1]):
    r = json.loads(line)
    tf = (r.get("gflops") or 0) / 1000
    ref = cub.get(r["label"][1:].split()[0], {}).get("tf32_%s" % str(r.get("size")).split("x")[0], {})
    ratio = " %.3fx cuBLAS TF32 (%.1f)" % (tf / ref["tflops"], ref["tflops"]) if ref and tf else ""
    print("%-26s %-14s %-9s %7.1f TFLOP/s%s  %s" % (r["label"], r.get("size"), r.get("status"),
          tf, ratio, r.get("note", "")[:80]))
PY
