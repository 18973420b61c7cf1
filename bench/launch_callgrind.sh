#!/usr/bin/env bash
# What Duet's launch path costs in instructions on a CPU OpenCL device (PoCL), where wall-clock
# figures are noise: duet_launch_overhead --only WAY under valgrind --tool=callgrind, one way at
# a time, and the inclusive instruction counts of the launch entry points divided by the
# launches (warm-up 0, one repetition: each is called once per launch).
#
#   bash bench/launch_callgrind.sh [BUILD_DIR] [DEVICE]    # defaults: build, opencl:0
# Needs a build with -DDUET_BENCH=ON. Figures: instructions per launch of Queue::launch_args
# (Duet's whole launch, the driver's calls included) and of what it calls. Under valgrind PoCL
# compiles slowly: about 10 minutes a way on 2 cores (WAYS="duet duet_timed raw_no_event").
set -euo pipefail
B=${1:-build}
DEV=${2:-opencl:0}
N=${LAUNCHES:-2000}
OUT=${OUT:-/tmp/duet-callgrind}
mkdir -p "$OUT"
for way in ${WAYS:-duet}; do
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$way.out" \
        "$B/bin/duet_launch_overhead" --device "$DEV" --only "$way" --launches "$N" --reps 1 \
        --warmup 0 > "$OUT/$way.txt" 2> "$OUT/$way.valgrind.txt"
    callgrind_annotate --tree=calling --inclusive=yes --threshold=100 "$OUT/$way.out" \
        > "$OUT/$way.tree.txt"
    echo "$way ($N launches on $DEV): instructions per launch, inclusive, and what they call"
    # The block of the launch entry point (Duet's Queue::launch_args, or the raw way's
    # clEnqueueNDRangeKernel), each count divided by the launches.
    entry='Queue::launch_args'
    [ "${way#duet}" = "$way" ] && entry='clEnqueueNDRangeKernel'
    awk -v n="$N" -v e="$entry" '
        index($0, "*  ") && index($0, e) { on = 1 }
        on && /^$/ { exit }
        on { c = $1; gsub(",", "", c); sub(/^ *[0-9,]+ +\( *[0-9.]+%\) +/, "");
             printf "  %8.0f  %s\n", c / n, substr($0, 1, 150) }' "$OUT/$way.tree.txt"
done
