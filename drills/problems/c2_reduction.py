"""Problem 77 (C2, reduction): the diagnoses that read what the wrong sums look like.

tests/c2_reduction_test.cu poisons *out (NaN for float, 0xFFFFFFFF for int) and records the result,
whether it is NaN and, for the integer sum, its difference from the exact sum.
"""

from __future__ import annotations

from ..manifest import Problem
from ..pipeline.diagnose import evidence_int, rows_by_entry
from ..result import Result

DIAGNOSES = ("out-not-zeroed", "result-is-nan")
STORE_LINE_DIAGNOSES = ()


def diagnose_outputs(problem: Problem, result: Result) -> None:
    rows = rows_by_entry(result, {"sum": "reduce_sum", "int": "reduce_sum_int"})
    floats = [t["evidence"] for t in rows.get("reduce_sum", []) if t["status"] == "fail"
              and "result_is_nan" in t.get("evidence", {})]
    ints = [t["evidence"] for t in rows.get("reduce_sum_int", []) if t["status"] == "fail"
            and "difference" in t.get("evidence", {})]
    if not floats or not all(e.get("result_is_nan") == "1" for e in floats):
        return
    if ints and all(evidence_int(e, "difference") == -1 for e in ints):
        result.diagnose("out-not-zeroed")
    elif ints and all(e.get("sum") == "-1" for e in ints):
        result.diagnose("result-is-nan")
    else:
        result.diagnose("result-is-nan", key="diagnosis.result-is-nan-unwritten-value")
    result.diagnoses[-1]["entry"] = "reduce_sum"


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    """The sum, for the judge's replay of a probed call (drills/pipeline/oplog_replay.py). Tolerance:
    a float32 tree of log2(n) levels errs by at most log2(n)·eps·Σ|x|; four times that admits any
    order of adding (a serial loop's rounding errors add up like a random walk, far below it)."""
    import numpy as np
    (x,) = inputs
    x = x.astype(np.float64)
    levels = max(1.0, float(np.log2(max(x.size, 2))))
    return [(np.array([x.sum()]), 4 * levels * float(np.finfo(np.float32).eps) * float(np.abs(x).sum()))]
