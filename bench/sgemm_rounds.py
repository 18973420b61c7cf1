#!/usr/bin/env python3
"""sgemm against cuBLAS in alternating rounds, on the GPU machine.

One run of each after the other can differ by several percent on the same GPU (clocks follow
power and temperature), more than the margins of the targets. So this times, R rounds in a row,
each configuration of Duet's `best` and then cuBLAS (bench/reference.py sgemm), and reports per
configuration and size the median of the per-round ratios and their spread.

  sgemm_rounds.py [--runapp PATH] [--rounds R] [--sizes 4096,8192] [--square N] [--json]
                  [--reference CMD] --config LABEL=DEVICE[,NAME=VALUE...] [--config ...]

Sizes are n (n x n x n) or MxNxK. With --square N[,N...] (square sizes among --sizes), each
size's figure is also set against the configuration's own at the nearest of them ("of square",
nearest by the cube root of M N K), as issue #15's target for odd and rectangular sizes reads:
within 0.9 of the square figure. --odd is --sizes with 4096, 8192 and the odd and rectangular
sizes of docs/design/sgemm.md, and --square 4096,8192.
--reference replaces the cuBLAS command (tests use a stand-in; it gets --sizes LIST appended).

e.g. --config cuda=cuda:0 --config opencl=opencl:1 --config cuda-bk8=cuda:0,BEST_BK=8
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from reference import sgemm_dims as dims, sgemm_label as label  # noqa: E402  n|MxNxK <-> (M, N, K)
ODD = "4096,8192,4095,4097,4000,4100,4224,8191,8193,4095x4097x4099,4096x8192x4096,8192x4096x2048"


def nearest_square(d, squares):
    """The square size (a label among squares) nearest to d = (M, N, K) by (M N K)^(1/3)."""
    edge = (d[0] * d[1] * d[2]) ** (1.0 / 3.0)
    return min(squares, key=lambda q: abs(int(q) - edge))


def parse_config(text):
    label, _, rest = text.partition("=")
    parts = rest.split(",")
    if not label or not parts[0]:
        raise argparse.ArgumentTypeError("--config LABEL=DEVICE[,NAME=VALUE...], got '%s'" % text)
    defines = [p for p in parts[1:] if p]
    for d in defines:
        if "=" not in d:
            raise argparse.ArgumentTypeError("define '%s' in --config %s is not NAME=VALUE" % (d, text))
    return {"label": label, "device": parts[0], "defines": defines}


def run_duet(runapp, cfg, sizes):
    cmd = [runapp, "run", "matmul", "--variant", "best", "--device", cfg["device"], "--size",
           ",".join(label(d) for d in sizes), "--reps", "10", "--warmup", "3", "--verify",
           "sample", "--quiet", "--format", "json"]
    for d in cfg["defines"]:
        cmd += ["--define", d]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip() or p.stdout.strip())[-300:]
    out = {}
    for r in json.loads(p.stdout)["results"]:
        # A result that did not pass verification has no figure: never a ratio of a wrong answer.
        out[label(dims(r["size"]))] = r["gflops"] if r.get("pass") else None
    return out, None


def run_cublas(reference, sizes):
    cmd = reference + ["--sizes", ",".join(label(d) for d in sizes)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()[-300:]
    d = json.loads(p.stdout)
    return {label(dims(k.split("_", 1)[1])): v["gflops"] for k, v in d.items()
            if k.startswith("sgemm_") and "gflops" in v}, None


def summarize(configs, sizes, rounds, squares):
    """Per configuration and size: figures and ratios per round, the median ratio to cuBLAS and,
    with square sizes, the median figure against the configuration's own median at the nearest."""
    names = [label(d) for d in sizes]
    near = {label(d): nearest_square(d, squares) for d in sizes} if squares else {}
    cub = {n: [r["cublas"][n] for r in rounds if r["cublas"] and r["cublas"].get(n)] for n in names}
    summary = []
    for cfg in configs:
        med, rows = {}, []
        for n in names:
            got = [(r["duet"][cfg["label"]][n], r["cublas"].get(n) if r["cublas"] else None)
                   for r in rounds if r["duet"].get(cfg["label"]) and r["duet"][cfg["label"]].get(n)]
            ours = [g for g, _ in got]
            ratios = [g / c for g, c in got if c]
            med[n] = statistics.median(ours) if ours else None
            rows.append({"config": cfg["label"], "device": cfg["device"], "defines": cfg["defines"],
                         "n": int(n) if n.isdigit() else n, "gflops": ours, "ratios": ratios,
                         "median_ratio": statistics.median(ratios) if ratios else None})
        for n, s in zip(names, rows) if squares else []:
            q = s["square"] = near[n]
            s["of_square"] = med[n] / med[q] if med.get(n) and med.get(q) else None
        summary += rows
    cub_of_square = {}
    for n in names if squares else []:
        if cub.get(n) and cub.get(near[n]):
            cub_of_square[n] = statistics.median(cub[n]) / statistics.median(cub[near[n]])
    return summary, cub, cub_of_square


def target_lines(configs, summary, squares):
    """Issue #15's sgemm targets per configuration: 1.00 of cuBLAS at the square sizes 4096 and
    8192 (those among the sizes), and every size within 0.9 of the square figure."""
    lines = []
    for cfg in configs:
        rows = [s for s in summary if s["config"] == cfg["label"]]
        at = [s for s in rows if s["n"] in (4096, 8192)]
        if at:
            if any(s["median_ratio"] is None for s in at):
                lines.append("%s: 1.00 of cuBLAS at 4096/8192: unknown (a size has no figure)" % cfg["label"])
            else:
                low = min(at, key=lambda s: s["median_ratio"])
                lines.append("%s: 1.00 of cuBLAS at %s: %s (lowest %.3f at %s)" % (
                    cfg["label"], "/".join(str(s["n"]) for s in at),
                    "met" if low["median_ratio"] >= 1.0 else "not met", low["median_ratio"], low["n"]))
        if squares:
            others = [s for s in rows if str(s["n"]) not in squares]
            if any(s.get("of_square") is None for s in others):
                lines.append("%s: 0.9 of the square figure at every size: unknown (a size has no figure)"
                             % cfg["label"])
            elif others:
                low = min(others, key=lambda s: s["of_square"])
                # three decimals: at two, 0.896 printed as 0.90 beside "not met"
                lines.append("%s: 0.9 of the square figure at every size: %s (lowest %.3f at %s, of %s)" % (
                    cfg["label"], "met" if low["of_square"] >= 0.9 else "not met",
                    low["of_square"], low["n"], low["square"]))
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runapp", default=os.environ.get("RUNAPP", os.path.join(HERE, "..", "build", "bin", "runapp")))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--square", help="square sizes among --sizes: each size against the nearest")
    ap.add_argument("--odd", action="store_true", help="the odd and rectangular sizes, --square 4096,8192")
    ap.add_argument("--reference", help="the cuBLAS command (default: bench/reference.py sgemm)")
    ap.add_argument("--config", type=parse_config, action="append", required=True)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    if a.odd:
        a.sizes, a.square = ODD, a.square or "4096,8192"
    try:
        sizes = [dims(s) for s in a.sizes.split(",")]
    except ValueError as e:
        ap.error("--sizes: %s" % e)
    if len(set(sizes)) != len(sizes):
        ap.error("--sizes names a size twice")
    squares = a.square.split(",") if a.square else []
    for q in squares:
        if not q.isdigit() or q not in [label(d) for d in sizes]:
            ap.error("--square %s is not a square size among --sizes (%s)" % (q, a.sizes))
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    reference = (shlex.split(a.reference) if a.reference
                 else [sys.executable, os.path.join(HERE, "reference.py"), "sgemm"])
    rounds = []
    for i in range(a.rounds):
        rnd = {"duet": {}, "errors": []}
        for cfg in a.config:
            res, err = run_duet(a.runapp, cfg, sizes)
            rnd["duet"][cfg["label"]] = res
            if err:
                rnd["errors"].append("%s: %s" % (cfg["label"], err))
        rnd["cublas"], err = run_cublas(reference, sizes)
        if err:
            rnd["errors"].append("cuBLAS: " + err)
        rounds.append(rnd)
        print("round %d done" % (i + 1), file=sys.stderr)
    summary, cub, cub_of_square = summarize(a.config, sizes, rounds, squares)
    targets = target_lines(a.config, summary, squares)
    if a.json:
        print(json.dumps({"rounds": rounds, "summary": summary, "cublas": cub,
                          "cublas_of_square": cub_of_square, "targets": targets}, indent=2))
    else:
        print("sgemm, Duet best against cuBLAS (torch.matmul, TF32 off), %d alternating rounds" % a.rounds)
        for n in cub:
            print("cuBLAS %s: %s GFLOP/s%s" % (n, " ".join("%.0f" % g for g in cub[n]),
                                               "  (%.2f of the square)" % cub_of_square[n]
                                               if n in cub_of_square and n not in squares else ""))
        print("%-14s %-10s %-16s %-28s %-22s %-12s %s" % (
            "config", "device", "size", "GFLOP/s per round", "ratio per round", "median ratio",
            "of square" if a.square else ""))
        for s in summary:
            print("%-14s %-10s %-16s %-28s %-22s %-12s %s" % (
                s["config"], s["device"], s["n"], " ".join("%.0f" % g for g in s["gflops"]),
                " ".join("%.3f" % r for r in s["ratios"]),
                "-" if s["median_ratio"] is None else "%.3f" % s["median_ratio"],
                "" if not a.square else "-" if s.get("of_square") is None else "%.3f" % s["of_square"]))
        for t in targets:
            print("target " + t)
    errors = [e for r in rounds for e in r["errors"]]
    for e in errors:
        print("error: " + e, file=sys.stderr)
    return 3 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
