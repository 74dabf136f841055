#!/usr/bin/env python3
"""What ptxas made of each PTX instruction: the evidence behind the simulator's issue counts.

    python3 sim/model/sass_corpus.py FILE.cu ... [--json OUT] [--branches] [--weights]

Each file is compiled for sm_90 with -lineinfo; the cubin then carries the PTX that ptxas compiled
(section .nv_debug_ptx_txt) and, per SASS instruction, the PTX line it came from
(.nv_debug_line_sass, printed by `nvdisasm -gp`). This pairs every PTX instruction with its SASS
instructions, which answers per kernel:

  - which conditional forward branches survive as branches (BRA, or @P EXIT when the branch
    skips to the return) and which ptxas if-converts into predicated instructions, so that a warp
    whose lanes are all off still issues the body (--branches);
  - which pairs of adjacent shared-memory accesses ptxas merges into one 64- or 128-bit access;
  - how many SASS instructions each PTX opcode becomes (--weights).

Needs nvcc and nvdisasm (CUDA toolkit; nvdisasm is looked for on PATH, next to nvcc, and in
$NVDISASM). The simulator does not need this at run time: the rules it applies (sim/engine/
frontend.cpp, issue_model) were derived from this corpus, and tests/test_sass_corpus.py checks
them against it when nvdisasm is available.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def tool(name: str) -> str | None:
    env = os.environ.get(name.upper())
    if env and Path(env).exists():
        return env
    found = shutil.which(name)
    if found:
        return found
    cuda = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"))
    for candidate in (cuda / "bin" / name, Path(shutil.which("nvcc") or "/nonexistent").parent / name):
        if candidate.exists():
            return str(candidate)
    return None


def elf_sections(data: bytes) -> dict[str, bytes]:
    """Section name -> contents of a 64-bit little-endian ELF (a cubin)."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    heads = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = heads[shstrndx]
    strtab = data[names[4]:names[4] + names[5]]
    out = {}
    for h in heads:
        name = strtab[h[0]:strtab.index(b"\0", h[0])].decode()
        out[name] = data[h[4]:h[4] + h[5]] if h[1] != 8 else b""  # SHT_NOBITS has no bytes
    return out


# ---- PTX ----

INSTR = re.compile(r"^\s*(@!?%\w+\s+)?([a-z][\w.]*)\b(.*?);")
LABEL = re.compile(r"^\s*(\$?[\w$]+):")


class PtxInstr:
    def __init__(self, line: int, text: str, guard: str, op: str, args: str):
        self.line, self.text, self.guard, self.op, self.args = line, text.strip(), guard.strip(), op, args.strip()
        self.sass: list[str] = []

    @property
    def base(self) -> str:
        return self.op.split(".")[0]

    def space(self) -> str:
        parts = self.op.split(".")
        for s in ("global", "shared", "local", "param", "const"):
            if s in parts:
                return s
        return "generic" if self.base in ("ld", "st", "atom", "red") else ""


def ptx_functions(text: str) -> dict[str, dict]:
    """{name: {"instrs": [PtxInstr], "labels": {label: index of the next instruction}}}."""
    funcs, cur = {}, None
    depth = 0
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("//")[0]
        m = re.search(r"\.(?:visible\s+|weak\s+)?(?:entry|func)\s+(?:\([^)]*\)\s*)?([\w$]+)", line)
        if m and depth == 0:
            cur = {"name": m[1], "instrs": [], "labels": {}}
            funcs[m[1]] = cur
        depth += line.count("{") - line.count("}")
        if cur is None or depth == 0:
            continue
        lm = LABEL.match(line)
        if lm:
            cur["labels"][lm[1]] = len(cur["instrs"])
            line = line[lm.end():]
        im = INSTR.match(line)
        if im and not line.strip().startswith("."):
            cur["instrs"].append(PtxInstr(n, line, im[1] or "", im[2], im[3]))
    return funcs


# ---- SASS ----

SASS_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
PTX_LOC = re.compile(r'//## File "\.nv_debug_ptx_txt", line (\d+)')
FUNC = re.compile(r"^\.text\.([\w$]+):")


def sass_by_ptx_line(listing: str) -> dict[str, list[tuple[int, str]]]:
    """{function: [(ptx line, SASS instruction), ...]} from `nvdisasm -gp -c`."""
    out: dict[str, list] = {}
    func, ptx_line = None, 0
    for raw in listing.splitlines():
        m = FUNC.match(raw.strip())
        if m:
            func, ptx_line = m[1], 0
            out[func] = []
            continue
        m = PTX_LOC.search(raw)
        if m:
            ptx_line = int(m[1])
            continue
        m = SASS_LINE.match(raw)
        if m and func:
            out[func].append((ptx_line, m[2].strip()))
    return out


def sass_opcode(ins: str) -> tuple[str, bool]:
    """('LDS.64', predicated?) for '@!P0 LDS.64 R6, [R4]'."""
    pred = ins.startswith("@")
    body = ins.split(None, 1)[1] if pred else ins
    return body.split()[0], pred


# ---- one file ----

def analyse(source: Path, nvcc: str, nvdisasm: str, extra: list[str] | None = None) -> dict:
    with tempfile.TemporaryDirectory(prefix="drills-sass-") as tmp:
        cubin = Path(tmp) / "k.cubin"
        cmd = [nvcc, "-O3", "-arch=sm_90", "-lineinfo", "-std=c++17", "-cubin", "-o", str(cubin), str(source), *(extra or [])]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            return {"source": str(source), "error": p.stderr[-2000:]}
        sections = elf_sections(cubin.read_bytes())
        ptx = sections.get(".nv_debug_ptx_txt", b"").decode(errors="replace").replace("\0", "\n")
        listing = subprocess.run([nvdisasm, "-gp", "-c", str(cubin)], capture_output=True, text=True).stdout
    funcs = ptx_functions(ptx)
    by_line = sass_by_ptx_line(listing)
    kernels = {}
    for name, sass in by_line.items():
        f = funcs.get(name)
        if not f:
            continue
        at_line = {ins.line: ins for ins in f["instrs"]}
        for line, ins in sass:
            if line in at_line:
                at_line[line].sass.append(ins)
        kernels[name] = f
    return {"source": str(source), "kernels": kernels}


def branch_facts(f: dict) -> list[dict]:
    """Every conditional forward branch: its body and what ptxas made of it."""
    out = []
    instrs, labels = f["instrs"], f["labels"]
    for i, ins in enumerate(instrs):
        if ins.base != "bra" or not ins.guard:
            continue
        target = labels.get(ins.args.split()[-1].strip())
        if target is None or target <= i:
            continue
        body = instrs[i + 1:target]
        ops = [sass_opcode(s)[0] for s in ins.sass]
        kind = "predicated"
        if any(o.startswith("BRA") for o in ops):
            kind = "branch"
        elif any(o == "EXIT" for o in ops):
            kind = "exit"
        after = instrs[target] if target < len(instrs) else None
        out.append({
            "line": ins.line, "text": ins.text, "body": len(body), "kind": kind,
            "sass_at_branch": ins.sass,
            "to_ret": after is not None and after.base in ("ret", "exit"),
            "body_ops": Counter(b.op.split(".")[0] + ("." + b.space() if b.space() else "") for b in body),
            "nested": any(b.base in ("bra", "bar", "barrier", "call", "ret", "exit") for b in body),
        })
    return out


def engine_rule(b: dict) -> bool:
    """sim/engine/issue.cpp's if_converted(), on a branch_facts() row: the two must agree."""
    ops = b["body_ops"]
    if b["nested"] or b["to_ret"] or any(o.split(".")[0] in ("shfl", "vote", "redux", "activemask", "membar")
                                         for o in ops):
        return False
    lds = "ld.shared" in ops
    ldg = any(o in ops for o in ("ld.global", "ld.generic"))
    stg = any(o in ops for o in ("st.global", "st.generic", "atom.global", "atom.generic", "red.global", "red.generic"))
    n = b["body"] - sum(v for o, v in ops.items() if o.split(".")[0] == "cvta")  # cvta folds into addresses
    if stg and not ldg:
        return n <= (3 if lds else 10)
    if stg:
        return n <= 10
    return n <= 15


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--json", type=Path, help="write the per-kernel pairing here")
    ap.add_argument("--branches", action="store_true", help="print every conditional forward branch")
    ap.add_argument("--weights", action="store_true", help="print SASS instructions per PTX opcode")
    ap.add_argument("--check", action="store_true", help="how often the engine's if-conversion rule agrees")
    opts = ap.parse_args(argv)
    nvcc, nvdisasm = tool("nvcc"), tool("nvdisasm")
    if not nvcc or not nvdisasm:
        print(f"sass_corpus.py: needs nvcc ({nvcc}) and nvdisasm ({nvdisasm})")
        return 2
    results = [analyse(f, nvcc, nvdisasm) for f in opts.files]
    weights = defaultdict(Counter)
    agree = Counter()
    dump = []
    for r in results:
        if "error" in r:
            print(f"{r['source']}: build failed\n{r['error']}")
            continue
        for name, f in r["kernels"].items():
            for b in branch_facts(f):
                agree[(engine_rule(b), b["kind"] == "predicated")] += 1
            if opts.branches:
                for b in branch_facts(f):
                    print(f"{Path(r['source']).name}:{name[:40]:40} L{b['line']:<5} body {b['body']:3} "
                          f"{b['kind']:10} to_ret={b['to_ret']!s:5} nested={b['nested']!s:5} "
                          f"{dict(b['body_ops'])}")
            for ins in f["instrs"]:
                key = ins.op if ins.base in ("ld", "st", "atom", "red", "cvt", "mov", "setp") else ins.base
                weights[key][len(ins.sass)] += 1
            dump.append({"source": r["source"], "kernel": name,
                         "instrs": [{"line": i.line, "ptx": i.text, "sass": i.sass} for i in f["instrs"]]})
    if opts.weights:
        for op, hist in sorted(weights.items(), key=lambda kv: -sum(kv[1].values())):
            total = sum(hist.values())
            mean = sum(k * v for k, v in hist.items()) / total
            print(f"{op:28} n={total:5} mean {mean:.2f} {dict(sorted(hist.items()))}")
    if opts.check:
        total = sum(agree.values())
        right = agree[(True, True)] + agree[(False, False)]
        print(f"if-conversion: {total} conditional forward branches, {agree[(True, True)] + agree[(False, True)]} "
              f"predicated by ptxas; the engine's rule agrees on {right} "
              f"(predicts a branch for {agree[(False, True)]} predicated bodies, predication for "
              f"{agree[(True, False)]} branches)")
    if opts.json:
        opts.json.write_text(json.dumps(dump, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
