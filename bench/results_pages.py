#!/usr/bin/env python3
"""Writes docs/results/<device class>.md from the result files in results/*.json.

Every results page is generated: the figures live in result files of runapp's own format
(`"schema": "duet-results"`, what `runapp run|compare --format json` writes, so `runapp report`
reads them too), each with its date, machine, devices and command. Four fields of our own ride
along, which runapp ignores: `device_class` (the page a file belongs on, e.g. "nvidia-h100"),
`title`, `source` (where the figures were first published) and, optionally, `references` (the
same work timed by another library in the same session), `measurements` (figures that are not
an app's rows: launch costs, copies) and `notes`.

    python3 bench/results_pages.py            # rewrite docs/results/*.md from results/*.json
    python3 bench/results_pages.py --check    # exit 1 when a page differs from what it would write

To add results: run `runapp compare ... --format json --output results/NAME.json`, add
`device_class` and `title` to the file, and run this script.
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLASS_TITLES = {"nvidia-h100": "NVIDIA H100", "nvidia-h200": "NVIDIA H200", "cpu": "CPUs"}
RATE_UNITS = {"matmul": "GFLOP/s", "vecadd": "GB/s", "reduction": "GB/s", "conv5x5": "GB/s"}


class BadFile(Exception):
    pass


def load(path):
    try:
        doc = json.loads(path.read_text())
    except ValueError as e:
        raise BadFile(f"{path}: not JSON ({e})")
    if not isinstance(doc, dict) or doc.get("schema") != "duet-results":
        raise BadFile(f'{path}: "schema" is not "duet-results"')
    if doc.get("schema_version") != 1:
        raise BadFile(f"{path}: schema_version is not 1")
    for key in ("time", "command", "device_class", "title", "source"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise BadFile(f'{path}: no "{key}" (a non-empty string)')
    if not isinstance(doc.get("results"), list) or not isinstance(doc.get("devices"), list):
        raise BadFile(f'{path}: "results" and "devices" must be arrays')
    for i, r in enumerate(doc["results"]):
        for key in ("app", "variant", "device_id", "status"):
            if not isinstance(r.get(key), str):
                raise BadFile(f'{path}: results[{i}] has no "{key}"')
        if r["status"] == "pass" and not r.get("kernel_ms", {}).get("median", 0) > 0:
            raise BadFile(f"{path}: results[{i}] passed but has no kernel time")
    return doc


def fmt(v):
    if v >= 1000 and abs(v - round(v)) < 1e-6:
        return f"{round(v):,}".replace(",", " ")
    if v >= 1000:
        return f"{v:,.1f}".replace(",", " ")
    return f"{v:.6g}"


def rate(r):
    """The row's figure in its app's unit (GFLOP/s or GB/s), from the fields runapp writes."""
    if r.get("status") != "pass":
        return None
    for key in ("gflops", "effective_gbs"):
        if r.get(key):
            return r[key]
    return None


def cell(r):
    if r is None:
        return ""
    if r.get("status") != "pass":
        note = r.get("note", "")
        return r["status"].upper() + (f" ({note})" if note else "")
    text = fmt(rate(r))
    if r.get("native_copy_gbs"):
        text += f" (copy {fmt(r['native_copy_gbs'])})"
    return text


def device_label(doc, device_id):
    if device_id == "native":
        return "native reference (host)"
    for d in doc["devices"]:
        if d.get("id") == device_id:
            kind = {"cuda": "CUDA", "opencl": "OpenCL"}.get(d.get("backend"), d.get("backend"))
            return f"{d.get('name', device_id)}, {kind} (`{device_id}`)"
    return device_id


def native_for(natives, app, size, variant):
    """The native reference row of the same app and size: for a reduction step `x_f32` the
    native `native_f32`, otherwise the app's one native row."""
    for n in natives:
        if n["app"] != app or n.get("size", "") != size:
            continue
        if n["variant"] == "native" or n["variant"].split("_")[-1] == variant.split("_")[-1]:
            return n
    return None


def rows_table(doc):
    """One line per (app, size, step), one column per device; a native reference row goes on
    the lines of its app and size, with the device's speed-up over it when there is one device."""
    rows = [r for r in doc["results"] if r["device_id"] != "native"]
    natives = [r for r in doc["results"] if r["device_id"] == "native"]
    devices, keys, by_key = [], [], {}
    for r in rows:
        if r["device_id"] not in devices:
            devices.append(r["device_id"])
        # A row of one kernel text on every device (runapp --kernel-text) beside the twins'.
        text = r.get("kernel_text", "")
        k = (r["app"], r.get("size", ""), r["variant"] + (f" [{text}]" if text else ""))
        if k not in by_key:
            keys.append(k)
            by_key[k] = {}
        by_key[k][r["device_id"]] = r
    ratio = bool(natives) and len(devices) == 1
    head = ["app", "size", "step", "unit"] + [device_label(doc, d) for d in devices]
    if natives:
        head.append("native reference on the host")
    if ratio:
        head.append("device / native")
    lines = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for app, size, variant in keys:
        cells = [cell(by_key[(app, size, variant)].get(d)) for d in devices]
        if natives:
            n = native_for(natives, app, size, variant)
            cells.append(f"`{n['variant']}`: {cell(n)}, {n.get('device', '')}" if n else "")
            if ratio:
                mine = rate(by_key[(app, size, variant)][devices[0]])
                theirs = rate(n) if n else None
                cells.append(f"{mine / theirs:.2f}" if mine and theirs else "")
        lines.append(f"| {app} | {size} | `{variant}` | {RATE_UNITS.get(app, '')} | "
                     + " | ".join(cells) + " |")
    notes = [(r["app"], r.get("size", ""), r["variant"], r["device_id"], r["note"])
             for r in doc["results"] if r.get("note") and r.get("status") == "pass"]
    if notes:
        lines.append("")
    for app, size, variant, dev, note in notes:
        lines.append(f"- {app} {size} `{variant}` on `{dev}`: {note}")
    return lines


def references_table(doc):
    lines = ["| app | size | reference, same session | figure |", "|---|---|---|---|"]
    for ref in doc["references"]:
        if "gflops" in ref:
            fig = f"{fmt(ref['gflops'])} GFLOP/s"
        elif "effective_gbs" in ref:
            fig = f"{fmt(ref['effective_gbs'])} GB/s"
        else:
            fig = f"{ref['kernel_ms']} ms"
        lines.append(f"| {ref['app']} | {ref['size']} | {ref['what']} | {fig} |")
    return lines


def measurements_table(doc):
    lines = ["| device | what | figure |", "|---|---|---|"]
    for m in doc["measurements"]:
        lines.append(f"| `{m['device']}` | {m['what']} | {fmt(m['value'])} {m['unit']} |")
    return lines


def section(doc, path):
    out = [f"## {doc['title']} ({doc['time'][:10]})", ""]
    machine = doc.get("machine", {})
    out.append(f"- Command: `{doc['command']}`")
    out.append(f"- Machine: {machine.get('host', '?')}, {machine.get('cpu', '?')}")
    for d in doc["devices"]:
        extra = ", ".join(f"{label}{d[k]}" for k, label in (("platform_version", ""), ("driver", "driver "))
                          if d.get(k))
        out.append(f"- Device `{d['id']}`: {d.get('name', '?')}" + (f" ({extra})" if extra else ""))
    out.append(f"- Data: `{path.relative_to(ROOT)}`; first published in {doc['source']}")
    out.append("")
    if doc["results"]:
        out += rows_table(doc) + [""]
    if doc.get("references"):
        out += references_table(doc) + [""]
    if doc.get("measurements"):
        out += measurements_table(doc) + [""]
    for n in doc.get("notes", []):
        out.append(f"- {n}")
    if doc.get("notes"):
        out.append("")
    return out


PAGE_LINES = 400  # a page longer than this continues on CLASS-2.md, CLASS-3.md, ...


def header(cls, part):
    title = CLASS_TITLES.get(cls, cls) + (f", part {part}" if part > 1 else "")
    return [f"# Measured results: {title}", "",
            "<!-- Generated by bench/results_pages.py from results/*.json: edit those, not this. -->", "",
            "Kernel medians from device events after warm-up (the native reference rows: the host "
            "clock), every row checked against the CPU reference (PASS) unless it says otherwise. "
            "Rates: GFLOP/s for matmul (2MNK), effective GB/s (bytes read + written) for the "
            "memory-bound apps. A reference was timed in the same session as the rows beside it. "
            "How to measure a device yourself: [getting started](../user/getting-started.md); what "
            "each step is: [the ladders](../design/ladders.md).", ""]


def page_name(cls, part):
    return cls if part == 1 else f"{cls}-{part}"


def class_pages(cls, docs):
    """The class's sections, newest first, on pages of about PAGE_LINES lines: {name: text}."""
    parts = [[]]
    for path, doc in sorted(docs, key=lambda pd: (pd[1]["time"], pd[0].name), reverse=True):
        sec = section(doc, path)
        if parts[-1] and len(header(cls, len(parts))) + sum(map(len, parts[-1])) + len(sec) > PAGE_LINES:
            parts.append([])
        parts[-1].append(sec)
    out = {}
    for i, secs in enumerate(parts, 1):
        lines = header(cls, i) + [line for sec in secs for line in sec]
        if i < len(parts):
            lines += [f"Earlier results: [part {i + 1}]({page_name(cls, i + 1)}.md).", ""]
        out[page_name(cls, i)] = "\n".join(lines).rstrip("\n") + "\n"
    return out


def pages(results_dir):
    by_class = {}
    for path in sorted(results_dir.glob("*.json")):
        doc = load(path)
        by_class.setdefault(doc["device_class"], []).append((path, doc))
    out = {}
    for cls, docs in by_class.items():
        out.update(class_pages(cls, docs))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare, do not write")
    ap.add_argument("--results", default=str(ROOT / "results"))
    ap.add_argument("--out", default=str(ROOT / "docs" / "results"))
    args = ap.parse_args()
    try:
        want = pages(pathlib.Path(args.results))
    except BadFile as e:
        print(f"results_pages: {e}", file=sys.stderr)
        return 2
    if not want:
        print(f"results_pages: no result files in {args.results}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out)
    stale = []
    for cls, text in sorted(want.items()):
        target = out / f"{cls}.md"
        if args.check:
            if not target.exists() or target.read_text() != text:
                stale.append(str(target.relative_to(ROOT)))
        else:
            target.write_text(text)
            print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print("results_pages: out of date (run python3 bench/results_pages.py): " + ", ".join(stale),
              file=sys.stderr)
        return 1
    if args.check:
        print(f"results_pages: {len(want)} pages match results/*.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
