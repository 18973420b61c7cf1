#!/usr/bin/env python3
"""sgemm against cuBLAS in alternating rounds, on the GPU machine.

One run of each after the other can differ by several percent on the same GPU (clocks follow
power and temperature), more than the margins of the targets. So this times, R rounds in a row,
each configuration of Duet's `best` and then cuBLAS (bench/reference.py sgemm), and reports per
configuration and size the median of the per-round ratios and their spread.

  sgemm_rounds.py [--runapp PATH] [--rounds R] [--sizes 4096,8192] [--json]
                  --config LABEL=DEVICE[,NAME=VALUE...] [--config ...]

e.g. --config cuda=cuda:0 --config opencl=opencl:1 --config cuda-bk16=cuda:0,BEST_BK=16,BEST_PAD=0
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


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
           ",".join(map(str, sizes)), "--reps", "10", "--warmup", "3", "--verify", "sample",
           "--quiet", "--format", "json"]
    for d in cfg["defines"]:
        cmd += ["--define", d]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, (p.stderr.strip() or p.stdout.strip())[-300:]
    out = {}
    for r in json.loads(p.stdout)["results"]:
        n = int(r["size"].split("x")[0])
        out[n] = r["gflops"] if r.get("pass") else None
    return out, None


def run_cublas():
    p = subprocess.run([sys.executable, os.path.join(HERE, "reference.py"), "sgemm"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip()[-300:]
    d = json.loads(p.stdout)
    return {int(k.split("_")[1]): v["gflops"] for k, v in d.items() if k.startswith("sgemm_")}, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runapp", default=os.environ.get("RUNAPP", os.path.join(HERE, "..", "build", "bin", "runapp")))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--sizes", default="4096,8192")
    ap.add_argument("--config", type=parse_config, action="append", required=True)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    sizes = [int(s) for s in a.sizes.split(",")]
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    rounds = []
    for i in range(a.rounds):
        rnd = {"duet": {}, "errors": []}
        for cfg in a.config:
            res, err = run_duet(a.runapp, cfg, sizes)
            rnd["duet"][cfg["label"]] = res
            if err:
                rnd["errors"].append("%s: %s" % (cfg["label"], err))
        rnd["cublas"], err = run_cublas()
        if err:
            rnd["errors"].append("cuBLAS: " + err)
        rounds.append(rnd)
        print("round %d done" % (i + 1), file=sys.stderr)
    summary = []
    for cfg in a.config:
        for n in sizes:
            ours = [r["duet"][cfg["label"]][n] for r in rounds
                    if r["duet"].get(cfg["label"]) and r["duet"][cfg["label"]].get(n)]
            ratios = [r["duet"][cfg["label"]][n] / r["cublas"][n] for r in rounds
                      if r["duet"].get(cfg["label"]) and r["duet"][cfg["label"]].get(n)
                      and r["cublas"] and r["cublas"].get(n)]
            summary.append({"config": cfg["label"], "device": cfg["device"], "defines": cfg["defines"],
                            "n": n, "gflops": ours, "ratios": ratios,
                            "median_ratio": statistics.median(ratios) if ratios else None})
    cub = {n: [r["cublas"][n] for r in rounds if r["cublas"] and n in r["cublas"]] for n in sizes}
    if a.json:
        print(json.dumps({"rounds": rounds, "summary": summary, "cublas": cub}, indent=2))
    else:
        print("sgemm, Duet best against cuBLAS (torch.matmul, TF32 off), %d alternating rounds" % a.rounds)
        for n in sizes:
            print("cuBLAS %d: %s GFLOP/s" % (n, " ".join("%.0f" % g for g in cub[n])))
        print("%-14s %-10s %-6s %-28s %-22s %s" % ("config", "device", "n", "GFLOP/s per round",
                                                  "ratio per round", "median ratio"))
        for s in summary:
            print("%-14s %-10s %-6d %-28s %-22s %s" % (
                s["config"], s["device"], s["n"], " ".join("%.0f" % g for g in s["gflops"]),
                " ".join("%.3f" % r for r in s["ratios"]),
                "-" if s["median_ratio"] is None else "%.3f" % s["median_ratio"]))
    errors = [e for r in rounds for e in r["errors"]]
    for e in errors:
        print("error: " + e, file=sys.stderr)
    return 3 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
