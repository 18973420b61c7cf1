#!/usr/bin/env bash
# On the GPU machine (issue 51's launch targets): the launch overhead of the queue an app gets by
# default, of an explicitly untimed and of a timed queue, against the raw API, on CUDA and
# NVIDIA's OpenCL in the same run; then launch + finish and launch + small read of a busy kernel.
# Prints both tables (bench/launch_overhead.cpp, launch_patterns.cpp) and keeps the JSON in $OUT.
#
#   bash bench/launch_gpu.sh        # needs the relocatable build in .gpu/build (gpu_env.sh)
#
# Targets: "Duet - raw_no_event" <= +1.0 us per empty launch (the default queue); the
# "duet / raw_*" ratios of launch+finish and launch+read <= 1.01x.
source "$(dirname "$0")/gpu_env.sh"
L=$B/bin/duet_launch_overhead
[ -x "$L" ] || { echo "launch_gpu: $L is not built" >&2; exit 2; }
DEVS="--device cuda:0${NVCL:+ --device $NVCL}"
timeout 180 "$L" $DEVS --launches ${LAUNCHES:-20000} --reps ${REPS:-15}
timeout 180 "$L" $DEVS --json > "$OUT/launch.json"
timeout 300 "$L" --patterns $DEVS ${BUSY_ITERS:+--busy-iters $BUSY_ITERS} --reps ${PATTERN_REPS:-15}
