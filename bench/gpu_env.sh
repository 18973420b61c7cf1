# Sourced by the GPU scripts: NVIDIA's OpenCL registered beside the machine's own ICDs, and the
# relocatable build carried in .gpu/build.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=${DUET_BUILD:-$ROOT/.gpu/build}
OUT=${OUT:-/tmp/duet-out}
mkdir -p "$OUT" /tmp/icd
cp /etc/OpenCL/vendors/*.icd /tmp/icd/ 2>/dev/null || true
[ -e /usr/lib/libnvidia-opencl.so.1 ] && echo /usr/lib/libnvidia-opencl.so.1 > /tmp/icd/nvidia.icd
for l in /usr/lib/x86_64-linux-gnu/libnvidia-opencl.so.1 /usr/lib64/libnvidia-opencl.so.1; do
    [ -e "$l" ] && echo "$l" > /tmp/icd/nvidia.icd
done
export OCL_ICD_VENDORS=/tmp/icd
# Only NVIDIA's OpenCL, for the test suites (PoCL is tested in CI) and only CUDA for the sanitizer.
mkdir -p /tmp/icd-nv /tmp/icd-none
[ -e /tmp/icd/nvidia.icd ] && cp /tmp/icd/nvidia.icd /tmp/icd-nv/
export DUET_CACHE_DIR=/tmp/duet-cache
export LD_LIBRARY_PATH=$ROOT/.gpu/lib:${LD_LIBRARY_PATH:-}
export RUNAPP=$B/bin/runapp
NVCL=$($RUNAPP list --format json | python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"]; print(next((x["id"] for x in d if x["id"].startswith("opencl") and "NVIDIA" in x["platform"]), ""))')
