"""Points from the manifest's [problem.scoring] table.

    cases = 70         shared evenly by the correctness cases, public and hidden
    checks = 15        shared evenly by the technique checks the reference passes on this backend,
                       earned only when every case passes (a wrong answer has no technique)
    perf = 15          GPU only: the tier perf_variant reaches on every timed shape (a list: the first
                       variant the file defines and the run timed)
    perf_variant = "transpose_tiled"
    perf_shapes = ["8192x8192"]  the timed shapes that count (default: all)
    tiers = { bronze = 50, silver = 80, gold = 90 }            # at least this % of the copy kernel
    tier_points = { bronze = 0.5, silver = 0.8, gold = 1.0 }   # the share of `perf` a tier earns

A case is a test that exercises an entry point of the contract (a GoogleTest case whose variant
is an entry point, or its suffix: `tiled` for `transpose_tiled`; a pytest case with an entry
point among its parameters; or, when the table says `case_variants = ["vec4*", ...]`, a test whose
variant or a parameter matches one of those glob patterns), in the reference's run with the same hidden shapes: that run fixes
the list, so a submission that does not build scores 0 of the same total as one that does. A part
that cannot be judged on this backend (timing without a GPU, checks no run reports) is left out
of `max_score`, which every row carries.
"""

from __future__ import annotations

from ..manifest import TIER_POINTS, Problem
from ..pipeline.verdict import is_contract_case

def table(problem: Problem) -> dict:
    """The problem's scoring table (validated with the manifest), as a plain dict."""
    return problem.scoring.model_dump()


def is_case(test: dict, problem: Problem) -> bool:
    return is_contract_case(test, problem)


def universe(reference: dict, problem: Problem, hidden_shapes) -> list[dict]:
    """The cases: [{name, hidden}] from the reference's result (it must pass them all)."""
    hidden = {tuple(s) for s in hidden_shapes}
    out = []
    for t in reference.get("tests", []):
        if t["status"] == "pass" and is_case(t, problem):
            out.append({"name": t["name"], "hidden": t.get("source") == "gtest" and tuple(t.get("shape") or ()) in hidden})
    return out


def reference_checks(reference: dict) -> list[str]:
    """The checks that count: severity `fail` (the verdict's), passed by the reference here."""
    return [c["id"] for c in reference.get("checks", []) if c.get("status") == "pass" and c.get("severity") == "fail"]


def perf_tier(result: dict, problem: Problem) -> tuple[str | None, float | None]:
    """(tier or "none", lowest % of the copy kernel over the timed shapes that count); (None, None)
    off GPU."""
    if (result.get("backend") or {}).get("kind") != "gpu":
        return None, None
    if (result.get("perf") or {}).get("unconfirmed"):  # a reported time an outside clock did not confirm (timecheck)
        return "none", None
    t = table(problem)
    scored = t.get("perf_variant") or (problem.entry_points[-1] if problem.entry_points else "")
    shapes = t.get("perf_shapes")  # e.g. ["8192x8192"]; absent: every timed shape
    rows = []
    for variant in ([scored] if isinstance(scored, str) else scored):  # the first one timed counts
        rows = [v for v in ((result.get("perf") or {}).get("variants") or []) if v.get("name") == variant
                and (not shapes or "x".join(str(d) for d in v.get("shape", [])) in shapes)]
        if rows:
            break
    if not rows:
        return "none", None
    pct = min(float(v.get("pct_copy_kernel") or 0) for v in rows)
    tiers = t["tiers"]
    reached = [name for name, need in sorted(tiers.items(), key=lambda kv: kv[1]) if pct >= need]
    return (reached[-1] if reached else "none"), round(pct, 1)


def score(result: dict, problem: Problem, cases: list[dict], checks: list[str], backend: str) -> dict:
    t = table(problem)
    status = {x["name"]: x["status"] for x in result.get("tests", [])}
    passed = [c for c in cases if status.get(c["name"]) == "pass"]
    pub = [c for c in cases if not c["hidden"]]
    hid = [c for c in cases if c["hidden"]]
    out = {"cases": {"passed": len(passed), "total": len(cases),
                     "public_passed": sum(not c["hidden"] for c in passed), "public_total": len(pub),
                     "hidden_passed": sum(c["hidden"] for c in passed), "hidden_total": len(hid)}}
    points = max_points = 0.0
    if cases and t["cases"]:
        points += t["cases"] * len(passed) / len(cases)
        max_points += t["cases"]

    got = {c["id"]: c.get("status") for c in result.get("checks", [])}
    checks = [c for c in checks if got.get(c) != "skip"]  # a check of an optional entry point the file lacks
    ok = [c for c in checks if got.get(c) == "pass"]
    out["checks"] = {"passed": len(ok), "total": len(checks), "failed": [c for c in checks if got.get(c) != "pass"]}
    if checks and t["checks"]:
        if len(passed) == len(cases):  # a technique earns nothing while the answer is wrong
            points += t["checks"] * len(ok) / len(checks)
        max_points += t["checks"]

    tier, pct = perf_tier(result, problem) if backend == "gpu" else (None, None)
    out["perf"] = {"tier": tier, "pct_copy_kernel": pct, "points": 0.0}
    if backend == "gpu" and t["perf"]:
        share = (t["tier_points"] or TIER_POINTS).get(tier or "none", 0.0)
        out["perf"]["points"] = round(t["perf"] * share, 2)
        points += t["perf"] * share
        max_points += t["perf"]
    out["verdict"] = result.get("status")  # the judge's decision; scoring never changes it
    out["score"] = round(points, 2)
    out["max_score"] = round(max_points, 2)
    return out
