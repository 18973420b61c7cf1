#!/usr/bin/env bash
# On the GPU machine: every ladder step of every app on every device it has (CUDA, NVIDIA's
# OpenCL, PoCL on the host CPU), at the sizes `--size auto` picks for each device. Tables and
# JSON in $OUT (ladders-<device>.txt/.json); one line per device with the exit code.
source "$(dirname "$0")/gpu_env.sh"
POCL=$($RUNAPP list --format json | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print(next((x["id"] for x in d if x["id"].startswith("opencl") and "Portable" in x["platform"]), ""))')
for dev in cuda:0 $NVCL $POCL; do
    tag=${dev/:/}
    timeout ${LADDER_TIMEOUT:-240} $RUNAPP compare --devices "$dev" --quiet --reps ${REPS:-5} --warmup 2 \
        --verify sample --format json --output "$OUT/ladders-$tag.json" > "$OUT/ladders-$tag.txt" 2>&1
    echo "ladders on $dev: exit $?"
    python3 "$(dirname "$0")/ladder_table.py" "$OUT/ladders-$tag.json" 2>&1 || tail -20 "$OUT/ladders-$tag.txt"
done
