#!/usr/bin/env bash
# On a machine without a GPU: the benchmark of docs/results/cpu.md on the CPU through PoCL (or any
# CPU OpenCL device: --device), every app with `--reference`: beside the device rows, runapp's
# native CPU reference (OpenBLAS sgemm for matmul, threaded vector loops for the others) and the
# host's native copy bandwidth of the same bytes for the memory-bound apps; also OpenBLAS through
# bench/openblas_sgemm and the device's own copy (`runapp bandwidth`, device→device). JSON per step
# in the output directory and a markdown table (bench/cpu_summarize.py). The CPU counterpart of
# bench/gpu_perf.sh.
#
#   bench/cpu_perf.sh [--build DIR] [--out DIR] [--device D] [--reps N] [--cache DIR]
#
#   --build DIR   use the runapp and openblas_sgemm already built in DIR/bin (no configure, no
#                 build); without it build-cpu-bench/ is configured (Release, DUET_BENCH=ON,
#                 DUET_CUDA=OFF, DUET_TESTS=OFF) and built first
#   --out DIR     where the JSON and summary.md go (default: a new temp directory)
#   --device D    the PoCL device (default: the first device of the PoCL platform in `runapp list`)
#   --reps N      timed repetitions (5); runapp also does 2 warm-up runs, openblas_sgemm 1
#   --cache DIR   DUET_CACHE_DIR for runapp (default: $DUET_CACHE_DIR, else
#                 ${TMPDIR:-/tmp}/duet-cpu-perf-cache): kept apart from the everyday cache so
#                 that no tuned.json of an earlier `runapp tune` changes `best`; reused between
#                 runs. Cold caches (this and PoCL's own) add ~30 s of builds on 2 cores; the
#                 whole script takes ~4 min from scratch there (3 of them building the tree)
# Sizes and variants: VECADD_SIZE, REDUCTION_SIZE, CONV_SIZE (default: working sets of at least
# 8x the device's last-level cache: 23068672, 2^26 and 6144 with a 32 MiB L3),
# REDUCTION_VARIANTS (grid_stride_f32,shuffle_f32,atomic_f32,cpu_f32,cpu_i32), MATMUL_SIZES
# (1024,2048), MATMUL_VARIANTS (best,reg8x8,cpu), BANDWIDTH_SIZE (256M). OpenBLAS runs with
# OPENBLAS_NUM_THREADS = the number of CPUs (nproc) unless it is set.
# Exit status: 0, or 1 when a step failed or a result was wrong (the table says which).
set -u
ARGS_GIVEN="$*"
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD="" OUT="" DEVICE="" REPS=5 CACHE=${DUET_CACHE_DIR:-${TMPDIR:-/tmp}/duet-cpu-perf-cache}

usage() { sed -n '6,22p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case $1 in
        --build) [ $# -ge 2 ] || usage; BUILD=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || usage; OUT=$2; shift 2 ;;
        --device) [ $# -ge 2 ] || usage; DEVICE=$2; shift 2 ;;
        --reps) [ $# -ge 2 ] || usage; REPS=$2; shift 2 ;;
        --cache) [ $# -ge 2 ] || usage; CACHE=$2; shift 2 ;;
        -h|--help) usage ;;
        *) echo "cpu_perf.sh: unknown argument '$1'" >&2; usage ;;
    esac
done
case $REPS in ''|*[!0-9]*|0) echo "cpu_perf.sh: --reps needs a positive whole number" >&2; exit 2 ;; esac

NPROC=$(nproc)
START=$(date +%s)
log() { echo "[cpu_perf $(( $(date +%s) - START ))s] $*" >&2; }

if [ -z "$BUILD" ]; then
    BUILD=$ROOT/build-cpu-bench
    log "configure and build $BUILD"
    cmake -S "$ROOT" -B "$BUILD" -DDUET_BENCH=ON -DDUET_CUDA=OFF -DDUET_TESTS=OFF \
          -DCMAKE_BUILD_TYPE=Release > "$BUILD.configure.log" 2>&1 ||
        { cat "$BUILD.configure.log" >&2; echo "cpu_perf.sh: configure failed" >&2; exit 1; }
    rm -f "$BUILD.configure.log"
    cmake --build "$BUILD" -j "$NPROC" > /dev/null ||
        { echo "cpu_perf.sh: build failed (cmake --build $BUILD)" >&2; exit 1; }
fi
BUILD=$(cd "$BUILD" && pwd) || exit 1
RUNAPP=$BUILD/bin/runapp
SGEMM=$BUILD/bin/openblas_sgemm
[ -x "$RUNAPP" ] || { echo "cpu_perf.sh: no $RUNAPP" >&2; exit 1; }
[ -x "$SGEMM" ] || echo "cpu_perf.sh: no $SGEMM (OpenBLAS not found at configure time?): matmul gets no reference" >&2

[ -n "$OUT" ] || OUT=$(mktemp -d "${TMPDIR:-/tmp}/duet-cpu-perf.XXXXXX")
mkdir -p "$OUT" "$CACHE" || exit 1
OUT=$(cd "$OUT" && pwd)
export DUET_CACHE_DIR=$CACHE
log "output in $OUT, program cache $CACHE"

if [ -z "$DEVICE" ]; then
    DEVICE=$("$RUNAPP" list --format json | python3 -c 'import json,sys
d = json.load(sys.stdin)["devices"]
print(next((x["id"] for x in d if "Portable Computing Language" in x.get("platform", "")), ""))')
    [ -n "$DEVICE" ] || { echo "cpu_perf.sh: no PoCL device in \`runapp list\`; give --device" >&2; exit 1; }
fi
log "device $DEVICE"
if [ -s "$CACHE/tuned.json" ] && grep -q '"app"' "$CACHE/tuned.json"; then
    log "note: $CACHE/tuned.json holds tuned parameters; \`best\` uses them where they match this device"
fi

R="--reps $REPS --warmup 2 --verify sample --quiet --format json --reference"
FAILED=""
# step NAME TIMEOUT COMMAND...: stdout into $OUT/NAME.json, stderr into $OUT/NAME.err.
step() {
    local name=$1 limit=$2; shift 2
    log "$name"
    timeout "$limit" "$@" > "$OUT/$name.json" 2> "$OUT/$name.err"
    local rc=$?
    echo "$name $rc" >> "$OUT/steps.txt"
    if [ $rc -ne 0 ]; then
        FAILED="$FAILED $name"
        log "$name: exit $rc ($(tail -n 2 "$OUT/$name.err" | tr '\n' ' '))"
    fi
    [ -s "$OUT/$name.err" ] || rm -f "$OUT/$name.err"
}
: > "$OUT/steps.txt"

# The reduction's variant names, from one small run of all of them (which also builds them).
step probe_reduction 300 "$RUNAPP" run reduction --device "$DEVICE" --variant all --size 4096 \
     --reps 1 --warmup 0 --verify sample --quiet --format json
WANT=${REDUCTION_VARIANTS:-grid_stride_f32,shuffle_f32,atomic_f32,cpu_f32,cpu_i32}
RED_VARIANTS=$(python3 - "$OUT/probe_reduction.json" "$WANT" <<'EOF'
import json, sys
try:
    have = {r["variant"] for r in json.load(open(sys.argv[1]))["results"]}
except Exception:
    have = None
want = sys.argv[2].split(",")
missing = [v for v in want if have is not None and v not in have]
if missing:
    print("cpu_perf.sh: reduction has no variant " + ", ".join(missing) + "; has " + ", ".join(sorted(have)),
          file=sys.stderr)
print(",".join(v for v in want if have is None or v in have))
EOF
)

# The memory-bound apps at working sets of at least 8x the device's last-level cache, so that the
# app and the native copy of the same bytes (which reads half of them) both measure memory: at
# 2^24 a reduction's 64 MiB sat beside a 32 MiB L3 and the copy of its bytes was partly a cache
# figure; on a VM reporting a 300 MiB L3 the copy of 268 MB read its source from the cache.
# vecadd moves 12 bytes per element, the reduction 4, conv5x5 8 per pixel; counts are rounded
# up to a multiple of 2^20, the image's side to a multiple of 1024, and each buffer is kept within
# the device's largest allocation (PoCL on the 16-core VM: 2 GiB, so its reduction gets 2^29).
read -r AUTO_VECADD AUTO_REDUCTION AUTO_CONV < <("$RUNAPP" info "$DEVICE" --format json | python3 -c '
import json, math, re, sys
info = json.load(sys.stdin)
def size(key, default):
    m = re.match(r"([0-9.]+) (KiB|MiB|GiB)", info.get(key, ""))
    return float(m.group(1)) * {"KiB": 2**10, "MiB": 2**20, "GiB": 2**30}[m.group(2)] if m else default
llc, cap = size("Global memory cache", 32 * 2**20), size("Max allocation", 2**31) / 4
up = lambda x, q: max(q, math.ceil(x / q) * q)
down = lambda x, q: max(q, math.floor(x / q) * q)
print(min(up(8 * llc / 12, 2**20), down(cap, 2**20)), min(up(8 * llc / 4, 2**20), down(cap, 2**20)),
      min(up(math.sqrt(8 * llc / 8), 1024), down(math.sqrt(cap), 1024)))')
log "sizes beyond 8x the last-level cache: vecadd ${VECADD_SIZE:-$AUTO_VECADD}, reduction ${REDUCTION_SIZE:-$AUTO_REDUCTION}, conv5x5 ${CONV_SIZE:-$AUTO_CONV}"
tag=${DEVICE/:/}
step "perf_vecadd_$tag" 300 "$RUNAPP" run vecadd --device "$DEVICE" --size "${VECADD_SIZE:-$AUTO_VECADD}" $R
[ -n "$RED_VARIANTS" ] && step "perf_reduction_$tag" 300 "$RUNAPP" run reduction --device "$DEVICE" \
    --size "${REDUCTION_SIZE:-$AUTO_REDUCTION}" --variant "$RED_VARIANTS" $R
step "perf_matmul_$tag" 500 "$RUNAPP" run matmul --device "$DEVICE" --size "${MATMUL_SIZES:-1024,2048}" \
    --variant "${MATMUL_VARIANTS:-best,reg8x8,cpu}" $R
step "perf_conv5x5_$tag" 300 "$RUNAPP" run conv5x5 --device "$DEVICE" --size "${CONV_SIZE:-$AUTO_CONV}" $R
step "bandwidth_$tag" 120 "$RUNAPP" bandwidth --device "$DEVICE" --size "${BANDWIDTH_SIZE:-256M}" \
    --reps "$REPS" --format json

export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-$NPROC}
if [ -x "$SGEMM" ]; then
    log "openblas_sgemm with OPENBLAS_NUM_THREADS=$OPENBLAS_NUM_THREADS"
    timeout 300 "$SGEMM" --reps "$REPS" $(echo "${MATMUL_SIZES:-1024,2048}" | tr ',' ' ') \
        > "$OUT/openblas.jsonl" 2> "$OUT/openblas.err"
    rc=$?
    echo "openblas $rc" >> "$OUT/steps.txt"
    [ $rc -eq 0 ] || { FAILED="$FAILED openblas"; log "openblas_sgemm: exit $rc ($(cat "$OUT/openblas.err"))"; }
    [ -s "$OUT/openblas.err" ] || rm -f "$OUT/openblas.err"
fi

# What the table needs to say where it was measured.
ARGS=$ARGS_GIVEN DEVICE=$DEVICE NPROC=$NPROC REPS=$REPS BUILD=$BUILD RUNAPP=$RUNAPP ROOT=$ROOT python3 - "$OUT/meta.json" <<'EOF'
import json, os, re, subprocess, sys, time
def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=30).stdout.strip()
    except Exception:
        return ""
lscpu = sh("LC_ALL=C lscpu")
field = lambda name: (re.search(r"^" + re.escape(name) + r":\s*(.*)$", lscpu, re.M) or [None, ""])[1]
info = {}
try:
    info = json.loads(sh(f'"{os.environ["RUNAPP"]}" info {os.environ["DEVICE"]} --format json'))
except Exception:
    pass
meta = {
    "date": time.strftime("%Y-%m-%d"),
    "cpu_model": field("Model name"),
    "cpus": field("CPU(s)"),
    "cores_per_socket": field("Core(s) per socket"),
    "sockets": field("Socket(s)"),
    "threads_per_core": field("Thread(s) per core"),
    "nproc": os.environ["NPROC"],
    "device": os.environ["DEVICE"],
    "device_info": info,
    "openblas_version": sh("dpkg-query -W -f '${Version}' libopenblas0-pthread 2>/dev/null")
                        or sh("pkg-config --modversion openblas 2>/dev/null"),
    "openblas_num_threads": os.environ.get("OPENBLAS_NUM_THREADS", ""),
    "reps": int(os.environ["REPS"]),
    "build": os.environ["BUILD"],
    "build_type": sh(f'grep -m1 "^CMAKE_BUILD_TYPE:" "{os.environ["BUILD"]}/CMakeCache.txt" | cut -d= -f2'),
    "duet_cache_dir": os.environ.get("DUET_CACHE_DIR", ""),
    "git": sh(f'git -C "{os.environ["ROOT"]}" describe --always --dirty 2>/dev/null'),
    "command": "bench/cpu_perf.sh" + (" " + os.environ["ARGS"] if os.environ["ARGS"] else ""),
}
json.dump(meta, open(sys.argv[1], "w"), indent=2)
EOF

python3 "$ROOT/bench/cpu_summarize.py" "$OUT" | tee "$OUT/summary.md"
log "done; JSON in $OUT"
if [ -n "$FAILED" ]; then
    echo "cpu_perf.sh: failed:$FAILED (see $OUT/*.err)" >&2
    exit 1
fi
exit 0
