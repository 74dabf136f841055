#!/usr/bin/env python3
"""The time model launch by launch against Nsight Compute's kernel durations on the H200.

    python3 sim/model/calibrate.py PREDICTION.json NCU_DIR [--gpu H200]

PREDICTION.json is table.py's --json (the simulator's launches at the perf shapes); NCU_DIR holds
fidelity.sh's perf/timing_c{1,2,3,zoo}.csv (ncu at the same shapes, one call per variant, in the
same order). Prints, per kernel launch, ncu's duration, the model's kernel time (no launch cost)
and its bounds: the evidence for the constants of gpus.py (their sources cite this output).
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpus import GPUS  # noqa: E402
from predict import predict_launch  # noqa: E402

FILES = {"C1": "timing_c1.csv", "C2": "timing_c2.csv", "C3": "timing_c3.csv", "zoo": "timing_zoo.csv"}


def ncu_launches(path: Path) -> list[dict]:
    rows = [l for l in open(path) if l.startswith('"')]
    launches: dict[int, dict] = {}
    for r in csv.DictReader(rows):
        launch = launches.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"], "metrics": {}})
        try:
            launch["metrics"][r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return [launches[k] for k in sorted(launches)]


def pairs(prediction: dict, ncu_dir: Path) -> list[tuple[dict, dict, dict]]:
    """(case, simulator launch, ncu launch) in launch order, per chapter."""
    out = []
    for chapter, name in FILES.items():
        f = ncu_dir / name
        if not f.exists():
            continue
        ncu = [l for l in ncu_launches(f) if "zz_" not in l["kernel"]]
        sim = [(case, l) for case in prediction["profiled"] if case["chapter"] == chapter for l in case["launches"]]
        for (case, s), n in zip(sim, ncu):
            out.append((case, s, n))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("prediction", type=Path)
    ap.add_argument("ncu_dir", type=Path)
    ap.add_argument("--gpu", default="H200")
    opts = ap.parse_args(argv)
    gpu = GPUS[opts.gpu]
    data = json.loads(opts.prediction.read_text())
    worst = 0.0
    print(f"{'variant':28} {'shape':>10} {'grid':>10} {'ncu us':>9} {'model us':>9} {'err':>7}  bound   "
          f"dram    l2  shared issue latency (us)")
    for case, s, n in pairs(data, opts.ncu_dir):
        p = predict_launch(s, gpu, case.get("resources"))
        t = n["metrics"].get("gpu__time_duration.sum", 0) / 1e3
        if not p.get("bounds") or t < 20:  # the small launches are all launch cost
            continue
        model = (p["seconds"] - gpu.launch_seconds) * 1e6 if p["seconds"] else None
        b = {k: v * 1e6 for k, v in p["bounds"].items()}
        err = f"{model / t - 1:+.1%}" if model else "—"
        if model:
            worst = max(worst, abs(model / t - 1))
        print(f"{case['variant']:28} {case['shape']:>10} {s['grid'][0]:>10} {t:9.1f} "
              f"{(f'{model:9.1f}' if model else '        —')} {err:>7}  {p['bound']:7} "
              f"{b['dram']:6.1f} {b['l2']:6.1f} {b['shared']:6.1f} {b['issue']:6.1f} {b['latency']:6.1f}")
    print(f"\nworst |error| over launches of 20 us and more: {worst:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
