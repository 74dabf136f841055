#!/usr/bin/env python3
"""Predicted times of a chapter's variants at its perf shapes: what the judge shows on the simulator
in place of GPU timings, marked as a prediction for a named GPU.

    predict(subject_lib, reference_lib, shapes, variants, bound, gpu="H200") -> dict

The libraries are chapters' C ABI libraries built for the simulator (tests/support/drills_capi.cu).
Each variant is called once per shape through drills_time_variant in a child process, on sampled
launches (DRILLS_SIM_SAMPLE_BLOCKS; the timing helpers skip the input fill on the simulator), and
every launch is predicted by predict.py. The answer has the shape of drills.pipeline.perf.measure()'s, so
the same table renders it, plus "predicted": {"gpu", "note"}, each variant's bound, and no number
(a reason instead) where the model cannot speak (predict.py).
"""
from __future__ import annotations

import ctypes
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpus import GPUS  # noqa: E402
from predict import annotate  # noqa: E402
from resources import kernel_resources  # noqa: E402

SAMPLE_BLOCKS = 256
CHILD_TIMEOUT = 600
# Sampling bounds the blocks a launch runs, not the work of one block: a kernel with one block per
# row of a million floats still simulates every element of its sampled rows (about 30 s for
# softmax_naive at 64x1048576 on one core). A prediction is extra information after the verdict, so
# it gets a budget: one call may take CALL_SECONDS of simulation, all calls BUDGET_SECONDS; a call
# past either has a reason and no number (DRILLS_PREDICT_CALL_SECONDS / DRILLS_PREDICT_SECONDS).
CALL_SECONDS = float(os.environ.get("DRILLS_PREDICT_CALL_SECONDS", "8"))
BUDGET_SECONDS = float(os.environ.get("DRILLS_PREDICT_SECONDS", "20"))
OVER_BUDGET = -3      # not run: the budget was spent (-1: not defined by the file, -2: bad shape)
TIMED_OUT = 702       # cudaErrorLaunchTimeout: the simulator's watchdog stopped the launch


def _child(library: str, calls: list[tuple[str, list[int]]], report: Path, budget: float) -> list[dict]:
    """In the child: call each variant once and collect the launches each call made, until `budget`
    seconds have gone."""
    start = time.monotonic()
    dll = ctypes.CDLL(library, mode=ctypes.RTLD_LOCAL)
    fn = dll.drills_time_variant
    fn.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong), ctypes.c_int, ctypes.c_int, ctypes.c_int,
                   ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double)]
    out = []
    for name, dims in calls:
        if time.monotonic() - start > budget:
            out.append({"name": name, "dims": dims, "err": OVER_BUDGET, "bytes": 0.0, "launches": []})
            continue
        seen = len(report.read_text().splitlines()) if report.exists() else 0
        arr = (ctypes.c_longlong * len(dims))(*dims)
        sample = ctypes.c_float(0)
        moved = ctypes.c_double(0)
        err = fn(name.encode(), arr, len(dims), 0, 1, ctypes.byref(sample), ctypes.byref(moved))
        lines = report.read_text().splitlines()[seen:] if report.exists() else []
        launches = [json.loads(l) for l in lines if l.strip().startswith("{")]
        out.append({"name": name, "dims": dims, "err": err, "bytes": moved.value,
                    "launches": [l for l in launches if l.get("event") == "launch"]})
    return out


def run_calls(library: Path, calls: list[tuple[str, list[int]]], gpu: str, budget: float = BUDGET_SECONDS) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="drills-predict-") as tmp:
        report = Path(tmp) / "sim.jsonl"
        env = dict(os.environ, DRILLS_SIM_REPORT=str(report), DRILLS_SIM_SAMPLE_BLOCKS=str(SAMPLE_BLOCKS),
                   DRILLS_SIM_LATENCY=GPUS[gpu].latency_env())
        env["DRILLS_SIM_WATCHDOG"] = str(CALL_SECONDS)
        p = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", str(library), json.dumps(calls),
                            str(report), str(budget)], env=env, capture_output=True, text=True, timeout=CHILD_TIMEOUT)
        if p.returncode != 0:
            raise RuntimeError((p.stdout + p.stderr)[-1500:])
        return json.loads(p.stdout.strip().splitlines()[-1])


def _call_prediction(call: dict, gpu: str, resources: dict) -> dict:
    result = annotate({"launches": call["launches"]}, gpu, resources)
    preds = [l["predicted"] for l in result["launches"]]
    if call["err"] == OVER_BUDGET:
        return {"seconds": None, "reason": f"not predicted: the {BUDGET_SECONDS:.0f} s the judge gives predictions "
                                           "were spent on the calls before it"}
    if call["err"] == TIMED_OUT:
        return {"seconds": None, "reason": f"not predicted: simulating one call at this shape takes longer than "
                                           f"{CALL_SECONDS:.0f} s"}
    if call["err"] != 0 or not preds:
        return {"seconds": None, "reason": f"the call failed on the simulator (error {call['err']})" if call["err"]
                else "the call launched no kernel"}
    reason = next((p["reason"] for p in preds if p.get("seconds") is None), None)
    main = max(preds, key=lambda p: p.get("seconds") or 0)
    seconds = None if reason else sum(p["seconds"] for p in preds) + GPUS[gpu].call_seconds
    return {"seconds": seconds, "bound": main.get("bound"), "reason": reason, "launches": len(preds)}


def predict(subject_lib: Path, reference_lib: Path, shapes, variants, bound: str, gpu: str = "H200") -> dict:
    """drills.pipeline.perf.measure()'s answer, predicted on `gpu` from the simulator's counters."""
    model = GPUS[gpu]
    out = {"predicted": {"gpu": gpu, "note": "time-model prediction from the simulator's counters (sim/model), "
                                            "not a measurement"},
           "shapes": [], "variants": []}
    shapes = [list(s) for s in shapes]
    t0 = time.monotonic()
    ref_calls = run_calls(reference_lib, [(bound, s) for s in shapes], gpu)
    subj_calls = run_calls(subject_lib, [(v, s) for s in shapes for v in variants], gpu,
                           max(0.0, BUDGET_SECONDS - (time.monotonic() - t0)))
    ref_res, subj_res = kernel_resources(reference_lib), kernel_resources(subject_lib)
    for dims, ref in zip(shapes, ref_calls):
        copy = _call_prediction(ref, gpu, ref_res)
        moved = ref["bytes"]
        memcpy_s = moved / 2 * (1 + model.dram_write_cost) / model.dram_read_bytes_per_s
        row = {"shape": dims, "bytes": moved, "memcpy_gbps": moved / memcpy_s / 1e9, "memcpy_ms": memcpy_s * 1e3}
        if copy["seconds"]:
            row.update({"copy_kernel_gbps": moved / copy["seconds"] / 1e9, "copy_kernel_ms": copy["seconds"] * 1e3,
                        "copy_kernel_bound": copy["bound"]})
        out["shapes"].append(row)
        for call in subj_calls:
            if call["dims"] != dims or call["err"] == -1:  # -1: the file does not define it
                continue
            p = _call_prediction(call, gpu, subj_res)
            v = {"name": call["name"], "shape": dims, "bound": p.get("bound")}
            if p["seconds"]:
                gbps = call["bytes"] / p["seconds"] / 1e9
                v.update({"ms": p["seconds"] * 1e3, "gbps": gbps, "pct_memcpy": 100 * gbps / row["memcpy_gbps"]})
                if row.get("copy_kernel_gbps"):
                    v["pct_copy_kernel"] = 100 * gbps / row["copy_kernel_gbps"]
            else:
                v["reason"] = p.get("reason")
            out["variants"].append(v)
    return out


if __name__ == "__main__" and len(sys.argv) == 6 and sys.argv[1] == "--child":
    calls = [(n, d) for n, d in json.loads(sys.argv[3])]
    print(json.dumps(_child(sys.argv[2], calls, Path(sys.argv[4]), float(sys.argv[5]))))
