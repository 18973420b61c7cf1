#!/usr/bin/env bash
# On the GPU machine: NVIDIA's OpenCL with every buffer an SVM allocation (DUET_OPENCL_SVM=1,
# which Buffer::device_address() needs there) against plain cl_mem buffers (DUET_OPENCL_SVM=0):
# the conformance suite on both, then kernel medians and transfer rates in alternating rounds.
# SVM may become the default on GPUs once the two agree within their run-to-run spread.
#   bash bench/gpu_svm.sh        (with the relocatable build in .gpu/build, as gpu_env.sh)
source "$(dirname "$0")/gpu_env.sh"
[ -n "$NVCL" ] || { echo "no NVIDIA OpenCL device"; exit 1; }
export DUET_REQUIRE_CUDA=1 DUET_TEST_SKIP_PLATFORM=Portable
for svm in 1 0; do
    DUET_OPENCL_SVM=$svm timeout 300 "$B/bin/conformance" > "$OUT/svm${svm}_conformance.txt" 2>&1
    echo "conformance, DUET_OPENCL_SVM=$svm: exit $? $(grep -E '^\[doctest\] (test cases|assertions)' \
        "$OUT/svm${svm}_conformance.txt" | tr '\n' ' ')"
done
R="--device $NVCL --reps 10 --warmup 3 --quiet --format csv"
for round in ${ROUNDS:-1 2}; do
    for svm in 1 0; do
        f="$OUT/svm${svm}_round$round.csv"
        DUET_OPENCL_SVM=$svm $RUNAPP run matmul --size 4096 --variant tiled32,best $R > "$f" 2>&1
        DUET_OPENCL_SVM=$svm $RUNAPP run vecadd --size 2^28 --variant naive $R | tail -n +2 >> "$f" 2>&1
        DUET_OPENCL_SVM=$svm $RUNAPP bandwidth --device $NVCL --size 256M > "$OUT/svm${svm}_bandwidth$round.txt" 2>&1
        echo "round $round, DUET_OPENCL_SVM=$svm (app, variant, kernel median ms):" \
            "$(cut -d, -f1,2,9 "$f" | tail -n +2 | tr '\n' ' ')"
    done
done
