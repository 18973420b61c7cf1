#!/usr/bin/env bash
# Places the upstream files the ports read (BabelStream's src/ tree, and cuda-samples' reduction
# sample with the Common/ helpers its native driver includes) under DEST, from git clones or
# bare mirrors of github.com/UoB-HPC/BabelStream and github.com/NVIDIA/cuda-samples, and records
# the commits in DEST/UPSTREAM. Nothing is copied into this repository: the GPU run takes DEST
# as .gpu/ports (bench/gpu_ports.sh).
#
#   bash bench/ports/fetch_upstream.sh DEST BABELSTREAM_GIT_DIR CUDA_SAMPLES_GIT_DIR [REV]
#   e.g. bash bench/ports/fetch_upstream.sh .gpu/ports /work/.mirror/UoB-HPC+BabelStream/repo \
#          /work/.mirror/NVIDIA+cuda-samples/repo
# Without the git dirs, it clones both (needs the network).
set -euo pipefail
dest=${1:?usage: fetch_upstream.sh DEST [BABELSTREAM_GIT_DIR CUDA_SAMPLES_GIT_DIR [REV]]}
bs=${2:-} cs=${3:-} rev=${4:-HEAD}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$bs" ]; then
    git clone --quiet --depth 1 https://github.com/UoB-HPC/BabelStream "$work/bs"
    git clone --quiet --depth 1 https://github.com/NVIDIA/cuda-samples "$work/cs"
    bs=$work/bs/.git cs=$work/cs/.git
fi
# `git archive` of the paths wanted, from a bare mirror or a clone alike.
place() { # GIT_DIR SUBDIR PATH...
    local g=$1 sub=$2
    shift 2
    mkdir -p "$dest/$sub"
    git --git-dir="$g" archive --format=tar "$rev" -- "$@" | tar -x -C "$dest/$sub"
}
rm -rf "$dest/babelstream" "$dest/cuda-samples"
place "$bs" babelstream src/Stream.h src/StreamModels.h src/Unit.h src/benchmark.h src/main.cpp \
    src/cuda src/ocl LICENSE
place "$cs" cuda-samples Samples/2_Concepts_and_Techniques/reduction LICENSE \
    Common/helper_cuda.h Common/helper_functions.h Common/helper_string.h Common/helper_timer.h \
    Common/helper_image.h Common/exception.h
{
    echo "babelstream github.com/UoB-HPC/BabelStream $(git --git-dir="$bs" rev-parse "$rev")"
    echo "cuda-samples github.com/NVIDIA/cuda-samples $(git --git-dir="$cs" rev-parse "$rev")"
} >"$dest/UPSTREAM"
cat "$dest/UPSTREAM"
