#!/usr/bin/env bash
# On the GPU machine, one call before a release: the device contract and the CUDA backend's tests
# on CUDA and NVIDIA's OpenCL, the launch patterns against the raw APIs, every ladder step of the
# build in .gpu/run against an earlier build in .gpu/old (alternating, same call), and the main
# job's warm wall time. DUET_BUILD: the new build (bin/, lib/); OLD: the earlier one.
source "$(dirname "$0")/gpu_env.sh"
OLD=${OLD:-$ROOT/.gpu/old}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUT/gpu.txt"
{
    for t in conformance test_cuda; do
        [ -x "$B/bin/$t" ] || continue
        echo "== $t (CUDA and NVIDIA's OpenCL)"
        OCL_ICD_VENDORS=/tmp/icd-nv timeout 240 "$B/bin/$t" 2>&1 | tail -4
    done
} > "$OUT/tests.txt" 2>&1
[ -x "$B/bin/duet_launch_overhead" ] &&
    timeout 120 "$B/bin/duet_launch_overhead" --patterns --busy-iters ${BUSY_ITERS:-20000} \
        --busy-items ${BUSY_ITEMS:-270336} --device cuda:0 ${NVCL:+--device $NVCL} \
        > "$OUT/launch_patterns.txt" 2>&1
# Every ladder step on both GPU paths, the old and the new build in turn, twice.
mkdir -p /tmp/lad
for round in 1 2; do
    for build in old new; do
        bin=$B/bin/runapp
        [ $build = old ] && bin=$OLD/bin/runapp
        timeout 150 $bin compare --devices cuda:0${NVCL:+,$NVCL} --format json --quiet \
            --output "/tmp/lad/ladder_${build}_$round.json" > /dev/null 2>> "$OUT/ladder.err"
    done
done
python3 - /tmp/lad <<'PY' > "$OUT/ladder_ratio.txt"
import json, sys, glob, statistics
out = sys.argv[1]
def rows(build):
    got = {}
    for f in sorted(glob.glob(f"{out}/ladder_{build}_*.json")):
        for r in json.load(open(f))["results"]:
            if r.get("status") == "pass":
                got.setdefault((r["app"], r["variant"], r["device_id"]), []).append(r["kernel_ms"]["median"])
    return got
old, new = rows("old"), rows("new")
ratios = []
for k in sorted(set(old) & set(new)):
    q = statistics.median(new[k]) / statistics.median(old[k])
    ratios.append(q)
    flag = "  <-- over 2%" if abs(q - 1) > 0.02 else ""
    print(f"{k[0]:10} {k[1]:18} {k[2]:9} old {statistics.median(old[k]):9.4f} ms  new {statistics.median(new[k]):9.4f} ms  new/old {q:.3f}{flag}")
print(f"steps {len(ratios)}, median new/old {statistics.median(ratios):.3f}, over 2%: {sum(abs(q-1)>0.02 for q in ratios)}")
PY
python3 "$ROOT/bench/compare_wall.py" "$RUNAPP" --out "$OUT/compare_warm.json" > "$OUT/compare_warm.md" 2>&1
