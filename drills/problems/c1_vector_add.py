"""Problem 71 (C1, vector add): the diagnoses that read which elements of c are wrong.

tests/c1_vector_add_test.cu records, for each failing length, how many elements are wrong and
unwritten, the first and last wrong index, and whether the guard floats after c[n - 1] changed.
"""

from __future__ import annotations

from ..manifest import Problem
from ..pipeline.diagnose import evidence_int, rows_by_entry
from ..result import Result

DIAGNOSES = ("written-past-end", "tail-not-written", "output-not-written")
STORE_LINE_DIAGNOSES = ()


# GoogleTest variant -> the entry point it tests.
ENTRIES = {"one_per_thread": "vector_add", "vec4": "vector_add_vec4", "grid_stride": "vector_add_grid_stride",
              "fast": "vector_add_fast"}


def diagnose_outputs(problem: Problem, result: Result) -> None:
    for fn, tests in rows_by_entry(result, ENTRIES).items():
        failed = [t for t in tests if t["status"] == "fail"]
        ev = [(t["shape"][0] * t["shape"][1], t["evidence"]) for t in failed if "wrong" in t.get("evidence", {})]
        if not failed or not ev:
            continue
        past = [(n, evidence_int(e, "written_past_end")) for n, e in ev if evidence_int(e, "written_past_end") > 0]
        if past:
            n, k = past[0]
            result.diagnose("written-past-end", advice="vec4-tail-overrun", fn=fn, k=k, n=n)
            result.diagnoses[-1]["entry"] = fn
            return
        complete = len(ev) == len(failed)  # every failure left a pattern (none faulted)
        if complete and all(evidence_int(e, "unwritten") == n for n, e in ev):
            result.diagnose("output-not-written", fn=fn)
            result.diagnoses[-1]["entry"] = fn
            return
        tail_only = all(1 <= evidence_int(e, "wrong") <= 3 and evidence_int(e, "unwritten") == evidence_int(e, "wrong")
                        and evidence_int(e, "last_wrong") == n - 1 and evidence_int(e, "first_wrong") >= n - 3 for n, e in ev)
        if complete and tail_only and any(n > 4 for n, _ in ev):
            aligned = {t["shape"][0] * t["shape"][1] for t in failed if "_offset" not in t["variant"]}
            sizes = ", ".join(str(n) for n in sorted(aligned or {n for n, _ in ev})[:5])
            result.diagnose("tail-not-written", fn=fn, sizes=sizes)
            result.diagnoses[-1]["entry"] = fn
            return


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    """c = a + b for the judge's replay of a probed call (drills/pipeline/oplog_replay.py)."""
    a, b = inputs
    return [(a + b, 0.0)]
