"""The hostile inputs of the probe campaign (bench/probe_campaign.py): a foreign plugin whose
constructor writes a marker file, result files made to exhaust memory or loop, kernel trees made
to crash or exhaust the scanner, and copies of the shipped kernels with one wrong line.
"""
import json
import os
import shutil
import subprocess

EVIL_C = r"""
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void ran(void) {
    int fd = open(MARKER, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) { (void)!write(fd, "ran\n", 4); close(fd); }
}
"""


def evil_plugin(work, marker):
    """A shared object that writes `marker` when it is opened; its path."""
    src = os.path.join(work, "evil.c")
    lib = os.path.join(work, "libduet_evil.so")
    with open(src, "w") as f:
        f.write(EVIL_C)
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", f'-DMARKER="{marker}"', "-o", lib, src],
                   check=True)
    return lib


def mkdir(path, mode=0o755):
    os.makedirs(path, exist_ok=True)
    os.chmod(path, mode)
    return path


# ---- result files --------------------------------------------------------------------------

def row(i=0, **over):
    r = {"app": "vecadd", "variant": "naive", "backend": "opencl", "device_id": "opencl:0",
         "device": "PoCL CPU", "size": "1048576", "status": "pass",
         "kernel_ms": {"median": 1.5, "runs": 5}, "clock": "device events",
         "effective_gbs": 8.4, "verified": True, "pass": True}
    r.update(over)
    return r


def document(rows):
    return {"schema": "duet-results", "schema_version": 1, "time": "2026-11-27",
            "command": "runapp compare", "machine": {"host": "probe", "cpus": 2},
            "devices": [{"index": 0, "id": "opencl:0", "name": "PoCL CPU", "backend": "opencl"}],
            "results": rows}


def write_json(path, doc):
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def write_text(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def result_files(d, quick):
    """Hostile result files: {name: path}."""
    mkdir(d)
    files = {}
    files["ok"] = write_json(f"{d}/ok.json", document([row(), row(variant="vec4")]))
    files["1.7e308"] = write_json(f"{d}/huge.json", document(
        [row(), row(variant="vec4", kernel_ms={"median": 1.7e308, "runs": 5},
                    effective_gbs=1.7e308, gflops=1.7e308)]))
    files["tiny 4e-324"] = write_json(f"{d}/tiny.json", document(
        [row(), row(variant="vec4", kernel_ms={"median": 4e-324, "runs": 1}, effective_gbs=4e-324)]))
    files["negative"] = write_json(f"{d}/negative.json", document(
        [row(kernel_ms={"median": -1e300, "runs": -5}, effective_gbs=-1e308)]))
    # inf/nan as strings and as bare tokens (the latter is not JSON)
    files["inf strings"] = write_json(f"{d}/infstr.json", document(
        [row(kernel_ms={"median": "inf", "runs": "nan"}, effective_gbs="-inf")]))
    text = json.dumps(document([row(effective_gbs=1.0)])).replace("1.0", "Infinity")
    files["Infinity token"] = write_text(f"{d}/inftok.json", text)
    files["NaN token"] = write_text(f"{d}/nantok.json", text.replace("Infinity", "NaN"))
    depth = 100000
    files["deep nesting"] = write_text(f"{d}/deep.json", '{"schema":"duet-results","results":'
                                       + "[" * depth + "]" * depth + "}")
    files["deep objects"] = write_text(f"{d}/deepobj.json", '{"a":' * depth + "1" + "}" * depth)
    files["wrong types"] = write_json(f"{d}/types.json", document(
        [row(app=5, variant=["x"], size={"a": 1}, kernel_ms=[1, 2], verified="yes"),
         {"app": None}, 7, "row", [], row(kernel_ms={"median": {"x": 1}})]))
    files["results not a list"] = write_json(f"{d}/notlist.json", {**document([]), "results": "x"})
    files["schema wrong"] = write_json(f"{d}/schema.json", {**document([row()]), "schema": 3})
    files["invalid UTF-8"] = f"{d}/utf8.json"
    with open(files["invalid UTF-8"], "wb") as f:
        f.write(json.dumps(document([row(variant="X")])).encode().replace(b'"X"', b'"\xff\xfe\xc0"'))
    files["NUL bytes"] = f"{d}/nul.json"
    with open(files["NUL bytes"], "wb") as f:
        f.write(json.dumps(document([row()])).encode()[:100] + b"\0" * 1000)
    files["forged lines"] = write_json(f"{d}/forge.json", document(
        [row(variant="naive\nvecadd  FAKE  PASS\n\x1b[2J", device="=HYPERLINK(\"http://x\")",
             note="a,b,\"c\"\r\n=1+1")]))
    files["long strings"] = write_json(f"{d}/long.json", document(
        [row(variant="v" * (4 << 20), note="n" * (4 << 20))]))
    rows = 400 if quick else 4000
    files[f"{rows} sparse rows"] = write_json(f"{d}/sparse.json", document(
        [row(variant=f"v{i}", device_id=f"opencl:{i}", device=f"dev {i}", size=str(1000 + i))
         for i in range(rows)]))
    rows = 2000 if quick else 40000
    files[f"{rows} dense rows"] = write_json(f"{d}/dense.json", document(
        [row(variant=f"v{i % 50}", size=str(1000 + i // 50)) for i in range(rows)]))
    mb = 5 if quick else 50
    files[f"{mb} MB of {{}}"] = f"{d}/empties.json"
    with open(files[f"{mb} MB of {{}}"], "w") as f:
        f.write('{"schema":"duet-results","schema_version":1,"results":[')
        f.write(",".join(["{}"] * (mb * (1 << 20) // 3)))
        f.write("]}")
    files[f"{mb} MB of [[]]"] = f"{d}/arrays.json"
    with open(files[f"{mb} MB of [[]]"], "w") as f:
        f.write('{"schema":"duet-results","results":[' + ",".join(["[[]]"] * (mb * (1 << 20) // 5))
                + "]}")
    files[f"{mb} MB of [0]"] = f"{d}/ones.json"
    with open(files[f"{mb} MB of [0]"], "w") as f:
        f.write('{"schema":"duet-results","results":[' + ",".join(["[0]"] * (mb * (1 << 20) // 4))
                + "]}")
    files[f"{mb} MB of 0"] = f"{d}/zeros.json"
    with open(files[f"{mb} MB of 0"], "w") as f:
        f.write('{"schema":"duet-results","results":[' + ",".join(["0"] * (mb * (1 << 20) // 2))
                + "]}")
    files["300 MB sparse file"] = f"{d}/big.json"
    with open(files["300 MB sparse file"], "wb") as f:
        f.truncate(300 << 20)
    fifo = f"{d}/fifo.json"
    if not os.path.exists(fifo):
        os.mkfifo(fifo)
    files["FIFO"] = fifo
    files["/dev/zero"] = "/dev/zero"
    files["directory"] = d
    return files


# ---- kernel trees --------------------------------------------------------------------------

def shipped_copy(src_kernels, dst, mode=0o755):
    """A copy of the shipped kernels_cl under dst/kernels_cl; the copy's path."""
    k = os.path.join(dst, "kernels_cl")
    if os.path.exists(dst):
        shutil.rmtree(dst)
    shutil.copytree(src_kernels, k)
    os.chmod(dst, mode)
    return k


def changed_kernels(src_kernels, dst, file, old, new):
    """DUET_KERNEL_DIR whose `file` has `old` replaced by `new` (which must be there)."""
    k = shipped_copy(src_kernels, dst)
    p = os.path.join(k, file)
    text = open(p).read()
    if old not in text:
        raise SystemExit(f"probe_inputs: {file} no longer holds {old!r}; update the campaign")
    write_text(p, text.replace(old, new, 1))
    return dst


def kernel_trees(src_kernels, d):
    """Hostile DUET_KERNEL_DIR trees, each a copy of the shipped one with vecadd.cl changed:
    {name: (dir, the hostile file)}."""
    trees = {}

    def tree(name, prelude, extra=None):
        root = os.path.join(d, name.replace(" ", "_").replace("/", "_"))
        k = shipped_copy(src_kernels, root)
        p = os.path.join(k, "vecadd.cl")
        text = open(p).read()
        write_text(p, prelude + text)
        for fname, content in (extra or {}).items():
            if callable(content):
                content(os.path.join(k, fname))
            else:
                write_text(os.path.join(k, fname), content)
        trees[name] = (root, p)

    bomb = {f"b{i}.h": "\n".join([f'#include "b{i + 1}.h"'] * 30) + "\n" for i in range(8)}
    bomb["b8.h"] = "#define BOMB 1\n"
    tree("include bomb", '#include "b0.h"\n', bomb)
    tree("include cycle", '#include "self.h"\n', {"self.h": '#include "self.h"\n'})
    tree("100k-char include", '#include "' + "a" * 100000 + '.h"\n')
    tree("100k-char line", "// " + "x" * 100000 + "\n")
    tree("long kernel name", "__kernel void " + "k" * 60000 + "(__global float* x) { }\n")
    tree("absolute include", '#include "/etc/passwd"\n')
    tree("include traversal", '#include "../../../../../../etc/shadow"\n')
    tree("unclosed attribute", "__attribute__((" + "(" * 20000 + "\n")

    def sparse_gib(p):
        with open(p, "wb") as f:
            f.truncate(1 << 30)

    tree("unused 1 GiB header", "", {"unused.h": sparse_gib})
    tree("included 1 GiB header", '#include "unused.h"\n', {"unused.h": sparse_gib})

    def big(p):
        with open(p, "w") as f:
            f.write(("// filler line\n" * 1400000))  # about 20 MB

    tree("20 MB kernel file", "", {"matmul_naive.cl": big})

    def fifo(p):
        if os.path.exists(p):
            os.unlink(p)
        os.mkfifo(p)

    tree("FIFO header", '#include "pipe.h"\n', {"pipe.h": fifo})
    tree("FIFO kernel file", "", {"reduction.cl": fifo})
    return trees
