"""Problem 82 (C5, softmax): the diagnoses that read how the rows of y are wrong.

tests/c5_softmax_test.cu runs every variant on four kinds of input (uniform, scaled = x1000, neginf,
latemax = +8 on each row's last quarter) and records, for each failing case, how many elements are
wrong, unwritten (still the 0xFF poison) and non-finite, how many rows are wrong and how many of those
are wrong by one factor throughout ("scaled rows": the exponentials are right, the normalising sum is
not), that factor's range, and the first wrong and first unwritten column.

`find(tests)` is the whole logic, over the judge's test rows (`variant` "online_latemax", `shape`,
`status`, `evidence`); `diagnose_outputs` hands its findings to the result. Nothing here reads the
learner's source; the wording is drills/problems/c5_softmax.toml.
"""

from __future__ import annotations

import re

from ..manifest import Problem
from ..messages import is_reference
from ..result import Result

# Most specific first. three-reads is raised by the two-reads check (diagnose_check below).
DIAGNOSES = ("output-not-written", "cols-tail-not-handled", "empty-part-nan", "no-max-subtraction", "rows-mixed",
             "online-rescale-missing", "partial-denominator", "three-reads")
STORE_LINE_DIAGNOSES = ()

# GoogleTest variant -> the entry point it tests (the contract's two first: their diagnosis leads).
ENTRIES = {"online": "softmax_online", "naive": "softmax_naive", "by_width": "softmax_by_width",
           "registers": "softmax_registers", "split": "softmax_split", "fast": "softmax_fast"}
KINDS = ("uniform", "scaled", "neginf", "latemax")


def _int(ev: dict, key: str, default: int = 0) -> int:
    try:
        return int(ev.get(key, default))
    except (TypeError, ValueError):
        return default


def _float(ev: dict, key: str) -> float:
    try:
        return float(ev.get(key, 0))
    except (TypeError, ValueError):
        return 0.0


def _case(t: dict) -> dict | None:
    """{entry, kind, rows, cols, status, ev} for a GoogleTest row of the Softmax suite, else None."""
    m = re.match(rf"^(?P<base>.+)_(?P<kind>{'|'.join(KINDS)})$", t.get("variant") or "")
    if not m or m["base"] not in ENTRIES or not t.get("shape"):
        return None
    rows, cols = t["shape"]
    return {"entry": ENTRIES[m["base"]], "kind": m["kind"], "rows": rows, "cols": cols, "status": t["status"],
            "ev": t.get("evidence") or {}}


def _shapes(cases: list, limit: int = 4) -> str:
    seen = []
    for c in cases:
        s = f"{c['rows']}x{c['cols']}"
        if s not in seen:
            seen.append(s)
    return ", ".join(seen[:limit]) + (" ..." if len(seen) > limit else "")


def _diagnose_entry(fn: str, cases: list) -> tuple[str, dict] | None:
    failed = [c for c in cases if c["status"] == "fail"]
    if not failed:
        return None
    ev = [c for c in failed if "wrong" in c["ev"]]  # a faulting launch leaves no pattern
    complete = len(ev) == len(failed)

    if complete and all(_int(c["ev"], "unwritten") == c["rows"] * c["cols"] for c in ev):
        return "output-not-written", {"fn": fn}

    def tail(c):  # the unwritten elements are exactly columns [f, cols) of every row
        f = _int(c["ev"], "first_unwritten_col", -1)
        return f >= 0 and _int(c["ev"], "unwritten") == c["rows"] * (c["cols"] - f)
    cut = [c for c in ev if tail(c) and _int(c["ev"], "first_unwritten_col") > 0]
    if complete and ev and all(tail(c) for c in ev) and cut and any(c["status"] == "pass" for c in cases):
        c = max(cut, key=lambda c: c["cols"])
        return "cols-tail-not-handled", {"fn": fn, "cols": c["cols"], "first": _int(c["ev"], "first_unwritten_col"),
                                         "missing": c["cols"] - _int(c["ev"], "first_unwritten_col"),
                                         "passing": _shapes([c for c in cases if c["status"] == "pass"])}

    computed_nan = [c for c in ev if c["kind"] == "uniform" and _int(c["ev"], "nonfinite") > _int(c["ev"], "unwritten")]
    if computed_nan:
        return "empty-part-nan", {"fn": fn, "shapes": _shapes(computed_nan)}

    if ev and all(c["kind"] == "scaled" for c in failed) and any(
            _int(c["ev"], "nonfinite") > _int(c["ev"], "unwritten") for c in ev):
        passing = [c for c in cases if c["status"] == "pass" and c["kind"] == "uniform"]
        return "no-max-subtraction", {"fn": fn, "shapes": _shapes(ev), "passing": _shapes(passing)}

    scaled = [c for c in ev if _int(c["ev"], "scaled_rows") > 0]
    one_row = [c for c in cases if c["rows"] == 1]
    if one_row and all(c["status"] == "pass" for c in one_row) and all(c["rows"] > 1 for c in failed) and scaled:
        return "rows-mixed", {"fn": fn, "shapes": _shapes(scaled), "one_row": _shapes(one_row)}

    late = [c for c in scaled if c["kind"] == "latemax" and _int(c["ev"], "scaled_rows") == _int(c["ev"], "wrong_rows")
            and 0 < _float(c["ev"], "scale_hi") < 1]
    if late:
        c = late[0]
        return "online-rescale-missing", {"fn": fn, "shape": f"{c['rows']}x{c['cols']}",
                                          "lo": round(_float(c["ev"], "scale_lo"), 3),
                                          "hi": round(_float(c["ev"], "scale_hi"), 3)}

    # Every row too LARGE by one factor on small finite inputs, one-row shapes included: the maximum and
    # the exponentials are right, the denominator is only part of the row's sum (one thread's or one
    # warp's, taken before the parts were combined).
    small = [c for c in scaled if c["kind"] in ("uniform", "latemax")
             and _int(c["ev"], "scaled_rows") == _int(c["ev"], "wrong_rows") and _float(c["ev"], "scale_lo") > 1]
    if small:
        c = max(small, key=lambda c: c["cols"])
        return "partial-denominator", {"fn": fn, "shapes": _shapes(small), "lo": round(_float(c["ev"], "scale_lo"), 2),
                                       "hi": round(_float(c["ev"], "scale_hi"), 2), "shape": f"{c['rows']}x{c['cols']}"}
    return None


def find(tests: list) -> list:
    """[(diagnosis id, facts)] for the first entry point whose failures show a known pattern."""
    by_entry: dict[str, list] = {}
    for t in tests:
        c = _case(t)
        if c:
            by_entry.setdefault(c["entry"], []).append(c)
    for fn in ENTRIES.values():
        found = _diagnose_entry(fn, by_entry.get(fn, []))
        if found:
            return [found]
    return []


def diagnose_outputs(problem: Problem, result: Result) -> None:
    for id, facts in find(result.tests):
        result.diagnose(id, **facts)
        result.diagnoses[-1]["entry"] = facts["fn"]


def diagnose_check(problem: Problem, result: Result, check: dict) -> None:
    """A failed check whose diagnosis the core has no rule for (two-reads -> three-reads), worded with
    the check's facts. Uncoalesced loads fetch each sector several times, which also breaks the
    two-reads bound: when the coalescing check fails too, that is the cause, and it alone is named."""
    measured = check.get("message") if is_reference(check.get("message")) else None
    if measured is None or measured["key"] != "check.total":
        return  # not measured (no launch: the output diagnoses say why)
    if check["diagnosis"] == "three-reads" and any(
            c["id"] != check["id"] and c["status"] == "fail" and c.get("diagnosis") == "uncoalesced-access"
            for c in result.checks):
        return
    result.diagnose(check["diagnosis"], **{**measured["facts"], "entry": check["entry"]})


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    """Each row's softmax in float64 for the judge's replay of a probed call
    (drills/pipeline/oplog_replay.py); the replay's relative tolerance admits __expf."""
    import numpy as np
    x = inputs[0].astype(np.float64).reshape(dims["rows"], dims["cols"])
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return [(e / e.sum(axis=1, keepdims=True), 1e-7)]
