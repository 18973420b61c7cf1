#!/usr/bin/env bash
# Each step's build options and launch shape on every device, from real runs at small sizes (a
# check that a change to how the apps make their builds kept them): one line per row,
#   app  step  device  size  local  build options (sorted)  PASS|SKIP|FAIL
# Run it with two builds and diff the files; only what the change meant to change may differ.
#   bash bench/step_builds_dump.sh RUNAPP OUT.tsv        (DUET_CACHE_DIR: a cache of its own)
# On the GPU machine, with the relocatable builds of both trees:
#   source bench/gpu_env.sh; bash bench/step_builds_dump.sh $RUNAPP $OUT/after.tsv
set -eu
R=$1
OUT=$2
: >"$OUT"
export DUET_CACHE_DIR=${DUET_CACHE_DIR:-$(mktemp -d)}
devices=$("$R" list --format json | python3 -c 'import json,sys; print(" ".join(d["id"] for d in json.load(sys.stdin)["devices"]))')
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
while read -r app size extra; do
    for dev in $devices; do
        # shellcheck disable=SC2086 # extra holds options
        "$R" run "$app" --device "$dev" --size "$size" $extra --reps 1 --warmup 0 --verify sample \
            --format json --output "$T/rows.json" >/dev/null 2>"$T/err" || true
        [ -s "$T/rows.json" ] || { echo "$app $size $extra on $dev: no rows ($(tail -1 "$T/err"))" >&2; continue; }
        python3 - "$T/rows.json" "$dev" "$extra" >>"$OUT" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"] if isinstance(d, dict) else d:
    status = "SKIP" if r.get("skipped") else ("PASS" if r.get("pass") else "FAIL")
    opts = " ".join(sorted(r.get("build_options", "").split()))
    print("\t".join([r["app"], r["variant"] + (" " + sys.argv[3] if sys.argv[3] else ""),
                     sys.argv[2], r.get("size", ""), r.get("local", ""), opts, status]))
PY
        rm -f "$T/rows.json"
    done
done <<'RUNS'
vecadd 65536
matmul 96
matmul 97x65x33
matmul 64 --variant tf32,tc3 --define DUET_TF32_EMULATE=1
conv5x5 128
conv5x5 128 --local 8x8
reduction 65536
RUNS
echo "$(wc -l <"$OUT") rows in $OUT" >&2
