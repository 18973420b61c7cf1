#!/usr/bin/env python3
"""bench/sgemm_rounds.py without a GPU: a stand-in runapp and a stand-in cuBLAS command give known
figures, and the summary must come out as computed by hand: ratios to cuBLAS, each size against
the square figure, issue #15's target lines, no figure for a result that failed verification,
rectangular sizes passed through as MxNxK, and exit 3 when a run fails.

Usage: test_sgemm_rounds.py SOURCE_DIR WORK_DIR"""
import json
import os
import shutil
import stat
import subprocess
import sys

src, work = sys.argv[1], sys.argv[2]
shutil.rmtree(work, ignore_errors=True)  # a rerun starts clean (the stand-in runapp logs to it)
os.makedirs(work)
rounds_py = os.path.join(src, "bench", "sgemm_rounds.py")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def script(name, body):
    path = os.path.join(work, name)
    with open(path, "w") as f:
        f.write("#!" + sys.executable + "\n" + body)
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


# runapp: GFLOP/s by size; the define SLOW=1 halves them, NEAR=1 puts the odd sizes just under
# and at 0.9 of 4096's, FAILVERIFY=size fails that size's check, BROKEN=1 exits 2. It records the
# sizes it was asked for.
runapp = script("runapp", r'''
import json, sys
a = sys.argv[1:]
size = a[a.index("--size") + 1]
defs = dict(a[i + 1].split("=") for i, x in enumerate(a) if x == "--define")
open(sys.argv[0] + ".sizes", "a").write(size + "\n")
if defs.get("BROKEN"):
    sys.stderr.write("error: the device is gone\n"); sys.exit(2)
fig = {"4096": 46000.0, "4097": 36800.0, "4095x4097x4099": 39100.0, "8192": 47000.0}
if defs.get("NEAR"):
    fig.update({"4097": 41216.0, "4095x4097x4099": 41400.0})  # 0.896 and 0.900 of 46000
res = []
for s in size.split(","):
    label = s if "x" in s else "x".join([s] * 3)
    g = fig[s] / (2 if defs.get("SLOW") else 1)
    res.append({"size": label, "gflops": g, "pass": defs.get("FAILVERIFY") != s})
print(json.dumps({"results": res}))
''')
cublas = script("cublas", r'''
import json, sys
a = sys.argv[1:]
sizes = a[a.index("--sizes") + 1].split(",")
fig = {"4096": 50000.0, "4097": 44000.0, "4095x4097x4099": 46000.0, "8192": 51000.0}
print(json.dumps({"device": "stand-in", **{"sgemm_" + s: {"ms": 1.0, "gflops": fig[s]} for s in sizes}}))
''')


def run(*args):
    p = subprocess.run([sys.executable, rounds_py, "--runapp", runapp, "--reference", cublas,
                        "--rounds", "2"] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


sizes = "4096,4097,4095x4097x4099"
code, out, err = run("--sizes", sizes, "--square", "4096", "--config", "fast=dev:0",
                     "--config", "slow=dev:0,SLOW=1", "--json")
check(code == 0, "a clean run exits 0 (got %d: %s)" % (code, err[-200:]))
d = json.loads(out) if code == 0 else {"summary": [], "targets": [], "cublas_of_square": {}}
row = {(s["config"], str(s["n"])): s for s in d["summary"]}
fast = row.get(("fast", "4096"), {})
check(abs((fast.get("median_ratio") or 0) - 0.92) < 1e-9, "fast 4096: 46000/50000 = 0.92 of cuBLAS")
check(fast.get("n") == 4096, "a square size keeps n as a number (summarize.py reads it)")
check(abs((row.get(("fast", "4097"), {}).get("of_square") or 0) - 0.8) < 1e-9,
      "fast 4097: 36800/46000 = 0.80 of its square figure")
rect = row.get(("fast", "4095x4097x4099"), {})
check(rect.get("n") == "4095x4097x4099" and abs((rect.get("median_ratio") or 0) - 0.85) < 1e-9,
      "the rectangular size keeps its name and its ratio 39100/46000 = 0.85")
check(abs((row.get(("slow", "4096"), {}).get("median_ratio") or 0) - 0.46) < 1e-9,
      "the slow configuration: 23000/50000 = 0.46")
check(abs(d["cublas_of_square"].get("4097", 0) - 0.88) < 1e-9, "cuBLAS 4097: 44000/50000 = 0.88")
check("fast: 1.00 of cuBLAS at 4096: not met (lowest 0.920 at 4096)" in d["targets"],
      "target line for 1.00 of cuBLAS: %s" % d["targets"])
check("fast: 0.9 of the square figure at every size: not met (lowest 0.800 at 4097, of 4096)" in d["targets"],
      "target line for the odd sizes: %s" % d["targets"])
# Just under the bar: three decimals, so that "not met" never stands beside a 0.90.
code, out, err = run("--sizes", sizes, "--square", "4096", "--config", "near=dev:0,NEAR=1")
check("target near: 0.9 of the square figure at every size: not met (lowest 0.896 at 4097, of 4096)"
      in out, "the target line just under the bar: %s" % out[-400:])
line = [l for l in out.splitlines() if l.startswith("near ") and " 4095x4097x4099 " in l]
check(line and line[0].split()[-1] == "0.900", "the table's of-square column: %s" % line)
asked = open(runapp + ".sizes").read().split()
check(asked and all(a == sizes for a in asked), "runapp was asked for %s, got %s" % (sizes, asked))

# A size whose check failed has no figure: no ratio, and its target is unknown, not met.
code, out, err = run("--sizes", sizes, "--square", "4096", "--config", "f=dev:0,FAILVERIFY=4097")
check(code == 0, "a failed check is not a failed run")
line = [l for l in out.splitlines() if l.startswith("f ") and " 4097 " in l]
check(line and line[0].split()[-1] == "-" and line[0].split()[-2] == "-",
      "a failed check shows no ratio: %s" % line)
check("target f: 0.9 of the square figure at every size: unknown (a size has no figure)" in out,
      "an unchecked size leaves the target unknown")

# A run that fails: its error, and exit 3.
code, out, err = run("--config", "b=dev:0,BROKEN=1")
check(code == 3 and "b: error: the device is gone" in err, "a failed run exits 3 with its error")

# Bad input: a clear error, exit 2.
code, out, err = run("--sizes", "4096,12x34", "--config", "x=dev:0")
check(code == 2 and "neither n nor MxNxK" in err, "a malformed size is refused")
code, out, err = run("--square", "4097", "--config", "x=dev:0")
check(code == 2 and "not a square size among --sizes" in err, "--square outside --sizes is refused")
code, out, err = run("--sizes", "4096,4095x4097x4099", "--square", "4095x4097x4099", "--config", "x=dev:0")
check(code == 2 and "not a square size" in err, "a rectangular --square is refused")

# Two squares: each size against the nearest (4097 against 4096, not 8192).
code, out, err = run("--sizes", "4096,8192,4097", "--square", "4096,8192", "--config", "t=dev:0", "--json")
d = json.loads(out) if code == 0 else {"summary": []}
r4097 = [s for s in d["summary"] if s["n"] == 4097]
check(r4097 and r4097[0].get("square") == "4096" and abs(r4097[0]["of_square"] - 0.8) < 1e-9,
      "4097 is set against 4096 among two squares: %s" % r4097)
r8192 = [s for s in d["summary"] if s["n"] == 8192]
check(r8192 and r8192[0].get("of_square") == 1.0, "a square is 1.00 of itself")

print("sgemm_rounds: %s" % ("all checks passed" if not failures else "%d failed" % len(failures)))
sys.exit(1 if failures else 0)
