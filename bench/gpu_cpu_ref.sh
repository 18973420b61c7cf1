#!/usr/bin/env bash
# On the GPU machine: the CPU measurements of docs/results/cpu.md (bench/cpu_perf.sh) on its host
# CPU through PoCL, with runapp's native CPU reference (OpenBLAS sgemm, carried in the build's lib/
# by -DDUET_BUNDLE_OPENBLAS=ON, or the blocked loop when the build has none) and the native copy
# bandwidth; then the vecadd and matmul `compare` of CUDA, NVIDIA's OpenCL and PoCL, whose
# "x CPU" column is every device's speed-up over the same native reference. Tables and JSON in
# $OUT/cpu-ref/ and the comparison tables in $OUT/cpu-ref-compare-*.txt.
#
#   bash bench/gpu_cpu_ref.sh            (REPS, MATMUL_SIZES, ... as bench/cpu_perf.sh takes them)
source "$(dirname "$0")/gpu_env.sh"
POCL=$($RUNAPP list --format json | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print(next((x["id"] for x in d if x["id"].startswith("opencl") and "Portable" in x["platform"]), ""))')
[ -n "$POCL" ] || { echo "gpu_cpu_ref.sh: no PoCL device in \`runapp list\`" >&2; exit 1; }
echo "native reference: $($RUNAPP run matmul --device "$POCL" --size 64 --reps 1 --warmup 0 \
    --variant naive --reference --format json --quiet | python3 -c 'import json,sys
r = [x for x in json.load(sys.stdin)["results"] if x["backend"] == "native"]
print(r[0]["device"] + ": " + r[0].get("note", "") if r else "none")')"
bash "$(dirname "$0")/cpu_perf.sh" --build "$B" --device "$POCL" --out "$OUT/cpu-ref" --reps "${REPS:-5}"
echo "cpu_perf on $POCL: exit $?"
for spec in vecadd:vec4,cpu matmul:best,cpu reduction:shuffle_f32,cpu_f32 conv5x5:best,cpu; do
    app=${spec%%:*}
    timeout ${LADDER_TIMEOUT:-300} $RUNAPP compare $app --devices "cuda:0${NVCL:+,$NVCL},$POCL" \
        --variant "${spec#*:}" --quiet --reps "${REPS:-5}" --warmup 2 --verify sample \
        > "$OUT/cpu-ref-compare-$app.txt" 2>&1
    echo "compare $app: exit $?"
    cat "$OUT/cpu-ref-compare-$app.txt"
done
