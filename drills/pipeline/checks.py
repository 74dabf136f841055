"""Technique checks: does a correct answer use the technique the chapter teaches? Declared per
problem in the manifest (drills/manifest.py: Check) and computed from the simulator's counters on
every machine (on a GPU machine the judge builds a simulator copy of the file for this).

    [[problem.checks]]
    id = "coalesced-stores"
    severity = "fail"                      # fail: the lesson; note: worth knowing, verdict unchanged
    title = { zh = "...", en = "..." }
    probe = { entry = "transpose_tiled", dims = { M = 1024, N = 2048 }, args = ["in:M*N", "out:N*M", "M", "N"] }
    rule = { per_line = ["global_st"], at_most = "ideal" }
    diagnosis = "uncoalesced-store"        # the named diagnosis a failure raises (optional)

The probe runs the entry point alone (drills/pipeline/probe.py), so every launch it records is that
entry point's; checks with the same probe share one run. The counters are the judge's replay of the
call in a process of its own, on inputs the learner's process never saw
(drills/pipeline/oplog_replay.py); when the replay's outputs are not the answer for those inputs, no
check may pass on its counters (a check they fail still fails). Rules:

    { total = METRIC, at_least = X }              the metric summed over the probe's launches
    { total = METRIC, at_most = X }
    { per_line = [OPS], at_most = "ideal" | X, ideal_times = 1, tolerance = 0.01 }
        every source line that issues an op of OPS (global_ld, global_st, shared_ld, shared_st;
        see drills/pipeline/counters.py) costs at most ideal_times x the ideal (or X)
        sectors/wavefronts per request.

A check row's status is pass, fail, or error: a check that could not be measured (the probe
faulted, launched nothing, or issued no access the rule reads) is an error that says why, never a
silent pass (drills/pipeline/verdict.py). A per-line rule over no access at all is measured: it passes,
and its row says there was no such access.
"""

from __future__ import annotations

from pathlib import Path

from .. import problems
from . import counters, probe as probe_mod
from ..manifest import Check, Problem, TotalRule
from ..messages import say

DEFAULT_TOLERANCE = 0.01  # the anchors compare wavefronts with ncu to 1%


def probe_of(check: Check) -> probe_mod.Probe:
    p = check.probe
    return probe_mod.Probe(entry=p.entry, dims=dict(p.dims), args=tuple(p.args))


def not_measured(problem: Problem, why: str) -> list[dict]:
    """Every check of the problem as an error row: `why` says what stopped the measurement."""
    rows = []
    for c in problem.checks:
        pr = probe_of(c)
        rows.append(_row(c, pr, "error", say("check.not-measured", why=why)))
    return rows


def run(problem: Problem, library: Path, subject_file: Path, shown: str) -> tuple[list, list]:
    """(checks, counters) for `library`, built from `subject_file` for the simulator."""
    checks, launches_out = [], []
    runs: dict[tuple, tuple] = {}
    static = probe_mod.static_shared_bytes(library)
    module = problems.module_for(problem)
    reference = getattr(module, "probe_reference", None)
    for check in problem.checks:
        pr = probe_of(check)
        if pr.key not in runs:
            outcome = probe_mod.run(library, pr, reference=reference)
            views = [counters.launch_view(l, pr.entry, pr.shape, shown, str(subject_file), static)
                     for l in outcome.launches]
            runs[pr.key] = (outcome, views)
            launches_out.extend(views)
        outcome, views = runs[pr.key]
        if pr.entry in problem.optional_entry_points and not outcome.ok and ABSENT in (outcome.error or ""):
            # A check of an optional entry point applies only to files that define it.
            checks.append(_row(check, pr, "skip", say("check.entry-absent", entry=pr.entry)))
            continue
        checks.append(evaluate(check, pr, outcome, views))
    return checks, launches_out


ABSENT = probe_mod.ABSENT_TEXT  # what the probe says of an entry point the file lacks


def _row(check: Check, pr, status: str, message: dict, lines=()) -> dict:
    return {"id": check.id, "status": status, "severity": check.severity, "title": check.title.model_dump(),
            "message": message, "entry": pr.entry, "shape": pr.shape,
            "diagnosis": check.diagnosis or "", "lines": list(lines)}


def evaluate(check: Check, pr, outcome, views: list) -> dict:
    row = _measure(check, pr, outcome, views)
    if row["status"] == "pass" and getattr(outcome, "disagrees", ""):
        # Counted from kernels that did not produce the answer: nothing here may pass.
        return _row(check, pr, "error", say("check.not-the-answer", entry=pr.entry, why=outcome.disagrees))
    return row


def _measure(check: Check, pr, outcome, views: list) -> dict:
    rule = check.rule
    if not outcome.ok or any(l.get("errors") for l in outcome.launches):
        first = next((e for l in outcome.launches for e in l.get("errors", [])), None)
        why = outcome.error or (first or {}).get("message", "") or "no launch"
        return _row(check, pr, "error", say("check.probe-failed", entry=pr.entry, why=why))
    if not outcome.launches:
        # A total rule reads the absence of launches (no shared-memory instruction ran); a per-line
        # rule has nothing to read.
        return _row(check, pr, "fail" if isinstance(rule, TotalRule) else "error", say("check.no-launch", entry=pr.entry))
    if isinstance(rule, TotalRule):
        return _total(check, pr, rule, views)
    return _per_line(check, pr, rule, views)


def _total(check, pr, rule: TotalRule, views) -> dict:
    metric = rule.total
    value = sum(int(v["metrics"].get(metric, 0) or 0) for v in views)
    ok = True
    if rule.at_least is not None:
        ok &= value >= rule.at_least
    if rule.at_most is not None:
        ok &= value <= rule.at_most
    bound = " ".join(s for s in ((f"≥ {rule.at_least:,}" if rule.at_least is not None else ""),
                                 (f"≤ {rule.at_most:,}" if rule.at_most is not None else "")) if s)
    shape = "×".join(str(d) for d in pr.shape)
    return _row(check, pr, "pass" if ok else "fail",
                say("check.total", entry=pr.entry, shape=shape, metric=metric, value=value, bound=bound))


def _per_line(check, pr, rule, views) -> dict:
    ops = list(rule.per_line)
    tol = rule.tolerance
    limit_spec = rule.at_most
    seen, bad = [], []
    for v in views:
        for line in v["lines"]:
            for op in ops:
                if op not in line["requests"]:
                    continue
                ideal = line["ideal"][op]
                limit = ideal * rule.ideal_times if limit_spec == "ideal" else float(limit_spec)
                row = {"file": line["file"], "line": line["line"], "op": op,
                       "per_request": line["per_request"][op], "ideal": ideal if limit_spec == "ideal" else limit,
                       "kernel": v["kernel"]}
                seen.append(row)
                if row["per_request"] > limit * (1 + tol) + 1e-9:
                    bad.append(row)
    what = "/".join(ops)
    if not seen:  # measured: there is no such access, so none can cost more than its ideal
        return _row(check, pr, "pass", say("check.no-access", entry=pr.entry, ops=what))
    if not bad:
        lines = ", ".join(str(n) for n in sorted({r["line"] for r in seen}))
        if rule.ideal_times > 1 and limit_spec == "ideal":
            return _row(check, pr, "pass", say("check.within-ideal", ops=what, times=rule.ideal_times, lines=lines))
        return _row(check, pr, "pass", say("check.at-ideal", ops=what, lines=lines))
    bad.sort(key=lambda r: -r["per_request"] / max(r["ideal"], 1e-9))
    w = bad[0]
    more = say("check.more-lines", count=len(bad) - 1) if len(bad) > 1 else ""
    return _row(check, pr, "fail",
                say("check.line-over", line=w["line"], op=w["op"], per_request=w["per_request"],
                    unit=say(f"words.{counters.OPS[w['op']][2]}"), ideal=w["ideal"], more=more),
                bad)
