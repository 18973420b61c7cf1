#!/usr/bin/env python3
"""The static schedule of the 2048-FFMA loops in sm_90 cubins, without cuobjdump.

  python3 bench/cubin_loop.py A.cubin [B.cubin ...]

For each kernel (an ELF section .text.NAME) and each loop that holds `--ffma` FFMAs (best's
16-deep tile of 8x16 per thread: 2048), it prints the loop's instructions (CS2R zeroing left out),
the sum of their stall counts (the cycles ptxas makes each wait before the next issues), how many
have each stall count, and its LDS, LDL and STL. On the H100 a loop whose shared-memory reads come
in bursts (many instructions with a stall of 4) ran 5-7% slower than best's
(docs/PERFORMANCE-SGEMM.md). Decoding: a 128-bit instruction, opcode in bits 0-11 (FFMA 0x223,
LDS 0x984, BRA 0x947, BAR 0xb1d, CS2R 0x805), stall count in bits 105-108, a branch's offset in
bits 24-81 (bytes, from the next instruction).
"""
import argparse
import struct
from collections import Counter

FFMA, LDS, LDL, STL, BRA, CS2R = 0x223, 0x984, 0x983, 0x387, 0x947, 0x805


def sections(path):
    data = open(path, 'rb').read()
    if data[:4] != b'\x7fELF':
        raise SystemExit(f"{path}: not an ELF file (a cubin from ptxas or NVRTC)")
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    heads = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx][4]
    out = {}
    for h in heads:
        name = data[names + h[0]:data.index(b'\0', names + h[0])].decode()
        out[name] = data[h[4]:h[4] + h[5]]
    return out


def words(code):
    return [struct.unpack_from('<QQ', code, i) for i in range(0, len(code) - 15, 16)]


def branch_target(i, lo, hi):
    v = (((hi << 64) | lo) >> 24) & ((1 << 58) - 1)
    if v >> 57:
        v -= 1 << 58
    return i + 1 + v // 16


def loops(w, nffma):
    ffma = [i for i, (lo, _) in enumerate(w) if lo & 0xfff == FFMA]
    for j in range(0, len(ffma) - nffma + 1, nffma):
        first, last = ffma[j], ffma[j + nffma - 1]
        end = last
        while end < len(w) - 1 and w[end][0] & 0xfff != BRA:
            end += 1
        target = branch_target(end, *w[end])
        start = target if target <= first else first
        body = [x for x in w[start:end + 1] if x[0] & 0xfff != CS2R]
        stalls = [(hi >> 41) & 0xf for _, hi in body]
        ops = Counter(lo & 0xfff for lo, _ in body)
        yield start, end, len(body), sum(stalls), sorted(Counter(stalls).items()), ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('cubins', nargs='+')
    ap.add_argument('--ffma', type=int, default=2048, help="FFMAs in one pass of the loop")
    a = ap.parse_args()
    for path in a.cubins:
        for name, code in sections(path).items():
            if not name.startswith('.text.'):
                continue
            for start, end, n, stall, hist, ops in loops(words(code), a.ffma):
                print(f"{path} {name[6:]} [{start},{end}] instructions {n} stall cycles {stall} "
                      f"LDS {ops[LDS]} LDL {ops[LDL]} STL {ops[STL]} stall counts {hist}")


if __name__ == '__main__':
    main()
