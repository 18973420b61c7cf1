#!/usr/bin/env bash
# What Duet's launch path costs in instructions on a CPU OpenCL device (PoCL), where wall-clock
# figures are noise: duet_launch_overhead --only WAY under valgrind --tool=callgrind, one way at
# a time, and the inclusive instruction counts of the launch entry points divided by the
# launches (warm-up 0, one repetition: each is called once per launch).
#
#   bash bench/launch_callgrind.sh [BUILD_DIR] [DEVICE]    # defaults: build, opencl:0
# Needs a build with -DDUET_BENCH=ON. Figures: instructions per launch of Queue::launch_args
# (Duet's whole launch, the driver's calls included) and of the driver calls inside it.
set -euo pipefail
B=${1:-build}
DEV=${2:-opencl:0}
N=${LAUNCHES:-2000}
OUT=${OUT:-/tmp/duet-callgrind}
mkdir -p "$OUT"
for way in ${WAYS:-duet duet_timed raw_no_event}; do
    valgrind --tool=callgrind --callgrind-out-file="$OUT/$way.out" \
        "$B/bin/duet_launch_overhead" --device "$DEV" --only "$way" --launches "$N" --reps 1 \
        --warmup 0 > "$OUT/$way.txt" 2> "$OUT/$way.valgrind.txt"
    callgrind_annotate --inclusive=yes --threshold=100 "$OUT/$way.out" > "$OUT/$way.annotate.txt"
    echo "$way ($N launches on $DEV): instructions per launch, inclusive"
    for fn in 'duet::Queue::launch_args' 'duet::kernel_args_problem' 'duet::default_local_size' \
              'duet::opencl::OpenclQueue::do_launch' 'duet::opencl::OpenclQueue::launch_contract' \
              'clEnqueueNDRangeKernel' 'clSetKernelArg'; do
        ir=$(grep -F " $fn" "$OUT/$way.annotate.txt" | grep -F "$fn(" | head -1 | awk '{gsub(",", "", $1); print $1}')
        [ -n "$ir" ] && printf '  %10.0f  %s\n' "$(echo "$ir / $N" | bc -l)" "$fn"
    done
done
