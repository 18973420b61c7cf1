#!/usr/bin/env bash
# Duet's one entry point for a fresh Debian or Ubuntu machine: installs what is missing,
# configures and builds, then runs the main job or the tests.
#
#   bash scripts/duet.sh compare [runapp compare options]   # every app on every device
#   bash scripts/duet.sh test                               # the whole test suite
#   bash scripts/duet.sh build                              # set-up and build only
#
# Environment: BUILD_DIR (default build), DUET_CMAKE_ARGS (extra CMake options),
# DUET_SKIP_INSTALL=1 (do not touch system packages).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mode=${1:-compare}
[ $# -gt 0 ] && shift
# The main job has a build of its own (only what `runapp compare` needs, CUDA kernels for this
# machine's GPUs), so that it never rebuilds the full one and the reverse.
if [ "$mode" = compare ]; then build=${BUILD_DIR:-$here/build-compare}; else build=${BUILD_DIR:-$here/build}; fi

# What `runapp compare` needs: a compiler, CMake, the OpenCL loader and headers, the libraries
# Duet builds with, PoCL (the CPU OpenCL device) and OpenBLAS (the native CPU reference's sgemm;
# optional at build: runapp then uses its own loop).
packages=(build-essential cmake pkg-config ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-headers
          opencl-clhpp-headers libspdlog-dev libfmt-dev doctest-dev nlohmann-json3-dev libssl-dev
          pocl-opencl-icd clinfo libopenblas-dev)
# What only the tests and `runapp compile` add.
test_packages=(oclgrind
          # runapp compile's vendor compilers (ocloc; clang amdgcn + ROCm's device libraries;
          # SPIR-V translator and validator); the Intel CPU runtime needs python3-venv; libclc's
          # builtins for CUDA C++ on NVIDIA's OpenCL (the cuda-c++-via-ptx route, with clang-15).
          intel-opencl-icd clang-15 rocm-device-libs llvm-spirv-15 spirv-tools python3-venv
          libclc-15
          # scripts/check_format.sh (the ctest `format`)
          clang-format
          # the API docs' checks (scripts/check_api_docs.py); examples/ and the .deb test.
          python3 dpkg-dev
          # mpirun -n N runapp compare; the HTML page's test renders it in headless Chromium.
          openmpi-bin libopenmpi-dev chromium)
[ "$mode" = compare ] || packages+=("${test_packages[@]}")

install_packages() {
    [ "${DUET_SKIP_INSTALL:-0}" = 1 ] && return 0
    local missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "duet: installing ${missing[*]}" >&2
    local sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The compute capabilities of this machine's NVIDIA GPUs ("90;80"), empty where there are none.
local_cuda_archs() {
    command -v nvidia-smi >/dev/null || return 0
    nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d ' .' |
        grep -E '^[0-9]+$' | sort -u | paste -sd';'
}

configure_and_build() {
    # The main job's build is Release (no debug info: it builds faster and runs the same host
    # code); the full one keeps RelWithDebInfo for the tests' backtraces.
    local args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
    [ "$mode" = compare ] && args=(-DCMAKE_BUILD_TYPE=Release)
    # The CUDA toolkit is optional; where it is installed in the usual place, use it.
    if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then
        args+=(-DCUDAToolkit_ROOT=/usr/local/cuda)
    fi
    local targets=()
    if [ "$mode" = test ] && [ -z "$(local_cuda_archs)" ]; then
        # No GPU to run them: the embedded CUDA kernels are compiled for the oldest supported
        # architecture and sm_90a (plus compute_90 PTX), which between them take every
        # __CUDA_ARCH__ branch of kernels_cu/ (below 8.0, from 8.0, Hopper's sm_90a features),
        # instead of machine code for every architecture. DUET_CMAKE_ARGS may set another list.
        args+=("-DDUET_CUDA_ARCHS=75;90")
    fi
    if [ "$mode" = compare ]; then
        # runapp and the plugins alone; CUDA kernels for the GPUs here (the plugin adds PTX of
        # the newest for newer ones). No NVIDIA GPU: no CUDA backend, which could run nothing
        # here and would take most of the build (`duet.sh build` builds everything).
        local archs
        archs=$(local_cuda_archs)
        args+=(-DDUET_TESTS=OFF)
        if [ -n "$archs" ]; then
            args+=("-DDUET_CUDA_ARCHS=$archs")
        else
            echo "duet: no NVIDIA GPU answers nvidia-smi here, so the main job's build leaves the CUDA backend out" >&2
            args+=(-DDUET_CUDA=OFF)
        fi
    fi
    cmake -S "$here" -B "$build" "${args[@]}" ${DUET_CMAKE_ARGS:-} >&2
    if [ "$mode" = compare ]; then
        # A plugin the configure step left out (no toolkit, no loader) is no target.
        # (The list is read whole first: `grep -q` on the pipe would close it early, and under
        # pipefail the SIGPIPE that cmake then gets would drop the plugin.)
        targets=(--target runapp)
        local known
        known=$(cmake --build "$build" --target help 2>/dev/null || true)
        for t in duet_opencl duet_cuda; do
            grep -qw -- "$t" <<<"$known" && targets+=(--target "$t")
        done
    fi
    cmake --build "$build" -j "$(nproc)" "${targets[@]}" >&2
}

install_packages
configure_and_build
echo "duet: set-up and build took $SECONDS s" >&2
case "$mode" in
    build) ;;
    compare) exec "$build/bin/runapp" compare "$@" ;;
    test)
        # The CPU OpenCL device (PoCL) is installed above, so the device tests must find it.
        export DUET_REQUIRE_OPENCL=1
        # The tests are independent (each its own scratch and cache directories; those that
        # are not say so in tests/CMakeLists.txt), so ctest runs one per core, longest first.
        cd "$build" && exec ctest --output-on-failure --timeout 3000 -j "$(nproc)" "$@" ;;
    *) echo "usage: scripts/duet.sh compare|test|build [options]" >&2; exit 2 ;;
esac
