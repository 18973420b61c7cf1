#!/usr/bin/env python3
"""The static schedule of the 2048-FFMA loops in sm_90 cubins, without cuobjdump.

  python3 bench/cubin_loop.py A.cubin [B.cubin ...]

For each kernel (an ELF section .text.NAME) and each loop that holds `--ffma` FFMAs (best's
16-deep tile of 8x16 per thread: 2048), it prints the loop's instructions (CS2R zeroing left out),
the sum of their stall counts (the cycles ptxas makes each wait before the next issues), how many
have each stall count, its LDS, LDL and STL, and its bank clashes: FFMAs two of whose sources not
taken from the operand reuse cache lie in the same register bank (two banks, register number mod
2; a source is taken from the cache where the FFMA before used the same register in the same slot
and flagged it .reuse). On the H100 a loop whose shared-memory reads come in bursts (many
instructions with a stall of 4) ran 5-7% slower than best's (docs/design/sgemm.md), and one
with more clashes slower too, as ncu's "dispatch stall" (docs/design/sgemm.md). Decoding: a 128-bit instruction, opcode in bits 0-11 (FFMA 0x223,
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
        yield start, end, len(body), sum(stalls), sorted(Counter(stalls).items()), ops, clashes(body)


def clashes(body):
    """FFMAs with two sources outside the reuse cache in one register bank (module doc)."""
    n, before = 0, None  # the FFMA just before: its (a, b, c) registers and reuse flags
    for lo, hi in body:
        if lo & 0xfff != FFMA:
            before = None
            continue
        regs = ((lo >> 24) & 0xff, (lo >> 32) & 0xff, hi & 0xff)  # RZ is 255
        reuse = ((hi >> 58) & 1, (hi >> 59) & 1, (hi >> 60) & 1)
        read = [r for s, r in enumerate(regs)
                if r != 255 and not (before and before[0][s] == r and before[1][s])]
        n += max(Counter(r % 2 for r in read).values(), default=0) >= 2
        before = (regs, reuse)
    return n


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('cubins', nargs='+')
    ap.add_argument('--ffma', type=int, default=2048, help="FFMAs in one pass of the loop")
    a = ap.parse_args()
    for path in a.cubins:
        for name, code in sections(path).items():
            if not name.startswith('.text.'):
                continue
            for start, end, n, stall, hist, ops, bank in loops(words(code), a.ffma):
                print(f"{path} {name[6:]} [{start},{end}] instructions {n} stall cycles {stall} "
                      f"bank clashes {bank} LDS {ops[LDS]} LDL {ops[LDL]} STL {ops[STL]} "
                      f"stall counts {hist}")


if __name__ == '__main__':
    main()
