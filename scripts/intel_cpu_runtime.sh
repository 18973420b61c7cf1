#!/usr/bin/env bash
# Intel's CPU OpenCL runtime (oneAPI, from PyPI's intel-opencl-rt) as an extra OpenCL platform,
# for testing Duet's kernels on Intel's own compiler. Optional: nothing needs it to build.
#
#   bash scripts/intel_cpu_runtime.sh          # installs (once) and prints the ICD folder
#   OCL_ICD_VENDORS=$(bash scripts/intel_cpu_runtime.sh) runapp list
#
# The runtime goes into a virtual environment in DUET_INTEL_OCL_DIR (default
# ~/.cache/duet-intel-ocl), owned by this user; the folder printed holds one intel-cpu.icd that
# names its libintelocl.so. The runtime's neighbouring libraries must be on LD_LIBRARY_PATH:
# `--env` prints both exports for `eval "$(bash scripts/intel_cpu_runtime.sh --env)"` (the runtime's own libOpenCL is not used).
# Exit 0 with the folder on stdout; 1 (with the reason on stderr) when it cannot be installed,
# e.g. offline.
set -euo pipefail
dir=${DUET_INTEL_OCL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/duet-intel-ocl}
mode=${1:-icd}
case "$mode" in icd|--env) ;; *) echo "usage: scripts/intel_cpu_runtime.sh [--env]" >&2; exit 2 ;; esac

# Fail closed on a folder somebody else owns or can write: its libraries would be loaded.
if [ -e "$dir" ]; then
    if [ ! -O "$dir" ] || [ -n "$(find "$dir" -maxdepth 0 -perm /022)" ]; then
        echo "intel_cpu_runtime: $dir is not owned by you or is writable by others; not using it" >&2
        exit 1
    fi
fi
mkdir -p -m 700 "$dir"

lib=$(ls "$dir"/venv/lib/libintelocl.so* 2>/dev/null | head -n1 || true)
if [ -z "$lib" ]; then
    echo "intel_cpu_runtime: installing intel-opencl-rt into $dir/venv (pip)" >&2
    if ! { python3 -m venv "$dir/venv" >&2 &&
           "$dir/venv/bin/pip" install -q --disable-pip-version-check intel-opencl-rt intel-cmplr-lib-rt >&2; }; then
        echo "intel_cpu_runtime: could not install intel-opencl-rt (offline? python3-venv missing?)" >&2
        exit 1
    fi
    lib=$(ls "$dir"/venv/lib/libintelocl.so* 2>/dev/null | head -n1 || true)
    [ -n "$lib" ] || { echo "intel_cpu_runtime: the package has no lib/libintelocl.so" >&2; exit 1; }
fi
mkdir -p -m 700 "$dir/vendors" "$dir/libs"
echo "$lib" > "$dir/vendors/intel-cpu.icd"
# Its neighbouring libraries (TBB, SVML, ...) for LD_LIBRARY_PATH, without its own libOpenCL:
# the ICD loader in use stays the system's.
for f in "$dir"/venv/lib/*.so*; do
    case "$(basename "$f")" in libOpenCL*) continue ;; esac
    ln -sfn "$f" "$dir/libs/$(basename "$f")"
done
if [ "$mode" = --env ]; then
    printf 'export OCL_ICD_VENDORS=%q\nexport LD_LIBRARY_PATH=%q\n' "$dir/vendors" "$dir/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
else
    echo "$dir/vendors"
fi
