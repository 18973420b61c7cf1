#!/usr/bin/env bash
# On the GPU machine: whole relocatable builds (bin/runapp, lib/) compared in one run, for kernel
# changes that need host changes too (bench/gpu_tc3_variants.sh swaps the CUDA plugin alone).
# Each build in $VARIANTS/<name> (default .gpu/v), libraries they all need (libcrypto) in
# $COMMON (default .gpu/common); BUILDS names them in order (default: every folder, sorted).
# Checks tc3 and tf32 at odd sizes with each build in full (and tc3 on NVIDIA's OpenCL with the
# first), then times tc3 at 4096^3 and 8192^3 in ROUNDS rounds (default 2) alternating the
# builds, tf32 too with those in TF32_BUILDS (default: the first), cuBLAS (tc3_cublas.py) before
# the first round and after the last. Writes $OUT/log.txt, $OUT/runs.jsonl, $OUT/cublas1.json
# and $OUT/cublas2.json.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
VARIANTS=${VARIANTS:-$ROOT/.gpu/v}
COMMON=${COMMON:-$ROOT/.gpu/common}
BUILDS=${BUILDS:-$(cd "$VARIANTS" && ls | sort | tr '\n' ' ')}
first=$(echo $BUILDS | cut -d' ' -f1)
TF32_BUILDS=${TF32_BUILDS:-$first}
export DUET_BUILD=$VARIANTS/$first
export LD_LIBRARY_PATH=$COMMON${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
source "$(dirname "$0")/gpu_env.sh"
source "$(dirname "$0")/gpu_rows.sh"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv >> "$LOG" 2>&1
say "builds: $BUILDS"
for v in $BUILDS; do
    RUNAPP=$VARIANTS/$v/bin/runapp
    for s in 1001x999x37 2049x1023x517 129x65x257 3000x129x1; do
        run "check $v $s" matmul --device cuda:0 --variant tc3,tf32 --size "$s" --verify full --reps 2 --warmup 1
    done
done
RUNAPP=$VARIANTS/$first/bin/runapp
[ -n "$NVCL" ] && run "check $first $NVCL 1001x999x37" matmul --device "$NVCL" --variant tc3 --size 1001x999x37 --verify full --reps 2 --warmup 1
cublas() {
    PYTHONUNBUFFERED=1 timeout 150 python3 "$(dirname "$0")/tc3_cublas.py" 4096 8192 > "$OUT/$1" 2>> "$LOG"
    say "cublas ($1): exit $?"
}
cublas cublas1.json
for round in $(seq "${ROUNDS:-2}"); do
    for v in $BUILDS; do
        RUNAPP=$VARIANTS/$v/bin/runapp
        steps=tc3
        case " $TF32_BUILDS " in *" $v "*) steps=tc3,tf32 ;; esac
        for s in 4096 8192; do
            run "speed$round $v $s" matmul --device cuda:0 --variant "$steps" --size "$s" --verify sample --reps 10
        done
    done
done
cublas cublas2.json
for c in cublas1.json cublas2.json; do
    say "against $c"
    python3 "$(dirname "$0")/tc3_summary.py" "$J" "$OUT/$c" | tee -a "$LOG"
done
