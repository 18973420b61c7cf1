#!/usr/bin/env bash
# mpirun -n 2 runapp compare on two OpenCL devices of this host (PoCL and Oclgrind): each rank
# runs one device, rank 0 writes one merged JSON holding both ranks' rows; when one rank hangs,
# the other's finished rows are kept.
# Usage: test_report_mpi.sh RUNAPP WORK_DIR POCL_ICD OCLGRIND_ICD. Exit 77 (skipped) without mpirun.
set -u
runapp=$1 work=$2 pocl=$3 oclgrind=$4
command -v mpirun >/dev/null || { echo "mpirun not installed: skipped"; exit 77; }
rm -rf "$work" && mkdir -p "$work/vendors" "$work/cache" && chmod 700 "$work/cache" && cd "$work" || exit 1
echo "$pocl" >vendors/a-pocl.icd
echo "$oclgrind" >vendors/b-oclgrind.icd
export OCL_ICD_VENDORS=$work/vendors OCL_ICD_FILENAMES= DUET_CACHE_DIR=$work/cache
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
"$runapp" list >list.txt 2>&1
[ "$(grep -c '^ *[0-9]' list.txt)" -ge 2 ] || echo "note: $(cat list.txt)"
timeout 300 mpirun --allow-run-as-root --oversubscribe -n 2 "$runapp" compare vecadd --size 4096 \
    --reps 2 --warmup 1 --format json --output merged.json --quiet >stdout.txt 2>stderr.txt
code=$?
[ $code = 0 ] || fail "mpirun exited $code: $(tail -5 stderr.txt)"
python3 - merged.json <<'PY' || fail "the merged JSON does not hold both ranks' rows"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "duet-results", d.get("schema")
assert "partial" not in d, "the finished run's file is still marked partial"
rows = [r for r in d["results"] if r["backend"] != "native"]  # the host CPU's own rows
natives = [r for r in d["results"] if r["backend"] == "native"]
assert natives and all("ranks ran at the same time" in r.get("note", "") for r in natives), natives
devices = sorted({r["device_id"] for r in rows})
per = {dev: sum(1 for r in rows if r["device_id"] == dev) for dev in devices}
print("rows per device:", per)
assert devices == ["opencl:0", "opencl:1"], devices
assert len(set(per.values())) == 1 and min(per.values()) >= 2, per
assert all(r["status"] == "pass" for r in d["results"]), [r["status"] for r in d["results"]]
PY
# Both ranks fail to build (a define that breaks every kernel): the failures are rows, exit 3.
timeout 300 mpirun --allow-run-as-root --oversubscribe -n 2 "$runapp" compare vecadd --size 4096 \
    --reps 1 --warmup 0 --define "float=)" --format json --quiet >broken.json 2>broken.txt
code=$?
[ $code = 3 ] || fail "a device error under mpirun exited $code, expected 3"
python3 -c 'import json,sys; d=json.load(open("broken.json")); e=[r for r in d["results"] if r["variant"]=="(device error)"]; print(len(e), "error rows"); sys.exit(0 if len(e)==2 else 1)' \
    || fail "the ranks' device errors are not in the rows"
# Rank 1's kernel never ends (--timeout ends the run): rank 0's finished rows reached it as they
# finished and are kept in --output, marked partial (they were lost with the gather at the end).
mkdir -p hang && cp -r "$(dirname "$0")/../kernels_cl" hang/ || fail "no kernels_cl to copy"
sed -i 's|c\[i\] = a\[i\] + b\[i\];|{ c[i] = a[i] + b[i]; __global volatile float* v = c; while (n > 0) v[0] += 1.0f; }|' \
    hang/kernels_cl/vecadd.cl
grep -q "while (n > 0)" hang/kernels_cl/vecadd.cl || fail "the hanging kernel was not made"
args="compare vecadd --size 4096 --reps 1 --warmup 0 --variant naive --format json --output $work/kept.json --timeout 30 --quiet"
# shellcheck disable=SC2086
timeout 300 mpirun --allow-run-as-root --oversubscribe -n 1 "$runapp" $args : \
    -n 1 env DUET_KERNEL_DIR="$work/hang" "$runapp" $args >hang.txt 2>&1
code=$?
[ $code = 3 ] || fail "a rank that hangs under --timeout: mpirun exited $code, expected 3"
python3 - kept.json <<'PY' || fail "rank 0's finished rows are not in --output after rank 1 hung"
import json, sys
d = json.load(open(sys.argv[1]))
assert "partial" in d, "not marked partial"
rows = [(r["device_id"], r["status"]) for r in d["results"]]
print("kept:", rows)
assert ("opencl:0", "pass") in rows, rows
PY
[ $fails = 0 ] && echo "mpirun compare: all checks passed" && exit 0
exit 1
