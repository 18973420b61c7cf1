#!/usr/bin/env bash
# mpirun -n 2 runapp compare on two OpenCL devices of this host (PoCL and Oclgrind): each rank
# runs one device, rank 0 writes one merged JSON holding both ranks' rows.
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
[ $fails = 0 ] && echo "mpirun compare: all checks passed" && exit 0
exit 1
