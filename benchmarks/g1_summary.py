"""The tables of one benchmarks/h200/g1.sh run, from the CSVs it leaves in its work folder.

    python3 benchmarks/g1_summary.py WORK_DIR
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path


def rows(path: Path) -> list[dict]:
    if not path.exists():
        return []
    text = path.read_text(errors="replace")
    return list(csv.DictReader(io.StringIO(text)))


def shape(r: dict) -> str:
    return f"{r['M']}x{r['N']}x{r['K']}"


def ladder(work: Path) -> str:
    data = rows(work / "time.csv")
    if not data:
        return "time: no results\n"
    shapes = list(dict.fromkeys(shape(r) for r in data))
    names = list(dict.fromkeys(r["variant"] for r in data))
    out = ["| variant | " + " | ".join(f"{s} TFLOP/s | % cuBLAS" for s in shapes) + " |",
           "|---|" + "---|---|" * len(shapes)]
    for n in names:
        cells = []
        for s in shapes:
            r = next((r for r in data if r["variant"] == n and shape(r) == s), None)
            cells += [r["tflops"], r["pct_cublas"]] if r else ["", ""]
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def sweep(work: Path, top: int = 6) -> str:
    data = rows(work / "sweep.csv")
    if not data:
        return "sweep: no results\n"
    out = []
    for s in dict.fromkeys(shape(r) for r in data):
        here = [r for r in data if shape(r) == s and r["config"] != "cublas"]
        here.sort(key=lambda r: -float(r["tflops"]))
        cub = next((r for r in data if shape(r) == s and r["config"] == "cublas"), None)
        out.append(f"{s}: cuBLAS {cub['tflops'] if cub else '?'} TFLOP/s; best of {len(here)}:")
        for r in here[:top]:
            out.append(f"  {r['config']:28s} {float(r['tflops']):7.1f} TFLOP/s  {float(r['pct_cublas']):5.1f}% "
                       f"({r['threads']} threads, {int(r['smem_bytes']) // 1024} KiB)")
        if here:
            r = here[-1]
            out.append(f"  worst: {r['config']} {float(r['tflops']):.1f} TFLOP/s")
    return "\n".join(out) + "\n"


def check(work: Path) -> str:
    data = rows(work / "check.csv")
    if not data:
        return "check: no results\n"
    bad = [r for r in data if int(r["bad"] or 0) > 0]
    worst = max((float(r["max_err_over_tol"] or 0) for r in data), default=0)
    lines = [f"check: {len(data)} (variant, shape) pairs, {len(bad)} failing; largest error/tolerance {worst:.3g}"]
    for r in bad[:20]:
        lines.append(f"  FAIL {r['variant']} {shape(r)}: {r['bad']} bad, {r['nan']} NaN; {r['first_mismatch']}")
    big_k = [r for r in data if r["K"] == "8192"]
    for r in big_k:
        lines.append(f"  K=8192 {r['variant']}: max error {r['max_err']}, error/tolerance {r['max_err_over_tol']}")
    return "\n".join(lines) + "\n"


def peak(work: Path) -> str:
    data = rows(work / "peak.csv")
    if not data:
        return "peak: no results\n"
    best = max(data, key=lambda r: float(r["tflops"]))
    lines = ["mma.sync m16n8k16 f32-accumulate, operands in registers:"]
    lines += [f"  {r['chains']} chains x {r['warps_per_block']} warps x {r['blocks']} blocks: {r['tflops']} TFLOP/s"
              for r in data]
    lines.append(f"  ceiling: {best['tflops']} TFLOP/s")
    return "\n".join(lines) + "\n"


def ncu(work: Path) -> str:
    path = work / "ncu.csv"
    if not path.exists():
        return "ncu: no results\n"
    text = path.read_text(errors="replace")
    start = text.find('"ID"')
    if start < 0:
        return "ncu: no table in ncu.csv\n"
    data = list(csv.DictReader(io.StringIO(text[start:])))
    kernels: dict[str, dict[str, str]] = {}
    for r in data:
        key = f"{r.get('ID', '?')} {r.get('Kernel Name', '?')[:60]}"
        kernels.setdefault(key, {})[r.get("Metric Name", "?")] = f"{r.get('Metric Value', '')} {r.get('Metric Unit', '')}"
    lines = ["ncu (one launch each at 4096^3, in launch order: wmma, mma_unswizzled, mma, cp_async, multistage, "
             "fast, cuBLAS..., best sweep config):"]
    for k, metrics in kernels.items():
        lines.append(f"  {k}")
        for m, v in sorted(metrics.items()):
            lines.append(f"      {m:75s} {v}")
    return "\n".join(lines) + "\n"


def sanitizer(work: Path) -> str:
    lines = []
    for tool in ("racecheck", "memcheck"):
        path = work / f"{tool}.txt"
        if not path.exists():
            lines.append(f"{tool}: not run")
            continue
        tail = [ln for ln in path.read_text(errors="replace").splitlines() if "ERROR SUMMARY" in ln or "RACECHECK SUMMARY" in ln
                or "small:" in ln]
        lines.append(f"{tool}: " + ("; ".join(tail) if tail else "no summary line"))
    return "\n".join(lines) + "\n"


def main() -> int:
    work = Path(sys.argv[1])
    env = (work / "env.txt").read_text(errors="replace") if (work / "env.txt").exists() else ""
    print("# G1 on the GPU\n")
    print(env)
    print(check(work))
    print(peak(work))
    print("## The ladder against cublasGemmEx (f16 in, f32 out), same run\n")
    print(ladder(work))
    print("## Tuning sweep of the pipelined kernel\n")
    print(sweep(work))
    print(sanitizer(work))
    ptxas = work / "ptxas_summary.txt"
    if ptxas.exists():
        print("## ptxas (registers, spills)\n")
        print(ptxas.read_text(errors="replace"))
    print(ncu(work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
