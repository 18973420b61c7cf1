#!/usr/bin/env bash
# On the GPU machine, one call (about 5 minutes): every step of matmul 4096^3, reduction 2^26 and
# conv5x5 8192^2 through CUDA and NVIDIA's OpenCL, and their kernel-time ratio per step (issue
# #15's parity item); the device-contract suite and the apps' tests on both backends; and the
# programs NVIDIA's OpenCL compiled (their PTX, from Duet's program cache) for reading offline
# beside nvcc's PTX of the CUDA twins (ptxas/nvdisasm run anywhere).
#
#   source bench/gpu_env.sh && bash bench/gpu_parity.sh
#
# Writes $OUT/parity.txt (read this) and $OUT/parity_raw.tar.gz (the JSON and the OpenCL cache).
source "$(dirname "$0")/gpu_env.sh"
RAW=$(mktemp -d /tmp/duet-parity.XXXXXX)
R="--reps ${REPS:-5} --warmup 2 --verify sample --quiet --format json"
export DUET_CACHE_DIR=$RAW/cache
{
    echo "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
    for dev in cuda:0 ${NVCL:-}; do
        tag=${dev/:/}
        for job in "matmul 4096" "reduction 2^26" "conv5x5 8192"; do
            set -- $job
            timeout 200 $RUNAPP run $1 --device $dev --size $2 $R > "$RAW/$1_$tag.json" \
                2> "$RAW/$1_$tag.err" || echo "$1 on $dev: exit $? $(tail -2 "$RAW/$1_$tag.err")"
        done
    done
    # An experiment's OpenCL kernels (a copy of kernels_cl/ with changes) beside the shipped ones:
    # ALT_CL=DIR ALT_VARIANTS=reg4x4,reg8x8 runs those steps of matmul from DIR on NVIDIA's OpenCL.
    if [ -n "${ALT_CL:-}" ] && [ -n "${NVCL:-}" ]; then
        DUET_KERNEL_DIR=$ALT_CL timeout 200 $RUNAPP run matmul --device $NVCL --size 4096 \
            --variant "${ALT_VARIANTS:-reg4x4,reg8x8}" $R > "$RAW/alt_matmul.json" 2> "$RAW/alt.err" ||
            echo "alt kernels: exit $? $(tail -2 "$RAW/alt.err")"
    fi
    python3 - "$RAW" <<'EOF'
import json, os, sys
d = sys.argv[1]
def rows(path):
    try:
        return json.load(open(path)).get("results", [])
    except (OSError, ValueError):
        return []
for app in ("matmul", "reduction", "conv5x5"):
    cu = {r["variant"]: r for r in rows(os.path.join(d, app + "_cuda0.json"))}
    cl = {}
    for f in os.listdir(d):
        if f.startswith(app + "_opencl") and f.endswith(".json"):
            cl = {r["variant"]: r for r in rows(os.path.join(d, f))}
    print("\n## %s: kernel ms (median), OpenCL / CUDA" % app)
    for v, r in cu.items():
        a = (r.get("kernel_ms") or {}).get("median")
        o = cl.get(v, {})
        b = (o.get("kernel_ms") or {}).get("median")
        ratio = "%.2f" % (b / a) if a and b else "-"
        print("%-18s cuda %-10s opencl %-10s %-5s %s | %s" % (
            v, "%.3f" % a if a else r.get("status"), "%.3f" % b if b else o.get("status"),
            ratio, r.get("note", "")[:60], o.get("note", "")[:90]))
for r in rows(os.path.join(d, "alt_matmul.json")):
    b = (r.get("kernel_ms") or {}).get("median")
    print("ALT_CL matmul %-10s opencl %s %s" % (r["variant"], "%.3f" % b if b else r.get("status"),
                                              r.get("note", "")[:80]))
EOF
    echo
    export DUET_REQUIRE_CUDA=1 DUET_TEST_SKIP_PLATFORM=Portable
    for t in conformance test_apps; do
        [ -x "$B/bin/$t" ] || continue
        DUET_TEST_NO_SKIP=1 timeout 150 "$B/bin/$t" > "$RAW/$t.txt" 2>&1
        echo "$t (CUDA + NVIDIA OpenCL, no skip): exit $? $(grep -E '^\[doctest\] (test cases|assertions)' "$RAW/$t.txt" | tr '\n' ' ')"
        grep -E "ERROR|FAILED|SKIP" "$RAW/$t.txt" | head -10
    done
} > "$OUT/parity.txt" 2>&1
tar -czf "$OUT/parity_raw.tar.gz" -C "$RAW" .
cat "$OUT/parity.txt"
