#!/usr/bin/env python3
"""Keeps docs/design/writing-a-backend.md's list of places honest: the files of the core and
the build that name a kernel language (a KernelLanguage value, a dialect's name, its kernel folder
or file extensions, the deprecated per-language option fields), outside comments, must be those
the page's `dialect-places` comment lists."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
marker = re.compile(r'KernelLanguage::(cuda|opencl_c)\b|"opencl-c"|"cuda-c\+\+"|kernels_c[lu]\b'
                    r'|"\.clh?"|"\.cuh?"|"(opencl|cuda)_options"')
doc = (root / "docs/design/writing-a-backend.md").read_text()
listed = re.search(r"<!-- dialect-places: (.*?) -->", doc)
if not listed:
    sys.exit("docs/design/writing-a-backend.md: no <!-- dialect-places: ... --> comment")
listed = set(listed.group(1).split())


def code_lines(path):
    for line in path.read_text(errors="replace").splitlines():
        cut = line.split("//")[0] if path.suffix in (".cpp", ".hpp") else line.split("#")[0]
        yield cut


found = set()
candidates = [root / "CMakeLists.txt", *sorted((root / "runtime").rglob("*"))]
for path in candidates:
    if path.is_file() and (path.suffix in (".cpp", ".hpp") or path.name == "CMakeLists.txt"):
        if any(marker.search(line) for line in code_lines(path)):
            found.add(str(path.relative_to(root)))
# The table itself is where languages belong; the doc lists it as the row to add.
problems = [f"{f} names a kernel language but writing-a-backend.md does not list it"
            for f in sorted(found - listed)]
problems += [f"writing-a-backend.md lists {f}, which names no kernel language any more"
             for f in sorted(listed - found)]
for p in problems:
    print(p)
print(f"dialect_places: {len(found)} files name a language; {len(problems)} problems")
sys.exit(1 if problems else 0)
