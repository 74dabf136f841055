#!/usr/bin/env python3
"""The time model against the H200: predicted and measured time of every variant at its perf shape.

    python3 sim/model/table.py [--measured CSV ...] [--markdown OUT.md] [--json OUT.json]
                               [--chapter 1 2 3 4] [--sample-blocks N]

Builds benchmarks/h200/fidelity_timing.cu against the simulator once per chapter (4: the held-out
transposes of transpose_zoo.cuh), runs it with --profile (each variant called once) on sampled
launches, predicts every launch (predict.py) and sums a variant's launches. Measured times come
from CSV files with columns chapter,variant,shape,median_ms[,source] (fidelity_timing's output on
a GPU, or benchmarks/h200-times-2026-11-29.csv); the last file naming a row wins.

A row passes when the prediction is within 20% of the measured time. The ordering check compares,
per chapter and shape, the order of the variants by predicted and by measured time, over the rows
that have both (ties within 3% of each other, or whose measured min-max ranges overlap, are not an
ordering).
"""
from __future__ import annotations

import argparse
import csv
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from gpus import GPUS  # noqa: E402
from predict import annotate  # noqa: E402
from resources import kernel_resources  # noqa: E402

HARNESS = ROOT / "benchmarks" / "h200" / "fidelity_timing.cu"
SOLUTIONS = {1: "solutions/c1_vector_add.cu", 2: "solutions/c2_reduction.cu", 3: "solutions/c3_transpose.cu", 4: None}
DEFAULT_MEASURED = sorted((ROOT / "benchmarks").glob("h200-times-*.csv"))  # by date: the latest row wins
TOLERANCE = 0.20
TIE = 0.03


def sim_run():
    import runpy
    return runpy.run_path(str(ROOT / "sim" / "runtime" / "sim_run.py"))


def lib_dir() -> Path:
    env = os.environ.get("DRILLS_SIM_LIB_DIR")
    if env:
        return Path(env)
    sys.path.insert(0, str(ROOT))
    from drills.pipeline.build import sim_runtime_dir
    d, log = sim_runtime_dir()
    if d is None:
        raise SystemExit(f"table.py: the simulator's runtime did not build:\n{log[-2000:]}")
    return d


def profile_chapter(chapter: int, lib: Path, gpu: str, sample_blocks: int) -> list[dict]:
    """[{chapter, variant, shape, launches: [...]}, ...] of one harness run on the simulator."""
    sr = sim_run()
    with tempfile.TemporaryDirectory(prefix="drills-table-") as tmp:
        exe = Path(tmp) / f"timing_c{chapter}"
        extra = [f"-DCHAPTER={chapter}"] + ([str(ROOT / SOLUTIONS[chapter])] if SOLUTIONS[chapter] else [])
        cmd = sr["build_command"](HARNESS, exe, lib, extra)
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"table.py: nvcc failed for chapter {chapter}:\n{p.stdout}{p.stderr}")
        env = dict(os.environ, DRILLS_SIM_SAMPLE_BLOCKS=str(sample_blocks),
                   DRILLS_SIM_LATENCY=GPUS[gpu].latency_env(), DRILLS_SIM_WATCHDOG="600")
        out = Path(tmp) / "stdout.txt"
        with open(out, "w") as fh:
            result = sr["run"](exe, ["--profile"], env=env, stdout=fh, stderr=subprocess.STDOUT)
        rows = list(csv.DictReader(io.StringIO(out.read_text())))
        resources = kernel_resources(exe)
    annotate(result, gpu, resources)
    # The harness launches zz_case_marker before each case (--profile): a case's launches are
    # those after its marker. cudaMemcpy launches nothing.
    groups: list[list[dict]] = []
    for launch in result["launches"]:
        kernel = launch.get("kernel") or ""
        if "zz_case_marker" in kernel:
            groups.append([])
        elif "zz_fill_random" not in kernel and groups:
            groups[-1].append(launch)
    cases = [r for r in rows if r.get("check") == "profiled"]
    keep = ("kernel", "mangled", "grid", "block", "metrics", "errors", "predicted")
    return [{"chapter": r["chapter"], "variant": r["variant"], "shape": r["shape"],
             "launches": [{k: l.get(k) for k in keep} for l in ls],
             "resources": {l["mangled"]: resources[l["mangled"]] for l in ls if l.get("mangled") in resources}}
            for r, ls in zip(cases, groups) if r["variant"] != "cudaMemcpy"]


def measured_times(files: list[Path]) -> dict[tuple, dict]:
    out = {}
    for f in files:
        if not f.exists():
            continue
        with open(f) as fh:
            for r in csv.DictReader(line for line in fh if not line.startswith("#")):
                if not r.get("median_ms"):
                    continue
                row = {"ms": float(r["median_ms"]), "source": r.get("source") or f.name}
                if r.get("min_ms") and r.get("max_ms"):
                    row["range"] = (float(r["min_ms"]), float(r["max_ms"]))
                out[(r["chapter"], r["variant"], r["shape"])] = row
    return out


def rows_for(profiled: list[dict], measured: dict) -> list[dict]:
    rows = []
    for case in profiled:
        preds = [l["predicted"] for l in case["launches"]]
        seconds = None if not preds or any(p.get("seconds") is None for p in preds) else \
            sum(p["seconds"] for p in preds) + GPUS[preds[0]["gpu"]].call_seconds
        main = max(preds, key=lambda p: p.get("seconds") or 0) if preds else {}
        reason = next((p.get("reason") for p in preds if p.get("reason")), None)
        meas = measured.get((case["chapter"], case["variant"], case["shape"]))
        row = {"chapter": case["chapter"], "variant": case["variant"], "shape": case["shape"],
               "launches": len(preds), "predicted_ms": seconds * 1e3 if seconds else None,
               "bound": main.get("bound"), "reason": reason,
               "measured_ms": meas["ms"] if meas else None, "source": meas["source"] if meas else None,
               "measured_range": meas.get("range") if meas else None}
        if row["predicted_ms"] and row["measured_ms"]:
            row["error"] = row["predicted_ms"] / row["measured_ms"] - 1
            row["ok"] = abs(row["error"]) <= TOLERANCE
        rows.append(row)
    return rows


def ordering(rows: list[dict]) -> list[str]:
    """Pairs of variants whose measured order the prediction reverses (beyond ties)."""
    bad = []
    groups: dict[tuple, list[dict]] = {}
    for r in rows:
        if r.get("predicted_ms") and r.get("measured_ms"):
            groups.setdefault((r["chapter"], r["shape"]), []).append(r)
    for (chapter, shape), rs in groups.items():
        for a in rs:
            for b in rs:
                if a is b or a["measured_ms"] >= b["measured_ms"] * (1 - TIE):
                    continue
                ra, rb = a.get("measured_range"), b.get("measured_range")
                if ra and rb and ra[1] >= rb[0]:  # the GPU's own spread covers both: not an order
                    continue
                if a["predicted_ms"] > b["predicted_ms"] * (1 + TIE):
                    bad.append(f"{chapter} {shape}: {a['variant']} is faster than {b['variant']} on the GPU "
                               f"({a['measured_ms']:.4f} vs {b['measured_ms']:.4f} ms), slower in the model")
    return bad


def markdown(rows: list[dict], bad_order: list[str], gpu: str) -> str:
    sources = sorted({r["source"] for r in rows if r.get("source")})
    compared = [r for r in rows if "ok" in r]
    lines = [f"# The time model against the {gpu}: predicted and measured time per variant",
             "",
             "Predicted: `python3 sim/model/table.py --json benchmarks/h200-prediction.json --markdown "
             "benchmarks/h200-prediction.md` (sim/model/README.md): every variant called once by "
             "benchmarks/h200/fidelity_timing.cu --profile on the simulator, 256 sampled blocks a launch, "
             f"the {gpu} model of sim/model/gpus.py. Measured (CUDA events, median):",
             *[f"- {s}" for s in sources],
             "",
             f"{sum(r['ok'] for r in compared)} of {len(compared)} rows with both numbers within 20%; "
             f"{sum(1 for r in rows if r['predicted_ms'] is None)} rows where the model gives no number and says why.",
             "",
             f"| chapter | variant | shape | predicted ms | bound | measured ms | error | within 20% |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        p = f"{r['predicted_ms']:.4f}" if r.get("predicted_ms") else "—"
        mm = f"{r['measured_ms']:.4f}" if r.get("measured_ms") else "—"
        e = f"{r['error']:+.1%}" if "error" in r else "—"
        ok = "yes" if r.get("ok") else ("no" if "ok" in r else (r["reason"] if r.get("reason") else "—"))
        lines.append(f"| {r['chapter']} | `{r['variant']}` | {r['shape']} | {p} | {r.get('bound') or '—'} | {mm} | {e} | {ok} |")
    lines.append("")
    lines.append("Ordering: " + ("every pair of variants in the measured order (ties aside: within 3%, or measured "
                                 "min-max ranges that overlap)." if not bad_order
                                 else "; ".join(bad_order)))
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--measured", type=Path, nargs="*", default=DEFAULT_MEASURED)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--chapter", type=int, nargs="*", default=[1, 2, 3, 4])
    ap.add_argument("--sample-blocks", type=int, default=256)
    ap.add_argument("--gpu", default="H200", choices=sorted(GPUS))
    ap.add_argument("--profiled", type=Path, help="reuse the profiled launches saved by --json")
    opts = ap.parse_args(argv)
    if opts.profiled:
        profiled = json.loads(opts.profiled.read_text())["profiled"]
        for case in profiled:
            annotate({"launches": case["launches"]}, opts.gpu, case.get("resources"))
    else:
        lib = lib_dir()
        profiled = [c for ch in opts.chapter for c in profile_chapter(ch, lib, opts.gpu, opts.sample_blocks)]
    rows = rows_for(profiled, measured_times(opts.measured))
    bad = ordering(rows)
    text = markdown(rows, bad, opts.gpu)
    print(text)
    if opts.markdown:
        opts.markdown.write_text(text)
    if opts.json:
        opts.json.write_text(json.dumps({"gpu": opts.gpu, "rows": rows, "ordering": bad, "profiled": profiled}, indent=1))
    misses = [r for r in rows if r.get("ok") is False]
    return 1 if misses or bad else 0


if __name__ == "__main__":
    sys.exit(main())
