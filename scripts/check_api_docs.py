#!/usr/bin/env python3
"""Checks the API docs against the public headers and compiles every C++ snippet of the docs.

The API docs are the guide, docs/API.md, and the reference pages, docs/api/*.md.

  check_api_docs.py names SRC            every public name in runtime/include/duet/*.hpp (types,
                                         functions, members, enumerators) appears in the API
                                         docs (on any of their pages)
  check_api_docs.py snippets SRC OUT CXX FLAGS...
                                         every ```cpp block of README.md and the API docs is
                                         compiled: a block with `int main` as a program, any
                                         other inside a function that has the names the docs'
                                         fragments use (dev, q, n, x, y, kernel, host)
Exit code 1 with the missing names or the compiler's message; 0 when all is well.
"""
import pathlib
import re
import subprocess
import sys

KEYWORDS = {"if", "for", "while", "return", "switch", "sizeof", "static_assert", "operator",
            "decltype", "alignof", "noexcept", "explicit", "constexpr", "template", "const",
            "virtual", "override", "static", "inline", "default", "delete", "typename", "class",
            "struct", "enum", "namespace", "using", "throw", "new", "public", "private",
            "protected", "void", "bool", "int", "double", "float", "long", "char", "auto",
            "unsigned", "std", "duet", "pragma", "include", "define", "endif", "defined", "memcpy",
            "move", "this", "static_cast", "reinterpret_cast"}


def public_names(src: pathlib.Path):
    names = set()
    for h in sorted((src / "runtime/include/duet").glob("*.hpp*")):
        text = h.read_text()
        text = re.sub(r"//[^\n]*", "", text)            # comments
        text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)  # strings
        text = re.sub(r"^\s*#.*$", "", text, flags=re.M)  # preprocessor lines
        # Private sections: from `private:` to the end of the class body (the next `};`).
        text = re.sub(r"private:.*?\n};", "};", text, flags=re.S)
        for m in re.finditer(r"\b(?:class|struct|enum class|enum)\s+([A-Za-z_]\w*)", text):
            names.add(m.group(1))
        for m in re.finditer(r"enum class\s+\w+\s*\{([^}]*)\}", text):
            for e in m.group(1).split(","):
                e = e.split("=")[0].strip()
                if e:
                    names.add(e)
        for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", text):  # functions and constructors
            names.add(m.group(1))
        # Data members and constants: `type name;`, `type name = value;`, `type name{...};`
        for m in re.finditer(r"[\w>:\]]\s+\*?&?([A-Za-z_]\w*)\s*(?:=[^;]*|\{[^;]*\})?;", text):
            names.add(m.group(1))
    return {n for n in names if n not in KEYWORDS and not n.endswith("_") and len(n) > 1
            and not n.startswith("__")}


def api_docs(src: pathlib.Path):
    """The API docs, relative to SRC: the guide, then the reference pages."""
    return ["docs/API.md"] + sorted(str(p.relative_to(src)) for p in (src / "docs/api").glob("*.md"))


def check_names(src: pathlib.Path) -> int:
    docs = api_docs(src)
    text = "\n".join((src / d).read_text() for d in docs)
    where = " and ".join(docs)
    missing = sorted(n for n in public_names(src) if not re.search(r"\b" + re.escape(n) + r"\b", text))
    if missing:
        print(f"no API doc ({where}) mentions these public names from runtime/include/duet/:")
        for n in missing:
            print("  " + n)
        print("document them (the guide, docs/API.md, or the reference under docs/api/), or make "
              "them private")
        return 1
    print(f"the API docs ({where}) mention all {len(public_names(src))} public names")
    return 0


FRAGMENT_PRELUDE = """#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>
#include <duet/duet.hpp>
// The names the docs' fragments take as given.
[[maybe_unused]] static void fragment(duet::Device& dev, std::unique_ptr<duet::Queue>& q,
                                      std::unique_ptr<duet::Buffer>& x,
                                      std::unique_ptr<duet::Buffer>& y,
                                      std::unique_ptr<duet::Kernel>& kernel,
                                      std::vector<float>& host, int n) {
    (void)dev; (void)q; (void)x; (void)y; (void)kernel; (void)host; (void)n;
"""


def check_snippets(src: pathlib.Path, out: pathlib.Path, cxx: str, flags) -> int:
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    count = 0
    for doc in ["README.md"] + api_docs(src):
        text = (src / doc).read_text()
        for i, m in enumerate(re.finditer(r"^```cpp\n(.*?)^```", text, flags=re.S | re.M)):
            body = m.group(1)
            line = text[: m.start()].count("\n") + 1
            name = out / f"{doc.replace('/', '_').replace('.md', '')}_{i}.cpp"
            program = re.search(r"\bint main\s*\(", body) is not None
            if program:  # compiled to an object: what it calls is declared as used
                code = "#include <cstdio>\n#include <vector>\n" + body
                cmd = [cxx, *flags, "-c", str(name), "-o", str(name.with_suffix(".o"))]
            else:
                code = FRAGMENT_PRELUDE + body + "\n}\n"
                cmd = [cxx, *flags, "-fsyntax-only", str(name)]
            name.write_text(code)
            count += 1
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode != 0:
                failed += 1
                print(f"{doc}:{line}: this ```cpp block does not compile "
                      f"({'program' if program else 'fragment'}; {name}):\n{r.stderr}")
    print(f"{count} C++ snippets compiled, {failed} failed")
    return 1 if failed or count == 0 else 0


def main(argv):
    if len(argv) >= 3 and argv[1] == "names":
        return check_names(pathlib.Path(argv[2]))
    if len(argv) >= 5 and argv[1] == "snippets":
        return check_snippets(pathlib.Path(argv[2]), pathlib.Path(argv[3]), argv[4], argv[5:])
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
