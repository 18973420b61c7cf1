#!/usr/bin/env bash
# On the GPU machine: devices, doctor, the test suites with both backends, compare at default
# sizes. Everything lands in $OUT.
source "$(dirname "$0")/gpu_env.sh"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    $RUNAPP list
    $RUNAPP info cuda:0
    [ -n "$NVCL" ] && $RUNAPP info "$NVCL"
    $RUNAPP doctor
} > "$OUT/devices.txt" 2>&1
cat "$OUT/devices.txt" | head -60
export DUET_REQUIRE_CUDA=1 DUET_REQUIRE_OPENCL=1
for t in test_units test_cuda test_opencl test_apps test_runapp; do
    [ -x "$B/bin/$t" ] || continue
    "$B/bin/$t" > "$OUT/$t.txt" 2>&1
    echo "$t: exit $? $(grep -E '^\[doctest\] (test cases|assertions)' "$OUT/$t.txt" | tr '\n' ' ')"
done
$B/bin/api_example cuda:0
$RUNAPP compare --quiet --html "$OUT/compare.html" --output "$OUT/compare.json" --format json > /dev/null 2> "$OUT/compare.err"
echo "compare exit $?"
$RUNAPP compare --quiet > "$OUT/compare.txt" 2>&1
cat "$OUT/compare.txt"
