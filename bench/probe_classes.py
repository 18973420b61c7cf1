"""The probe campaign's classes of hostile input (bench/probe_campaign.py): plugins, result files,
kernel trees and command lines. The run-time classes (local sizes, wrong PASS, limits, MPI) are
in probe_classes_run.py."""
import dataclasses
import os
import random
import shutil

import probe_inputs as inp
from probe_fuzz_argv import generate
from probe_classes_run import SMALL as SMALL_RUN
from probe_classes_run import probe_locals, probe_wrongpass, probe_limits, probe_mpi  # noqa: F401

NOBODY = 65534


@dataclasses.dataclass
class Context:
    runner: object
    runapp: str
    build: str
    work: str
    source: str
    quick: bool
    seed: int

    def probe(self, cls, name, args, **kw):
        return self.runner.probe(cls, name, [self.runapp] + args, **kw)

    @property
    def kernels(self):
        return os.path.join(self.source, "kernels_cl")


def probe_plugins(ctx):
    """DUET_BACKEND_PATH: no foreign code runs from a relative entry, a directory or file others
    can change, through someone else's link, or under another name from a directory."""
    w = os.path.join(ctx.work, "plugins")
    marker = os.path.join(w, "MARKER")
    inp.mkdir(w)
    evil = inp.evil_plugin(w, marker)

    def plant(d, names=("libduet_opencl.so", "libduet_evil.so"), mode=0o755, file_mode=0o755):
        inp.mkdir(d, mode)
        for n in names:
            shutil.copy(evil, os.path.join(d, n))
            os.chmod(os.path.join(d, n), file_mode)
        return d

    cwd = plant(os.path.join(w, "cwd"))
    plant(os.path.join(cwd, "plugins"))
    cases = {}  # name: (DUET_BACKEND_PATH, cwd)
    for rel in ["plugins", "./plugins", ".", "plugins/libduet_evil.so", "plugins/libduet_opencl.so",
                "/nonexistent::", ":.:", "~/plugins"]:
        cases[f"relative {rel!r}"] = (rel, cwd)
    cases["0777 directory"] = (plant(os.path.join(w, "open"), mode=0o777), w)
    cases["0775 directory"] = (plant(os.path.join(w, "group"), mode=0o775), w)
    cases["0777 directory, file named"] = (os.path.join(w, "open", "libduet_evil.so"), w)
    anc = inp.mkdir(os.path.join(w, "anc"), 0o777)
    cases["under a 0777 ancestor"] = (plant(os.path.join(anc, "inner")), w)
    root = os.geteuid() == 0  # only root can give a file to another user
    if root:
        foreign = plant(os.path.join(w, "foreign"))
        os.chown(foreign, NOBODY, NOBODY)
        cases["directory owned by another user"] = (foreign, w)
    private = plant(os.path.join(w, "private"), names=("libduet_evil.so",))
    cases["another name from a private directory"] = (private, w)
    if root:
        link = os.path.join(w, "their-link")
        os.symlink(private, link)
        os.lchown(link, NOBODY, NOBODY)
        cases["another user's link to a directory"] = (link, w)
    # A directory that is the user's and writable by no one else, holding a known name that
    # others can change: the file itself must be checked.
    f666 = plant(os.path.join(w, "file666"), names=("libduet_opencl.so",), file_mode=0o666)
    cases["0666 libduet_opencl.so in a private directory"] = (f666, w)
    if root:
        fown = plant(os.path.join(w, "fileown"), names=("libduet_opencl.so",))
        os.chown(os.path.join(fown, "libduet_opencl.so"), NOBODY, NOBODY)
        cases["another user's libduet_opencl.so in a private directory"] = (fown, w)
    flink = inp.mkdir(os.path.join(w, "filelink"))
    os.symlink(os.path.join(w, "open", "libduet_opencl.so"),
               os.path.join(flink, "libduet_opencl.so"))
    cases["libduet_opencl.so linking into a 0777 directory"] = (flink, w)
    if root:
        flink2 = inp.mkdir(os.path.join(w, "filelink2"))
        os.symlink(os.path.join(private, "libduet_evil.so"),
                   os.path.join(flink2, "libduet_opencl.so"))
        os.lchown(os.path.join(flink2, "libduet_opencl.so"), NOBODY, NOBODY)
        cases["another user's link as libduet_opencl.so"] = (flink2, w)
    commands = [["list"]] if ctx.quick else [["list"], ["doctor"], SMALL_RUN, ["info", "0"]]
    for name, (path, cwd_) in cases.items():
        for cmd in commands:
            ctx.probe("plugins", f"{name}: {cmd[0]}", cmd, env={"DUET_BACKEND_PATH": path},
                      cwd=cwd_, timeout=120, expect=(0, 3), marker=marker)
    # The control: a file named explicitly is loaded (by design). Its marker must appear, or
    # the campaign could not see code execution at all.
    rec = ctx.probe("plugins", "control: a plugin file named explicitly", ["list"],
                    env={"DUET_BACKEND_PATH": os.path.join(private, "libduet_evil.so")}, cwd=w,
                    timeout=120, expect=(0, 3))
    if not os.path.exists(marker):
        rec["problems"].append("control failed: the named plugin's marker did not appear")
    else:
        os.unlink(marker)


def probe_results(ctx):
    """Hostile result files for report (table, CSV, HTML): no crash or hang, peak RSS within 20x
    the input plus a fixed base, output in proportion to the input."""
    d = os.path.join(ctx.work, "results")
    files = inp.result_files(d, ctx.quick)
    out = os.path.join(d, "out")
    base = ctx.probe("results", "baseline: a good file, --html", ["report", files["ok"], "--html",
                     out + ".html"], timeout=60, expect=(0,))
    base_mb = (base["peak_rss_mb"] or 30) + 32
    print(f"   baseline peak RSS {base['peak_rss_mb']} MB: bound 20 x input + {base_mb:.0f} MB")
    for name, path in files.items():
        size = os.path.getsize(path) if os.path.isfile(path) and not path.endswith("big.json") else 0
        bound = 20 * size / (1 << 20) + base_mb
        for fmt in ([["--html", out + ".html"]] if ctx.quick else
                    [[], ["--format", "csv"], ["--html", out + ".html"]]):
            if os.path.exists(out + ".html"):
                os.unlink(out + ".html")
            label = fmt[0] if fmt else "table"
            ctx.probe("results", f"{name}: {label}", ["report", path] + fmt, timeout=60,
                      expect=(0, 1, 2), rss_limit_mb=bound, as_limit_mb=int(bound * 3 + 1024),
                      max_seconds=30, output_file=out + ".html" if fmt and fmt[0] == "--html" else None,
                      output_limit=64 * size + (4 << 20))
    # Outputs that must be refused or fail loudly, never hang or exit 0.
    fifo = os.path.join(d, "out.fifo")
    os.mkfifo(fifo)
    ok = files["ok"]
    before = open(ok, "rb").read()
    for name, args, codes in [
            ("--html is the input", ["report", ok, "--html", ok], (2,)),
            ("--output is the input", ["report", ok, "--format", "json", "--output", ok], (2,)),
            ("--output /dev/full", ["report", ok, "--output", "/dev/full"], (3,)),
            ("--html to a FIFO", ["report", ok, "--html", fifo], (2,)),
            ("--output to a directory", ["report", ok, "--output", d], (2,)),
            ("compile --output /dev/full", ["compile", os.path.join(ctx.kernels, "vecadd.cl"),
                                            "--output", "/dev/full"], (2, 3))]:
        ctx.probe("results", name, args, timeout=60, expect=codes)
    if open(ok, "rb").read() != before:
        ctx.runner.records[-1]["problems"].append("a report output overwrote its input")


def probe_kernels(ctx):
    """Hostile DUET_KERNEL_DIR trees (a run loads vecadd from each) and `runapp compile` of
    their files: no crash, no hang, memory bounded, an unused 1 GiB header costs nothing."""
    trees = inp.kernel_trees(ctx.kernels, os.path.join(ctx.work, "kernels"))
    for name, (root, file) in trees.items():
        # The unused header must cost nothing; an oversized unrelated file is refused by name.
        ctx.probe("kernels", f"{name}: run", SMALL_RUN, env={"DUET_KERNEL_DIR": root},
                  timeout=180, expect=(0,) if name == "unused 1 GiB header" else (0, 2, 3),
                  rss_limit_mb=2048, max_seconds=60)
        if ctx.quick and name not in ("100k-char include", "long kernel name", "include bomb"):
            continue
        for ext in (".cl", ".cu"):
            target = file if ext == ".cl" else os.path.splitext(file)[0] + ".cu"
            if ext == ".cu":
                shutil.copy(file, target)
            # compile: 1 when a target's compiler rejects the file (its log is the result)
            ctx.probe("kernels", f"{name}: compile {ext}", ["compile", target], timeout=180,
                      expect=(0, 1, 2, 3), rss_limit_mb=2048, max_seconds=120)
    # Long names through the API's lookup: a kernel name of 60,000 characters on the command line.
    ctx.probe("kernels", "60,000-character --variant", ["run", "vecadd", "--variant", "n" * 60000,
              "--size", "1000"], timeout=60, expect=(2,))


def probe_cli(ctx):
    """Random command lines from the real option vocabulary: each ends by itself with 0-3, and
    its exit code agrees with the verdicts it printed."""
    rng = random.Random(ctx.seed)
    n = 60 if ctx.quick else 500
    out_file = os.path.join(ctx.work, "cli-out.json")
    for i in range(n):
        argv = generate(rng, out_file)
        rec = ctx.probe("cli", f"#{i}", argv, timeout=120, expect=(0, 1, 2, 3))
        tail = rec["stderr_tail"]
        if rec["exit"] == 0 and "error:" in tail:
            rec["problems"].append("exit 0 after an error message")
        if rec["exit"] == 0 and rec["fail_printed"]:
            rec["problems"].append("exit 0 with FAIL printed")
