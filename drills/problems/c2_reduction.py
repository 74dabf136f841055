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
