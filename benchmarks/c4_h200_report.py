"""Markdown tables from one run of benchmarks/h200/c4.sh (its $OUT/c4 folder): the ladder, the sweep's
best configurations per shape, Nsight Compute's key metrics, the correctness check and the sanitizers.

    python3 benchmarks/c4_h200_report.py OUT/c4 > benchmarks/h200-c4-DATE.md   (then add the header)
"""

from __future__ import annotations

import collections
import csv
import sys
from pathlib import Path

SHAPES = ["4096x4096x4096", "4096x2048x1024", "4095x2047x1023", "128x4096x4096"]


def ladder(d: Path) -> None:
    rows = list(csv.DictReader(open(d / "ladder.csv")))
    by = collections.defaultdict(dict)
    for r in rows:
        by[r["variant"]][r["shape"]] = r
    print("| variant | " + " | ".join(f"{s} TFLOP/s | {s} % cuBLAS" for s in SHAPES) + " |")
    print("|---|" + "---|---|" * len(SHAPES))
    for v, per in by.items():
        cells = []
        for s in SHAPES:
            r = per.get(s)
            cells += [f"{float(r['tflops']):.2f}", f"{float(r['pct_cublas']):.1f}"] if r else ["", ""]
        print(f"| `{v}` | " + " | ".join(cells) + " |")


def sweep(d: Path, top: int = 5) -> None:
    path = d / "sweep.csv"
    if not path.exists():
        return
    rows = list(csv.DictReader(open(path)))
    for s in SHAPES:
        rs = sorted((r for r in rows if r["shape"] == s), key=lambda r: float(r["median_ms"]))[:top]
        if not rs:
            continue
        print(f"\n{s}, the {top} fastest (configuration: block tile BMxBNxBK, warp tile, lanes, stages, min blocks/SM):\n")
        print("| configuration | group | slices | TFLOP/s | % cuBLAS |")
        print("|---|---|---|---|---|")
        for r in rs:
            print(f"| {r['config']} | {r['group']} | {r.get('slices', '1')} | {float(r['tflops']):.2f} | {r['pct_cublas']} |")


KEYS = [("µs", "gpu__time_duration.sum", 1e-3), ("regs", "launch__registers_per_thread", 1),
        ("warps active %", "sm__warps_active.avg.pct_of_peak_sustained_active", 1),
        ("FMA pipe %", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", 1),
        ("issue %", "smsp__issue_active.avg.pct_of_peak_sustained_active", 1),
        ("FFMA per shared load", None, 0), ("shared wavefronts per load", None, 0),
        ("stall long scoreboard", "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio", 1),
        ("stall mio throttle", "smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio", 1),
        ("stall barrier", "smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio", 1),
        ("global sectors per request", None, 0)]


def _num(s: str) -> float:
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return float("nan")


def ncu(d: Path) -> None:
    for name, shape in (("ncu_ladder.csv", "2048³"), ("ncu_4096.csv", "4096³"), ("ncu_odd.csv", "4095×2047×1023")):
        path = d / name
        if not path.exists():
            continue
        rows = list(csv.reader(open(path)))
        try:
            hi = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
        except StopIteration:
            continue
        col = {h: i for i, h in enumerate(rows[hi])}
        print(f"\n{shape} (`{name}`):\n")
        print("| kernel | " + " | ".join(k for k, _, _ in KEYS) + " |")
        print("|---|" + "---|" * len(KEYS))
        for r in rows[hi + 2:]:
            g = lambda m: _num(r[col[m]]) if m in col else float("nan")
            cells = []
            for label, metric, scale in KEYS:
                if label == "FFMA per shared load":
                    v = g("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum") / 32 / max(g("smsp__inst_executed_op_shared_ld.sum"), 1)
                elif label == "shared wavefronts per load":
                    v = g("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") / max(g("smsp__inst_executed_op_shared_ld.sum"), 1)
                elif label == "global sectors per request":
                    v = g("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") / max(g("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"), 1)
                else:
                    v = g(metric) * scale
                cells.append(f"{v:.2f}" if v < 1e6 else f"{v:.3g}")
            kernel = r[col["Kernel Name"]].replace("(anonymous namespace)::", "").replace("<unnamed>::", "")
            kernel = kernel.split("(const float")[0]
            print(f"| `{kernel}` | " + " | ".join(cells) + " |")


def checks(d: Path) -> None:
    rows = list(csv.DictReader(open(d / "check.csv")))
    bad = [r for r in rows if r["bad"] != "0"]
    worst = max(rows, key=lambda r: float(r["worst_err_in_u_sum_abs"]) / max(float(r["bound_in_u_sum_abs"]), 1))
    print(f"\n{len(rows)} (variant, shape, A offset) runs checked against float64, {len(bad)} failing. The largest error "
          f"relative to the bound: {worst['variant']} on {worst['shape']}, {float(worst['worst_err_in_u_sum_abs']):.2f} u·Σ|ab| "
          f"against a bound of {worst['bound_in_u_sum_abs']} u·Σ|ab|.")
    san = d / "sanitizer.txt"
    if san.exists():
        lines = [l.strip() for l in san.read_text().splitlines() if l.startswith(("###", "=========", "exit"))]
        print("\ncompute-sanitizer:\n\n    " + "\n    ".join(lines))


def main(argv: list[str]) -> int:
    d = Path(argv[0])
    print("## Ladder (`ladder.csv`)\n")
    ladder(d)
    print("\n## Sweep (`sweep.csv`)")
    sweep(d)
    print("\n## Nsight Compute (--clock-control none)")
    ncu(d)
    print("\n## Correctness and sanitizers")
    checks(d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
