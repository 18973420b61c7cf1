#!/usr/bin/env python3
"""Checks docs/user/runapp.md against runapp's own usage text (ctest docs_runapp_reference).

    check_runapp_doc.py RUNAPP DOC

Fails when a command, an option or an environment variable that `runapp --help` prints is not
in the reference, or when the reference names an option (`--name`) that the usage text does not
have: the reference is then out of date with the tool.
"""
import re
import subprocess
import sys


def usage(runapp):
    out = subprocess.run([runapp, "--help"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0 or "usage:" not in out.stdout:
        sys.exit(f"check_runapp_doc: `{runapp} --help` failed (exit {out.returncode}): "
                 f"{out.stderr.strip()[:300]}")
    return out.stdout


def commands(text):
    """'list', 'list steps', 'info', 'run', ... from the lines `  runapp [run] WORD ...`."""
    found = []
    for line in text.split("\n"):
        m = re.match(r"\s+runapp (\[run\] )?([a-z]+)( [a-z]+)?", line)
        if not m:
            continue
        if m.group(1):
            found.append("run")
            continue
        found.append(m.group(2))
        if m.group(3) and m.group(3).strip() in ("steps",):
            found.append(m.group(2) + m.group(3))
    return found


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    text = usage(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8") as f:
        doc = f.read()
    missing = []
    for c in commands(text):
        if c in ("APP",):
            continue
        if f"runapp {c}" not in doc and f"runapp [{c}]" not in doc:
            missing.append(f"command `runapp {c}`")
    options = sorted(set(re.findall(r"(--[a-z][a-z-]+)", text)))
    for o in options:
        if not re.search(rf"(?<![\w-]){o}(?![\w-])", doc):
            missing.append(f"option `{o}`")
    for v in sorted(set(re.findall(r"\b(DUET_[A-Z_]+)\b", text))):
        if v not in doc:
            missing.append(f"environment variable `{v}`")
    extra = sorted(set(re.findall(r"`(--[a-z][a-z-]+)", doc)) - set(options))
    for m in missing:
        print(f"{sys.argv[2]}: {m} is in `runapp --help` but not in the reference")
    for o in extra:
        print(f"{sys.argv[2]}: names option `{o}`, which `runapp --help` does not have")
    if missing or extra:
        print("check_runapp_doc: the runapp reference is out of date with the tool", file=sys.stderr)
        return 1
    print(f"check_runapp_doc: {len(commands(text))} commands, {len(options)} options: all documented")
    return 0


if __name__ == "__main__":
    sys.exit(main())
