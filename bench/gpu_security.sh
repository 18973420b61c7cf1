#!/usr/bin/env bash
# On the GPU machine: issue 50's security items where CUDA and NVIDIA's OpenCL take part. The
# option allow-list and the include check must refuse nothing NVRTC needs (Duet's CUDA kernels
# built from DUET_KERNEL_DIR by NVRTC, the idiom tests' options), and a kernel tree including a
# private file must be refused on cuda:0 and NVIDIA's OpenCL too. Prints one line per check;
# logs in $OUT.
source "$(dirname "$0")/gpu_env.sh"
export DUET_REQUIRE_CUDA=1 DUET_TEST_SKIP_PLATFORM=Portable
run_test() { # BINARY ARGS...: one line of its doctest summary
    local name=$1
    shift
    [ -x "$B/bin/$name" ] || { echo "$name: not built"; return; }
    timeout 300 "$B/bin/$name" "$@" > "$OUT/security_$name.txt" 2>&1
    echo "$name $*: exit $? $(grep -E '^\[doctest\] (test cases|assertions)' "$OUT/security_$name.txt" | tr '\n' ' ')"
}
run_test test_security "-tc=*allow-list*,*include lines*,*include expansion*,*own kernels*,*HostBuffer*,*name expressions*"
run_test test_nvrtc_idioms
run_test conformance "-tc=*compiler options*,*idiom*,*pinned*"
# NVRTC builds Duet's own CUDA tree from DUET_KERNEL_DIR (the include check runs on every file).
for dev in cuda:0 $NVCL; do
    DUET_KERNEL_DIR=$ROOT timeout 300 $RUNAPP run vecadd --variant naive --size 1000000 --reps 3 \
        --device $dev > "$OUT/security_tree_$dev.txt" 2>&1
    echo "DUET_KERNEL_DIR=source tree, vecadd on $dev: exit $? (expect 0) $(grep -c PASS "$OUT/security_tree_$dev.txt") PASS"
done
# A tree whose vecadd includes a 0600 file: exit 2 naming the line, the file's line never shown.
T=$(mktemp -d)
cp -r "$ROOT/kernels_cl" "$ROOT/kernels_cu" "$T/"
printf 'root:$6$gpu-secret-hash:1\n' > "$T/shadow" && chmod 600 "$T/shadow"
for f in kernels_cu/vecadd.cu kernels_cl/vecadd.cl; do
    { printf '#/**/include "%s"\n' "$T/shadow"; cat "$ROOT/$f"; } > "$T/$f"
done
for dev in cuda:0 $NVCL; do
    DUET_KERNEL_DIR=$T timeout 120 $RUNAPP run vecadd --variant naive --size 1000 --reps 1 \
        --device $dev > "$OUT/security_secret_$dev.txt" 2>&1
    echo "hostile tree on $dev: exit $? (expect 2), secret shown: $(grep -c gpu-secret-hash "$OUT/security_secret_$dev.txt") (expect 0)"
done
rm -rf "$T"
