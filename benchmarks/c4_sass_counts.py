"""Instruction counts per kernel from `cuobjdump -sass` output (and registers from `ptxas -v`), as
a Markdown table: the static evidence behind content/c4.md's claims about what each rung issues.

    nvcc -arch=sm_90 -O3 -std=c++17 -cubin -Xptxas -v solutions/c4_sgemm.cu -o c4.cubin 2> ptxas.txt
    cuobjdump -sass c4.cubin > c4.sass
    python3 benchmarks/c4_sass_counts.py c4.sass ptxas.txt

Counts are of instructions in the kernel's code, not executed ones: a fully unrolled tile loop shows
every FFMA of one tile, a loop that was not unrolled shows one trip.
"""

from __future__ import annotations

import collections
import re
import subprocess
import sys

OPS = ("FFMA", "LDS", "LDS.64", "LDS.128", "STS", "STS.128", "LDG.E.CONSTANT", "LDG.E.128.CONSTANT",
       "STG.E", "STG.E.128", "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU", "BAR.SYNC.DEFER_BLOCKING")


def demangle(name: str) -> str:
    try:
        out = subprocess.run(["c++filt"], input=name, capture_output=True, text=True).stdout.strip()
    except OSError:
        return name
    out = re.sub(r"\(anonymous namespace\)::|sweep_copy_\d+::", "", out)
    return re.sub(r"\(float const\*, float const\*, float\*, int, int, int(, int)?\)", "", out)


def counts(sass_path: str) -> dict:
    fn, table = None, collections.OrderedDict()
    for line in open(sass_path, errors="replace"):
        m = re.match(r"\s+Function : (\S+)", line)
        if m:
            fn = m.group(1)
            table[fn] = collections.Counter()
            continue
        m = re.search(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)", line)
        if m and fn:
            table[fn][m.group(1)] += 1
    return table


def registers(ptxas_path: str) -> dict:
    out, fn = {}, None
    for line in open(ptxas_path, errors="replace"):
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            fn = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and fn:
            out[fn] = int(m.group(1))
        m = re.search(r"(\d+) bytes spill stores", line)
        if m and fn and m.group(1) != "0":
            out[fn + "#spill"] = int(m.group(1))
    return out


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    table = counts(argv[0])
    regs = registers(argv[1]) if len(argv) > 1 else {}
    used = [op for op in OPS if any(c[op] for c in table.values())]
    print("| kernel | regs | " + " | ".join(used) + " | FFMA per shared load |")
    print("|---|---|" + "---|" * len(used) + "---|")
    for fn, c in table.items():
        if "fill_kernel" in fn:
            continue
        loads = sum(c[op] for op in ("LDS", "LDS.64", "LDS.128"))
        ratio = f"{c['FFMA'] / loads:.2f}" if loads else ""
        spill = f" (spills {regs[fn + '#spill']} B)" if fn + "#spill" in regs else ""
        print(f"| `{demangle(fn)}` | {regs.get(fn, '')}{spill} | " + " | ".join(str(c[op]) for op in used)
              + f" | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
