#!/usr/bin/env bash
# On the GPU machine: devices, doctor, the test suites with both backends (NVIDIA's OpenCL and
# CUDA), compute-sanitizer over every CUDA app variant, compare at default sizes. Output in $OUT.
source "$(dirname "$0")/gpu_env.sh"
{
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    $RUNAPP list
    $RUNAPP info cuda:0
    [ -n "$NVCL" ] && $RUNAPP info "$NVCL"
    $RUNAPP doctor
} > "$OUT/devices.txt" 2>&1
head -30 "$OUT/devices.txt"
export DUET_REQUIRE_CUDA=1 DUET_TEST_SKIP_PLATFORM=Portable
for t in test_units test_shapes test_cuda conformance test_apps test_runapp test_honest test_security; do
    [ -x "$B/bin/$t" ] || continue
    timeout 150 "$B/bin/$t" > "$OUT/$t.txt" 2>&1
    echo "$t: exit $? $(grep -E '^\[doctest\] (test cases|assertions)' "$OUT/$t.txt" | tr '\n' ' ')"
done
$B/bin/api_example cuda:0
if command -v compute-sanitizer >/dev/null || [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
    CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    # memcheck with API errors reported: the CUDA backend makes no call that fails by design
    # (a kernel's parameter count comes first: backends/cuda/cuda_param_count.cpp).
    DUET_LOG_LEVEL=debug timeout ${SANITIZER_TIMEOUT:-60} $CS --tool memcheck --error-exitcode 9 \
        $RUNAPP run matmul --device cuda:0 --size 512 --reps 1 --warmup 0 > "$OUT/sanitizer_runapp_matmul.txt" 2>&1
    echo "compute-sanitizer memcheck over runapp run matmul (CUDA): exit $? $(grep -E 'ERROR SUMMARY' "$OUT/sanitizer_runapp_matmul.txt") $(grep -c 'parameters (unknown)' "$OUT/sanitizer_runapp_matmul.txt") kernels with an unknown parameter count"
    for tool in ${SANITIZERS:-memcheck racecheck synccheck initcheck}; do
        DUET_TEST_SKIP_PLATFORM=Portable,NVIDIA timeout ${SANITIZER_TIMEOUT:-60} $CS --tool $tool --error-exitcode 9 \
            "$B/bin/test_apps" > "$OUT/sanitizer_$tool.txt" 2>&1
        echo "compute-sanitizer $tool over test_apps (CUDA): exit $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[doctest\] test cases' "$OUT/sanitizer_$tool.txt" | tr '\n' ' ')"
    done
fi
timeout 120 $RUNAPP compare --devices cuda:0${NVCL:+,$NVCL} --quiet --html "$OUT/compare.html" > "$OUT/compare.txt" 2>&1
echo "compare exit $?"
cat "$OUT/compare.txt"
