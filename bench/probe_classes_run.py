"""The probe campaign's run-time classes (bench/probe_campaign.py): the reduction's local sizes on
PoCL, wrong results that must FAIL, launch and memory limits, and one MPI rank that hangs."""
import json
import os
import shutil
import subprocess

import probe_inputs as inp

# One small run: the command most probes give runapp.
SMALL = ["run", "vecadd", "--variant", "naive", "--size", "1000", "--reps", "1", "--warmup", "0"]


def probe_locals(ctx):
    """`reduction --variant cpu_i32 --size 65537 --local L`: PASS or a clear refusal, never a hang
    or a FAIL of the shipped kernel."""
    locals_ = [2, 16, 256, 4096] if ctx.quick else [2 << i for i in range(12)]
    for size in ["65537"] if ctx.quick else ["65537", "1048577"]:
        for l in locals_:
            ctx.probe("locals", f"cpu_i32 {size} --local {l}", ["run", "reduction", "--variant",
                      "cpu_i32", "--size", size, "--local", str(l), "--reps", "3", "--warmup", "1"],
                      timeout=180, expect=(0, 2))


GUARD_FROM = "c[i] = a[i] + b[i];"


def probe_wrongpass(ctx):
    """Wrong outputs the checks must see: a wrong matmul entry at 1300^3 (default and sampled
    verify), a wrong vecadd element under --verify sample, a float reduction that drops one
    input, writes before, just past and far past an output (own pattern and a plain value)."""
    w = os.path.join(ctx.work, "wrongpass")
    one = ["--reps", "1", "--warmup", "0"]
    mm = inp.changed_kernels(ctx.kernels, os.path.join(w, "matmul"), "matmul_naive.cl",
                             "C[row * N + col] = acc;",
                             "C[row * N + col] = acc + (row == 37 && col == N - 1 ? 1.0f : 0.0f);")
    sample_limit = ("docs/design/checks.md: an explicit --verify sample is labelled PASS (sample); "
                    "the row and column sums' tolerance at 1300^3 is about 5, above this +1.0")
    for verify in ([[]] if ctx.quick else [[], ["--verify", "sample"]]):
        ctx.probe("wrongpass", f"matmul 1300^3, one wrong entry {' '.join(verify) or 'default'}",
                  ["run", "matmul", "--variant", "naive", "--size", "1300"] + one + verify,
                  env={"DUET_KERNEL_DIR": mm}, timeout=300, expect=(1,), fail_expected=True,
                  known=sample_limit if verify else None)
    va = inp.changed_kernels(ctx.kernels, os.path.join(w, "vecadd"), "vecadd.cl", GUARD_FROM,
                             "c[i] = a[i] + b[i] + (i == 70001 ? 0.5f : 0.0f);")
    for size in (["100000"] if ctx.quick else ["100000", "4194304"]):
        ctx.probe("wrongpass", f"vecadd {size}, one wrong element, --verify sample",
                  ["run", "vecadd", "--variant", "naive", "--size", size, "--verify", "sample"] + one,
                  env={"DUET_KERNEL_DIR": va}, timeout=120, expect=(1,), fail_expected=True)
    red = inp.changed_kernels(ctx.kernels, os.path.join(w, "reduction"), "reduction.cl",
                              "sdata[lid] = gid < (uint)n ? in[gid] : (T)0;",
                              "sdata[lid] = gid + 1 < (uint)n ? in[gid] : (T)0;")
    for size in (["100003"] if ctx.quick else ["100003", "4194305", "33554433"]):
        for v in ["interleaved_f32", "interleaved_i32"]:
            ctx.probe("wrongpass", f"reduction {v} {size} drops its last input",
                      ["run", "reduction", "--variant", v, "--size", size] + one,
                      env={"DUET_KERNEL_DIR": red}, timeout=180, expect=(1,), fail_expected=True)
    n = 1000000
    spots = {"before the start": "-1", "just past": "n", "1200 bytes past": "n + 300",
             "400 KB past": "n + n / 10"}
    values = {"0xFF bytes": "as_float(0xFFFFFFFFu)", "a plain 1.0": "1.0f"}
    for where, at in spots.items():
        for what, value in values.items():
            if ctx.quick and what != "0xFF bytes":
                continue
            d = inp.changed_kernels(ctx.kernels, os.path.join(w, "guard"), "vecadd.cl", GUARD_FROM,
                                    f"{{ c[i] = a[i] + b[i]; if (i == 0) c[{at}] = {value}; }}")
            ctx.probe("wrongpass", f"vecadd writes {what} {where}",
                      ["run", "vecadd", "--variant", "naive", "--size", str(n)] + one,
                      env={"DUET_KERNEL_DIR": d}, timeout=120, expect=(1,), fail_expected=True)
    probe_wrongpass_round4(ctx, w, one)
    vendors = os.path.join(ctx.build, "oclgrind-vendors")
    if os.path.isdir(vendors) and shutil.which("oclgrind"):
        for where, at in [("before the start", "-1"), ("just past", "n")]:
            d = inp.changed_kernels(ctx.kernels, os.path.join(w, "guard"), "vecadd.cl", GUARD_FROM,
                                    f"{{ c[i] = a[i] + b[i]; if (i == 0) c[{at}] = 1.0f; }}")
            ctx.probe("wrongpass", f"Oclgrind: vecadd writes {where}",
                      ["run", "vecadd", "--variant", "naive", "--size", "1000"] + one,
                      env={"DUET_KERNEL_DIR": d, "OCL_ICD_VENDORS": vendors,
                           "OCL_ICD_FILENAMES": ""}, timeout=180, expect=(1, 3),
                      fail_expected=True)


def rectangle(row, col, i1, i2, j1, j2):
    """OpenCL C for +1000 at (i1, j1) and (i2, j2), -1000 at (i1, j2) and (i2, j1): every row and
    column sum of the output stays the same."""
    at = lambda i, j: f"({row} == {i} && {col} == {j})"  # noqa: E731
    return (f"({at(i1, j1)} || {at(i2, j2)} ? 1000.0f : {at(i1, j2)} || {at(i2, j1)} ? -1000.0f "
            ": 0.0f)")


def probe_wrongpass_round4(ctx, w, one):
    """Issue 50's: a kernel that rewrites its const inputs (read in place on CPU devices), and
    errors that cancel in every row and column sum (a +-1000 rectangle) under the default check
    at matmul 2100^3 and --verify sample: each must FAIL."""
    va = inp.changed_kernels(ctx.kernels, os.path.join(w, "inputs"), "vecadd.cl", GUARD_FROM,
                             "{ ((__global float*)a)[i] = 1.0f - b[i]; c[i] = 1.0f; }")
    ctx.probe("wrongpass", "vecadd rewrites its input a",
              ["run", "vecadd", "--variant", "naive", "--size", "100000"] + one,
              env={"DUET_KERNEL_DIR": va}, timeout=120, expect=(1,), fail_expected=True)
    mm = inp.changed_kernels(ctx.kernels, os.path.join(w, "rect-mm"), "matmul_naive.cl",
                             "C[row * N + col] = acc;",
                             "C[row * N + col] = acc + " +
                             rectangle("row", "col", 700, 1400, 600, 1400) + ";")
    runs = [("1500", ["--verify", "sample"])] + ([] if ctx.quick else [("2100", [])])
    for size, verify in runs:
        ctx.probe("wrongpass", f"matmul {size}^3, a +-1000 rectangle {' '.join(verify) or 'default'}",
                  ["run", "matmul", "--variant", "naive", "--size", size] + one + verify,
                  env={"DUET_KERNEL_DIR": mm}, timeout=600, expect=(1,), fail_expected=True)
    cv = inp.changed_kernels(ctx.kernels, os.path.join(w, "rect-conv"), "conv5x5.cl",
                             "out[y * width + x] = sum;",
                             "out[y * width + x] = sum + " +
                             rectangle("y", "x", 300, 900, 200, 1000) + ";")
    ctx.probe("wrongpass", "conv5x5 2048x2048, a +-1000 rectangle --verify sample",
              ["run", "conv5x5", "--variant", "naive", "--size", "2048x2048", "--verify",
               "sample"] + one, env={"DUET_KERNEL_DIR": cv}, timeout=300, expect=(1,),
              fail_expected=True)


def probe_limits(ctx):
    """Range extremes and fills through the API, an empty LD_LIBRARY_PATH element with truncated
    libraries in the current directory, sizes beyond memory that must fail early."""
    w = inp.mkdir(os.path.join(ctx.work, "limits"))
    exe = os.path.join(w, "probe_range")
    src = os.path.join(ctx.source, "bench", "probe_range.cpp")
    subprocess.run(["c++", "-std=c++20", "-O1", "-I", os.path.join(ctx.source, "runtime", "include"),
                    "-I", os.path.join(ctx.build, "runtime", "include"), src, "-o", exe,
                    "-L", os.path.join(ctx.build, "lib"), "-lduet",
                    "-Wl,-rpath," + os.path.join(ctx.build, "lib")], check=True)
    big = [["2^62", str(1 << 62)], ["2^31 x 2^31", str(1 << 31), str(1 << 31)],
           ["2^40", str(1 << 40)], ["2^33", str(1 << 33)], ["2^64-1", str((1 << 64) - 1)],
           ["2^32 x 2^32 x 2^32", str(1 << 32), str(1 << 32), str(1 << 32)],
           ["0", "0"], ["0 x 5", "0", "5"], ["16 local 0", "16", "local", "0"],
           ["16 local 32", "16", "local", "32"], ["2^20 local 2^31", str(1 << 20), "local",
                                                   str(1 << 31)],
           ["2^21 x 2^21 local 2^62", str(1 << 21), str(1 << 21), "local", str(1 << 62), "1"]]
    for name, *args in big:
        ctx.runner.probe("limits", f"Range({name})", [exe, "opencl:0", "launch"] + args,
                         timeout=60, expect=(0, 2, 3), max_seconds=30)
    for name, count in [("SIZE_MAX/4+2", str((1 << 62) + 2)), ("SIZE_MAX", str((1 << 64) - 1)),
                        ("17 into 16", "17")]:
        ctx.runner.probe("limits", f"fill({name})", [exe, "opencl:0", "fill", count], timeout=60,
                         expect=(2,), max_seconds=30)
    # A truncated ICD library and OpenCL loader in the current directory, found through an
    # empty LD_LIBRARY_PATH element.
    cwd = inp.mkdir(os.path.join(w, "trunc"))
    for lib in ["/usr/lib/x86_64-linux-gnu/libpocl.so.2", "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1"]:
        if os.path.exists(lib):
            with open(lib, "rb") as f, open(os.path.join(cwd, os.path.basename(lib)), "wb") as o:
                o.write(f.read(8192))
    for lp in ["/nonexistent:", "::", "lib"]:
        for cmd in ([["list"]] if ctx.quick else [["list"], ["doctor"], SMALL]):
            ctx.probe("limits", f"LD_LIBRARY_PATH={lp!r}, truncated libraries here: {cmd[0]}",
                      cmd, env={"LD_LIBRARY_PATH": lp}, cwd=cwd, timeout=120, expect=(0, 3))
    ctx.probe("limits", "OCL_ICD_FILENAMES at a truncated library", ["list"],
              env={"OCL_ICD_FILENAMES": os.path.join(cwd, "libpocl.so.2")}, timeout=120,
              expect=(0, 3))
    # Under an 8 GiB address space, so that none can take the shared machine's memory (where
    # the host has room, reduction 2e9 is a run of 15 GB): each must be refused at once.
    for app, size in [("matmul", "46340"), ("conv5x5", "40000x40000"),
                      ("reduction", "2000000000"), ("vecadd", "2^33"), ("matmul", "2^20x2^20x2")]:
        ctx.probe("limits", f"{app} --size {size} fails early", ["run", app, "--size", size,
                  "--reps", "1", "--warmup", "0", "--variant", "naive" if app != "reduction"
                  else "sequential_i32"], as_limit_mb=8192, timeout=120, expect=(2, 3),
                  max_seconds=15)
    ctx.probe("limits", "reduction 3e8 (2.4 GB with the CPU device's copy) under ulimit -v 2 GiB",
              ["run", "reduction", "--size", "300000000", "--variant", "sequential_i32",
               "--reps", "1", "--warmup", "0"], as_limit_mb=2048, timeout=120, expect=(2, 3),
              max_seconds=15)



def probe_mpi(ctx):
    """mpirun -n 2 runapp compare where rank 1's kernel never ends (--timeout ends it): rank 0's
    finished rows must still reach --output."""
    vendors = os.path.join(ctx.build, "oclgrind-vendors")
    pocl = "/usr/lib/x86_64-linux-gnu/libpocl.so.2"
    if not shutil.which("mpirun") or not os.path.isdir(vendors) or not os.path.exists(pocl):
        print("   mpirun, Oclgrind or PoCL missing: no MPI probe")
        return
    w = inp.mkdir(os.path.join(ctx.work, "mpi"))
    v = inp.mkdir(os.path.join(w, "vendors"))
    inp.write_text(os.path.join(v, "a-pocl.icd"), pocl + "\n")
    for f in os.listdir(vendors):
        shutil.copy(os.path.join(vendors, f), os.path.join(v, "b-" + f))
    hang = inp.changed_kernels(ctx.kernels, os.path.join(w, "hang"), "vecadd.cl", GUARD_FROM,
                               "{ c[i] = a[i] + b[i]; __global volatile float* v = c; "
                               "while (n > 0) v[0] += 1.0f; }")
    out = os.path.join(w, "merged.json")
    args = ["compare", "vecadd", "--size", "4096", "--reps", "1", "--warmup", "0", "--variant",
            "naive", "--format", "json", "--output", out, "--timeout", "60", "--quiet"]
    rec = ctx.runner.probe("mpi", "rank 1 hangs (--timeout 60): rank 0's rows are kept",
                           ["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "1",
                            ctx.runapp] + args + [":", "-n", "1", "env", "DUET_KERNEL_DIR=" + hang,
                                                  ctx.runapp] + args,
                           env={"OCL_ICD_VENDORS": v, "OCL_ICD_FILENAMES": ""}, timeout=240,
                           expect=(1, 3), need_message=False)
    try:
        rows = json.load(open(out)).get("results", [])
    except (OSError, ValueError):
        rows = []
    if not any(r.get("device_id") == "opencl:0" and r.get("status") == "pass" for r in rows):
        rec["problems"].append("lost: rank 0's finished rows are not in --output")
