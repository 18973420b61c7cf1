"""One probe of the hostile-input campaign (bench/probe_campaign.py): run a command with a timeout,
a memory cap and its own process group, and judge what came back.

A probe records the exit code, the signal, whether it hung (killed at its timeout), the time, the
peak resident memory (the child's own, from wait4), whether a marker file appeared (code that
must never run wrote it), and whether PASS was printed where a failure was expected. Its
`problems` list is the campaign's findings for it.
"""
import os
import re
import resource
import shlex
import signal
import subprocess
import time

TAIL = 4096  # how much of stdout/stderr a record keeps


def _tail(path, n=TAIL):
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return size, f.read().decode("utf-8", "replace")
    except OSError:
        return 0, ""


def _head(path, n=1 << 20):
    try:
        with open(path, "rb") as f:
            return f.read(n).decode("utf-8", "replace")
    except OSError:
        return ""


class Runner:
    """Runs probes one at a time (the machine is shared) and keeps their records."""

    def __init__(self, work, base_env, verbose=False):
        self.work = work
        self.base_env = base_env
        self.verbose = verbose
        self.records = []
        self.n = 0

    def probe(self, cls, name, argv, *, env=None, cwd=None, timeout=60, expect=(0, 1, 2, 3),
              fail_expected=False, marker=None, rss_limit_mb=None, as_limit_mb=None,
              max_seconds=None, output_file=None, output_limit=None, need_message=True,
              want_text=None, shell=False, known=None):
        """Runs argv; returns its record (also kept in self.records)."""
        self.n += 1
        out_path = os.path.join(self.work, "probe.out")
        err_path = os.path.join(self.work, "probe.err")
        full_env = dict(self.base_env)
        for k, v in (env or {}).items():
            if v is None:
                full_env.pop(k, None)
            else:
                full_env[k] = v
        if marker and os.path.exists(marker):
            os.unlink(marker)

        def limits():
            if as_limit_mb:
                b = as_limit_mb << 20
                resource.setrlimit(resource.RLIMIT_AS, (b, b))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        start = time.monotonic()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen(argv, env=full_env, cwd=cwd, stdout=out, stderr=err,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    preexec_fn=limits, shell=shell)
        hung = False
        status, usage = 0, None
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid == proc.pid:
                break
            if time.monotonic() - start > timeout:
                hung = True
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = 0  # reaped by wait4: keep Popen from waiting again
        seconds = time.monotonic() - start
        try:  # whatever the probe left behind in its group (an mpirun's ranks)
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        rc = os.waitstatus_to_exitcode(status)
        out_size, out_tail = _tail(out_path)
        _, err_tail = _tail(err_path)
        err_head = _head(err_path, TAIL)
        head = _head(out_path)
        rec = {
            "class": cls,
            "name": name,
            "command": argv if shell else " ".join(shlex.quote(a) for a in argv),
            "env": {k: v for k, v in (env or {}).items()},
            "exit": None if hung or rc < 0 else rc,
            "signal": None if hung or rc >= 0 else signal.Signals(-rc).name,
            "hang": hung,
            "seconds": round(seconds, 2),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1) if usage else None,
            "stdout_bytes": out_size,
            "marker": bool(marker and os.path.exists(marker)),
            "pass_printed": bool(re.search(r"\bPASS\b", head + out_tail)),
            "fail_printed": bool(re.search(r"\bFAIL\b", head + out_tail)),
            "stderr_tail": err_tail[-600:],
            "stderr_head": err_head[:600],
            "problems": [],
        }
        self._judge(rec, expect, fail_expected, rss_limit_mb, max_seconds, output_file,
                    output_limit, need_message, want_text, out_tail + err_tail)
        if known and rec["problems"]:  # a documented limit: listed apart, not a new finding
            rec["known"] = known
            rec["known_problems"], rec["problems"] = rec["problems"], []
        self.records.append(rec)
        if self.verbose or rec["problems"]:
            state = "; ".join(rec["problems"]) or "ok"
            print(f"  [{cls}] {name}: exit {rec['exit']} sig {rec['signal']} "
                  f"{rec['seconds']} s {rec['peak_rss_mb']} MB: {state}", flush=True)
        return rec

    @staticmethod
    def _judge(rec, expect, fail_expected, rss_limit_mb, max_seconds, output_file, output_limit,
               need_message, want_text, text):
        p = rec["problems"]
        if rec["hang"]:
            p.append("hang: killed at its timeout")
        if rec["signal"]:
            p.append(f"crash: {rec['signal']}")
        if rec["marker"]:
            p.append("code execution: the foreign plugin's constructor ran")
        if fail_expected and rec["exit"] == 0:
            p.append("wrong PASS: a wrong result was not failed")
        if rec["exit"] is not None and rec["exit"] not in expect:
            p.append(f"exit {rec['exit']}, expected {'/'.join(map(str, expect))}")
        if (need_message and rec["exit"] in (2, 3) and
                not re.search(r"error|refus|cannot|not ", rec["stderr_head"] + rec["stderr_tail"],
                              re.I)):
            p.append("no clear message on stderr")
        if rss_limit_mb and rec["peak_rss_mb"] and rec["peak_rss_mb"] > rss_limit_mb:
            p.append(f"memory: peak RSS {rec['peak_rss_mb']} MB > bound {rss_limit_mb:.0f} MB")
        if max_seconds and not rec["hang"] and rec["seconds"] > max_seconds:
            p.append(f"late: {rec['seconds']} s > {max_seconds} s")
        if output_file and output_limit and os.path.exists(output_file):
            size = os.path.getsize(output_file)
            rec["output_bytes"] = size
            if size > output_limit:
                p.append(f"output: {size} bytes > bound {output_limit}")
        if want_text and not re.search(want_text, text):
            p.append(f"message lacks /{want_text}/")
