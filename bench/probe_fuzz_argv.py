"""Random runapp command lines for the probe campaign (bench/probe_campaign.py), drawn from the
real option vocabulary with good and bad values (the same shape as tests/fuzz_command_lines.hpp,
which the suite's in-process fuzz uses). Good sizes stay small so accepted runs end quickly."""
import random

APPS = ["vecadd", "matmul", "conv5x5", "reduction"]
ODD_APPS = ["fft", "", "VECADD", "vecadd,matmul", "vec add", "ｖｅｃａｄｄ", "-", "123"]
SIZES = (["100", "64", "2^6", "17", "1", "33", "3x5", "16x16x16", "5x7x9", "2^6,17", "7x1"],
         ["1x1x1x1", "2^", "0x5", "1e3", "99999999999999", "18446744073709551615", "17179869184G",
          "2^40", "2^-1", "-1", "", "12x", "x", "0", " 64", "٣", "1,,2", "64,", "1.5", "0x10",
          "2^99999999999", "2^31", "65536x32768", "46340", "4294967296x4294967296"])
LOCALS = (["16", "8x8", "4x4", "1", "2", "32", "16x16,8x8", "2x8", "64", "1x1"],
          ["0x4", "4x", "0", "4x4x4", "1000000", "8,,16", "", "-4", "4294967297", "3",
           "2^40x2^40", "18446744073709551615"])
DEVICES = (["opencl:0", "0", "opencl", "cpu"],
           ["opencl:", ":0", "cuda:0", "99", "-1", "uuid:zz", "", "opencl:0x1", "opencl:99999999999",
            "all", "0,,0", "pci:", "uuid:" + "f" * 200, "x" * 5000])
BACKENDS = (["opencl"], ["cuda", "metal", "", "OpenCL", "opencl "])
VARIANTS = {"vecadd": ["naive", "vec4", "naive,vec4"], "matmul": ["naive", "tiled16"],
            "conv5x5": ["naive", "const"], "reduction": ["sequential_i32", "atomic_i32"]}
BAD_VARIANTS = [",", "naive,", "bogus", "", "ALL", "naive,,vec4", "NAIVE", "v" * 10000]
NUMS = (["1", "2", "0"], ["-1", "1.5", "", "99999999999", "1e1", "0x1", "nan", "inf"])
VERIFY = (["full", "sample", "off"], ["maybe", "", "FULL"])
FORMATS = (["table", "json", "csv"], ["xml", "", "JSON"])
SEEDS = (["0", "7", "2147483647"], ["-1", "99999999999", "abc", ""])
DEFINES = (["TILE=16", "X", "X=1"], ["=3", "A B=1", "", "Y=\"q\"", "Z=a\\b", "X=1\x0b-include",
                                     "X=" + "9" * 100000, "-DX=1"])
TIMEOUTS = (["600", "1e3", "0x258"], ["-1", "nan", "inf", "abc", "", "1e9", "600s", "1e-300"])
JUNK = ["--frobnicate", "-x", "--", "---size", "--size=", "--size=64", "-", "--reps=", "--=",
        "--quiet", "--help", "--version", "x", "", " ", "🙂", "--device=opencl:0", "--local=4x",
        "--output", "--html", "--strict", "--reference", "\x1b[2J", "%s%n%n%n"]


def generate(rng: random.Random, out_file: str):
    def pick(v):
        return rng.choice(v)

    def choose(c):
        return pick(c[0]) if rng.random() < 0.75 else pick(c[1])

    a, app, runs_app = [], "", False
    shape = rng.randrange(100)
    if shape < 60:
        app = pick(APPS) if rng.random() < 0.9 else pick(ODD_APPS)
        a += (["run"] if rng.random() < 0.3 else []) + [app]
        runs_app = True
    elif shape < 68:
        app = pick(APPS) if rng.random() < 0.9 else pick(ODD_APPS)
        a += ["compare", app, "--devices", "opencl:0"]
        runs_app = True
    elif shape < 73:
        a = ["info", choose(DEVICES)]
    elif shape < 78:
        a = ["list"] + (["steps"] if rng.random() < 0.3 else [])
    elif shape < 82:
        a = ["cache", pick(["ls", "clear", "explode", "", "LS"])]
    elif shape < 85:
        a = ["bandwidth"]
    elif shape < 87:
        a = ["doctor"]
    elif shape < 92:
        a = ["report", pick(["/dev/null", "/nonexistent.json", out_file, "/etc/passwd", ""])]
    elif shape < 96:
        a = [pick(["help", "version", "--help", "--version", "run", "info", "tune", "compile"])]
    a += ["--reps", "1", "--warmup", "0"]
    if runs_app and app in VARIANTS:
        a += ["--variant", VARIANTS[app][0]]
    sized = False
    for _ in range(rng.randrange(5)):
        o = rng.randrange(17)
        if o < 3:
            a += ["--size", choose(SIZES)]
            sized = True
        elif o == 3:
            a += ["--local", choose(LOCALS)]
        elif o == 4:
            a += ["--device", choose(DEVICES)]
        elif o == 5:
            a += ["--backend", choose(BACKENDS)]
        elif o in (6, 7):
            a += ["--variant", pick(VARIANTS[app]) if app in VARIANTS and rng.random() < 0.6
                  else pick(BAD_VARIANTS)]
        elif o == 8:
            a += ["--reps", choose(NUMS)]
        elif o == 9:
            a += ["--warmup", choose(NUMS)]
        elif o == 10:
            a += ["--verify", choose(VERIFY)]
        elif o == 11:
            a += ["--format", choose(FORMATS)]
        elif o == 12:
            a += ["--seed", choose(SEEDS)]
        elif o == 13:
            a += ["--define", choose(DEFINES)] if app == "vecadd" else ["--timeout", choose(TIMEOUTS)]
        elif o == 14:
            a += [pick(["--output", "--html"]),
                  out_file if rng.random() < 0.6 else pick(["/no/such/dir/x", "/dev/full", "", "/"])]
        elif o == 15:
            a += ["--devices", choose(DEVICES)]
        else:
            a.append(pick(JUNK))
    if rng.random() < 0.05:
        a.append(pick(["--size", "--device", "--variant", "--local", "--define", "--timeout"]))
    if runs_app and not sized:
        a += ["--size", {"matmul": "48", "conv5x5": "40x30"}.get(app, "1000")]
    return a
