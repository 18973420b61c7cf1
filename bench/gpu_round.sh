#!/usr/bin/env bash
# On the GPU machine, one call (about 6 minutes) for issue #15: matmul's tf32 step against cuBLAS
# with TF32 (and its measured error), a few tf32 tile configurations on CUDA, sgemm `best` against
# cuBLAS FP32 in alternating rounds, every step of matmul 4096^3, reduction 2^26 and conv5x5
# 8192^2 through CUDA and NVIDIA's OpenCL (their ratio per step), and the warm start against the
# drivers' floor (bench/warm_start.py). Needs the relocatable build with -DDUET_BENCH=ON in
# .gpu/build (DUET_BUILD), as bench/gpu_perf.sh.
#
#   source bench/gpu_env.sh && bash bench/gpu_round.sh
#
# Writes $OUT/round.txt (the summary: read this), $OUT/round.err (what failed, if anything) and
# $OUT/round_raw.tar.gz (every JSON the summary was made from).
source "$(dirname "$0")/gpu_env.sh"
RAW=$(mktemp -d /tmp/duet-round.XXXXXX)
ERR=$OUT/round.err
: > "$ERR"
R="--reps ${REPS:-5} --warmup 2 --verify sample --quiet --format json"
step() { # step NAME SECONDS CMD... : stdout to $RAW/NAME.json, stderr to round.err
    local name=$1 secs=$2; shift 2
    echo "[$(date +%T)] $name" >&2
    timeout "$secs" "$@" > "$RAW/$name.json" 2> "$RAW/$name.err"
    local rc=$?
    [ $rc -ne 0 ] && { echo "== $name: exit $rc"; tail -5 "$RAW/$name.err"; } >> "$ERR"
    return 0
}
DEVS="cuda:0 ${NVCL:-}"
# 1. tf32 against cuBLAS TF32, and its tile configurations (CUDA, 8192^3)
for dev in $DEVS; do
    step "tf32_${dev/:/}" 120 $RUNAPP run matmul --variant tf32 --device $dev --size 4096,8192 $R
done
step reference_tf32 120 python3 "$ROOT/bench/reference.py" tf32
i=0
for cfg in "TF_BK=8,TF_STAGES=3" "TF_BK=8,TF_STAGES=4" "TF_BN=256,TF_BK=8,TF_STAGES=3" \
           "TF_BM=256,TF_WM=4,TF_WN=2,TF_BK=8"; do
    i=$((i + 1))
    defs=""; for d in ${cfg//,/ }; do defs="$defs --define $d"; done
    step "tf32_cfg$i" 90 $RUNAPP run matmul --variant tf32 --device cuda:0 --size 8192 $defs $R
    echo "$cfg" > "$RAW/tf32_cfg$i.cfg"
done
# 2. sgemm best against cuBLAS FP32, alternating rounds
step sgemm_rounds 200 python3 "$ROOT/bench/sgemm_rounds.py" --runapp "$RUNAPP" --rounds ${ROUNDS:-2} \
    --config cuda=cuda:0 ${NVCL:+--config opencl=$NVCL} --json
# 3. every step through both languages
for dev in $DEVS; do
    tag=${dev/:/}
    step "ladder_matmul_$tag" 150 $RUNAPP run matmul --device $dev --size 4096 $R
    step "ladder_reduction_$tag" 90 $RUNAPP run reduction --device $dev --size 2^26 $R
    step "ladder_conv5x5_$tag" 90 $RUNAPP run conv5x5 --device $dev --size 8192 $R
done
# ... and the OpenCL side without this round's parity changes, to see what each did: the unroll
# hints of the matmul steps (DUET_NO_NV_UNROLL) and the PTX float atomic (DUET_RED_PTX_ATOMIC=0).
if [ -n "${NVCL:-}" ]; then
    step "ablate_matmul_nounroll" 120 $RUNAPP run matmul --device $NVCL --size 4096 \
        --variant tiled16,tiled32,reg4x4,reg8x8 --define DUET_NO_NV_UNROLL=1 $R
    step "ablate_reduction_cas" 60 $RUNAPP run reduction --device $NVCL --size 2^26 \
        --variant atomic_f32 --define DUET_RED_PTX_ATOMIC=0 $R
fi
# 4. warm start against the drivers' floor
step warm_start 150 python3 "$ROOT/bench/warm_start.py" --runapp "$RUNAPP" --bin "$B/bin" --runs 5 \
    --devices "cuda:0${NVCL:+,$NVCL}" --icd-only /tmp/icd-nv --json "$RAW/warm_start_figures.json"
python3 "$ROOT/bench/round_summary.py" "$RAW" > "$OUT/round.txt" 2>> "$ERR"
cat "$RAW/warm_start.json" >> "$OUT/round.txt"
tar -czf "$OUT/round_raw.tar.gz" -C "$RAW" .
cat "$OUT/round.txt"
