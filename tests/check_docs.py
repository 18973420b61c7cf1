#!/usr/bin/env python3
"""Checks that the docs stay true to the tree (ctest docs_paths, docs_run_numbers,
apps_public_api, portable_facts).

    check_docs.py paths SRC        every repository path a doc names exists: paths in backticks
                                   (`apps/framework/shape.cpp`, `tests/conformance/`; a bare file
                                   name such as `shape.cpp` must be some file's name), relative
                                   links and their #anchors; and the plugin ABI number that
                                   docs/design/architecture.md states is the one the code defines
    check_docs.py run-numbers SRC  no doc, comment or script cites an internal run ("call"
                                   and a number of two digits or more): a reader cannot look
                                   such a number up; say what was measured, when and how
    check_docs.py public-api SRC   apps/ and examples/ include Duet through <duet/duet.hpp>
                                   only (and a backend's extension header where they use one,
                                   backends/NAME/include/duet/NAME/): no plugin-SDK header
                                   (duet/backend/), no single public header, no path into
                                   runtime/ or backends/ (the API docs say an app needs that one
                                   include)
    check_docs.py portable-facts SRC  DeviceInfo's portable facts (the <portable-facts> blocks
                                   of runtime/include/duet/device_info.hpp: DeviceCapabilities
                                   and the limits) name no vendor, architecture or API, in code
                                   or comments; every vendor extension name ("nv.wgmma") that
                                   the code uses is in docs/api/devices.md's table, and every
                                   name there is one a backend reports

The docs are README.md, CHANGELOG*.md and every .md under docs/. Fenced code blocks are skipped
(they show commands and code, not claims about the tree); so are tokens with placeholders
(`backends/NAME/`, `kernels_cl/*.cl`, `<file>`), absolute paths and build outputs.
"""
import os
import pathlib
import re
import subprocess
import sys

TOP_DIRS = {"apps", "backends", "bench", "cmake", "docs", "examples", "kernels_cl", "kernels_cu",
            "results", "runtime", "scripts", "tests", "third_party", ".ci"}
FILE_EXT = re.compile(r"^[\w.+-]+\.(cpp|hpp|cl|clh|cu|cuh|py|sh|cmake|md|json|in|txt)$")
# Files that exist only in a build tree, a cache directory or a user's project, named by docs.
NOT_IN_TREE = {"embedded_kernels.cpp", "version.hpp", "tuned.json", "cache.key", "sgemm_odd.json"}
PLACEHOLDER = re.compile(r"[*<>{}$]|\.\.\.|(?<![A-Za-z])(NAME|STEP|APP|FILE|HEX|BUS|N|X)(?![a-z])")
# A doc may name paths of an example that is not in the tree (a backend still to be written):
# <!-- check_docs: not in the tree: backends/hip/ kernels_hip/ hip_ -->, prefixes of such tokens.
EXAMPLE = re.compile(r"<!-- check_docs: not in the tree: ([^>]*)-->")
RUN_NUMBER = re.compile(r"calls? [0-9]{2,}", re.IGNORECASE)


def tracked_files(src):
    try:
        out = subprocess.run(["git", "-C", str(src), "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
        files = [f for f in out if f and (src / f).exists()]
        if files:
            return files
    except (OSError, subprocess.CalledProcessError):
        pass
    skip = {".git", "build"}
    return [str(p.relative_to(src)) for p in src.rglob("*")
            if p.is_file() and not (set(p.relative_to(src).parts) & skip)]


def doc_files(src, files):
    return sorted(f for f in files if f.endswith(".md") and
                  (f.startswith("docs/") or "/" not in f))


def prose(text):
    """The lines outside fenced code blocks, with their numbers."""
    fenced = False
    for n, line in enumerate(text.split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s)
    return s.replace(" ", "-")


def anchors(path):
    return {slug(line.lstrip("#")) for _, line in prose(path.read_text())
            if line.startswith("#")}


def check_token(src, tok, basenames, examples=()):
    tok = tok.strip().rstrip(".,;:")
    if any(tok.startswith(e) for e in examples):
        return None
    if not tok or " " in tok or PLACEHOLDER.search(tok) or tok.startswith(("/", "~", "-", "http")):
        return None
    if "/" in tok:
        first = tok.split("/")[0]
        if first not in TOP_DIRS:
            return None
        if (src / tok).exists():
            return None
        return f"`{tok}` does not exist"
    if FILE_EXT.match(tok) and tok not in NOT_IN_TREE and tok not in basenames:
        return f"`{tok}`: no file of that name in the tree"
    return None


def check_paths(src):
    files = tracked_files(src)
    basenames = {pathlib.Path(f).name for f in files}
    errors = []
    for rel in doc_files(src, files):
        path = src / rel
        text = path.read_text()
        examples = [e for m in EXAMPLE.findall(text) for e in m.split()]
        for n, line in prose(text):
            for tok in re.findall(r"`([^`\n]+)`", line):
                why = check_token(src, tok, basenames, examples)
                if why:
                    errors.append(f"{rel}:{n}: {why}")
            for target in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"^[a-z]+:", target):
                    continue
                file_part, _, anchor = target.partition("#")
                dest = (path.parent / file_part).resolve() if file_part else path
                if not dest.exists():
                    errors.append(f"{rel}:{n}: link to {target}: no such file")
                elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                    errors.append(f"{rel}:{n}: link to {target}: no heading with that anchor")
    errors += check_abi(src)
    return errors


def check_abi(src):
    header = (src / "runtime/include/duet/backend/backend.hpp").read_text()
    code = re.search(r"#define DUET_BACKEND_ABI (\d+)", header)
    doc = (src / "docs/design/architecture.md").read_text()
    said = re.search(r"`DUET_BACKEND_ABI`, (\d+)", doc)
    if not code:
        return ["runtime/include/duet/backend/backend.hpp: no #define DUET_BACKEND_ABI"]
    if not said:
        return ["docs/design/architecture.md: does not state the plugin ABI number "
                "(\"`DUET_BACKEND_ABI`, N\")"]
    if said.group(1) != code.group(1):
        return [f"docs/design/architecture.md says DUET_BACKEND_ABI {said.group(1)}, "
                f"runtime/include/duet/backend/backend.hpp defines {code.group(1)}"]
    return []


def check_run_numbers(src):
    errors = []
    for rel in tracked_files(src):
        try:
            text = (src / rel).read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for n, line in enumerate(text.split("\n"), 1):
            if RUN_NUMBER.search(line):
                errors.append(f"{rel}:{n}: cites an internal run: {line.strip()[:100]}")
    return errors


INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
APP_DIRS = ("apps/", "examples/")


def check_public_api(src):
    """An app's #include lines that reach Duet other than through <duet/duet.hpp>."""
    errors = []
    for rel in tracked_files(src):
        if not rel.startswith(APP_DIRS) or pathlib.Path(rel).suffix not in (".cpp", ".hpp", ".h"):
            continue
        for n, line in enumerate((src / rel).read_text().split("\n"), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(2)
            into_tree = re.search(r"(^|/)(runtime|backends)/", name)
            extension = any((b / "include" / name).is_file()
                            for b in (src / "backends").iterdir())
            if (name.startswith("duet/") and name != "duet/duet.hpp" and not extension) or \
                    into_tree:
                close = ">" if m.group(1) == "<" else '"'
                errors.append(f"{rel}:{n}: includes {m.group(1)}{name}{close}: an app includes "
                              "<duet/duet.hpp> only (plugin-SDK headers are duet/backend/)")
    return errors


# A vendor's, an architecture's or an API's word: what the portable facts never name.
VENDOR_WORD = re.compile(
    r"\b(nvidia|amd|intel|arm|apple|qualcomm|hopper|ampere|volta|turing|blackwell|cuda|opencl"
    r"|ptx|spir-?v|nvrtc|sm_\d+\w*|compute capabilit\w*|warp\w*|wavefronts?|tensor cores?"
    r"|cl_\w+|nv_\w+|oclgrind|pocl|rusticl|llvmpipe|mesa|hip|rocm|level zero|vulkan|metal)\b"
    r"|\bSMs?\b", re.IGNORECASE)
PORTABLE = re.compile(r"// <portable-facts>\n(.*?)// </portable-facts>", re.DOTALL)
EXTENSION = re.compile(r'"((?:nv|amd|intel|khr|ext)\.[a-z][a-z0-9_]*)"')


def check_portable_facts(src):
    header = "runtime/include/duet/device_info.hpp"
    text = (src / header).read_text()
    errors = []
    blocks = list(PORTABLE.finditer(text))
    if len(blocks) < 2:
        errors.append(f"{header}: fewer than two <portable-facts> blocks (DeviceCapabilities, "
                      "DeviceInfo's facts)")
    for b in blocks:
        first = text.count("\n", 0, b.start(1)) + 1
        for n, line in enumerate(b.group(1).split("\n"), first):
            if m := VENDOR_WORD.search(line):
                errors.append(f"{header}:{n}: a portable fact names \"{m.group(0)}\": "
                              f"{line.strip()}")
    doc = (src / "docs/api/devices.md").read_text()
    table = doc.split("#### Vendor extensions", 1)[-1].split("\n#", 1)[0]
    documented = set(re.findall(r"^\| `([a-z]+\.[a-z0-9_]+)` \|", table, re.MULTILINE))
    used, reported = {}, set()
    for rel in tracked_files(src):
        if not rel.startswith(("apps/", "backends/", "runtime/", "tests/", "examples/")) or \
                pathlib.Path(rel).suffix not in (".cpp", ".hpp", ".json"):
            continue
        # A name on a line about extensions (has_extension, extensions = {...}, a constant).
        for line in (src / rel).read_text().split("\n"):
            for name in EXTENSION.findall(line) if "extension" in line.lower() else ():
                used.setdefault(name, rel)
                if rel.startswith("backends/"):
                    reported.add(name)
    errors += [f"{rel}: uses the extension \"{name}\", which docs/api/devices.md's table of "
               "vendor extensions lacks" for name, rel in sorted(used.items())
               if name not in documented]
    errors += [f"docs/api/devices.md lists the extension {name}, which no backend reports"
               for name in sorted(documented - reported)]
    return errors


CHECKS = {"paths": (check_paths, "paths the docs name that do not exist"),
          "run-numbers": (check_run_numbers,
                          "internal run numbers (say what was measured, when and how instead)"),
          "public-api": (check_public_api, "includes of Duet other than <duet/duet.hpp> in apps"),
          "portable-facts": (check_portable_facts,
                             "vendor names in portable facts or undocumented extensions")}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CHECKS:
        print(__doc__, file=sys.stderr)
        return 2
    src = pathlib.Path(sys.argv[2]).resolve()
    check, what = CHECKS[sys.argv[1]]
    errors = check(src)
    for e in errors:
        print(e)
    if errors:
        print(f"check_docs: {len(errors)} {what}", file=sys.stderr)
        return 1
    print(f"check_docs {sys.argv[1]}: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
