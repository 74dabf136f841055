"""Technique checks: does a correct answer use the technique the chapter teaches? Declared per
problem in the manifest and computed from the simulator's counters on every machine (on a GPU
machine the judge builds a simulator copy of the file for this).

A check (a `[[problem.checks]]` table):

    id = "coalesced-stores"
    title = { zh = "...", en = "..." }
    probe = { entry = "transpose_tiled", dims = { M = 1024, N = 2048 }, args = ["in:M*N", "out:N*M", "M", "N"] }
    rule = { per_line = ["global_st"], at_most = "ideal" }
    diagnosis = "uncoalesced-store"        # the named diagnosis a failure raises (optional)

The probe runs the entry point alone (drills/pipeline/probe.py), so every launch it records is that entry
point's; checks with the same probe share one run. Rules:

    { total = METRIC, at_least = X }              the metric summed over the probe's launches
    { total = METRIC, at_most = X }
    { per_line = [OPS], at_most = "ideal" | X, tolerance = 0.01 }
        every source line that issues an op of OPS (global_ld, global_st, shared_ld, shared_st;
        see drills/pipeline/counters.py) costs at most the ideal (or X) sectors/wavefronts per request.
        No such line at all: the check is skipped, not passed.
"""

from __future__ import annotations

from pathlib import Path

from . import counters, probe as probe_mod
from ..manifest import ManifestError, Problem
from ..result import msg

DEFAULT_TOLERANCE = 0.01  # the anchors compare wavefronts with ncu to 1%


def probe_of(check: dict) -> probe_mod.Probe:
    p = check.get("probe") or {}
    try:
        return probe_mod.Probe(entry=p["entry"], dims=dict(p["dims"]), args=tuple(p["args"]))
    except (KeyError, TypeError):
        raise ManifestError(f"check {check.get('id')!r}: probe needs entry, dims and args") from None


def validate(problem: Problem) -> list[str]:
    """Problems with the manifest's checks, as messages (for `judge.py check`)."""
    bad = []
    for c in problem.checks:
        where = f"#{problem.number} check {c.get('id')!r}"
        try:
            probe_of(c)
        except ManifestError as e:
            bad.append(str(e))
        rule = c.get("rule") or {}
        if "total" in rule:
            if not any(k in rule for k in ("at_least", "at_most")):
                bad.append(f"{where}: a total rule needs at_least or at_most")
        elif "per_line" in rule:
            unknown = [op for op in rule["per_line"] if op not in counters.OPS]
            if unknown:
                bad.append(f"{where}: unknown per-line op(s) {unknown}; known: {list(counters.OPS)}")
        else:
            bad.append(f"{where}: rule needs total or per_line")
        if c.get("probe", {}).get("entry") not in (*problem.entry_points, *problem.optional_entry_points):
            bad.append(f"{where}: probe entry {c.get('probe', {}).get('entry')!r} is not an entry point")
    return bad


def run(problem: Problem, library: Path, subject_file: Path, shown: str) -> tuple[list, list]:
    """(checks, counters) for `library`, built from `subject_file` for the simulator."""
    checks, launches_out = [], []
    runs: dict[tuple, tuple] = {}
    static = probe_mod.static_shared_bytes(library)
    for check in problem.checks:
        pr = probe_of(check)
        if pr.key not in runs:
            outcome = probe_mod.run(library, pr)
            views = [counters.launch_view(l, pr.entry, pr.shape, shown, str(subject_file), static)
                     for l in outcome.launches]
            runs[pr.key] = (outcome, views)
            launches_out.extend(views)
        outcome, views = runs[pr.key]
        checks.append(evaluate(check, pr, outcome, views))
    return checks, launches_out


def _row(check: dict, pr, status: str, message: dict, lines=()) -> dict:
    return {"id": check["id"], "status": status, "title": dict(check.get("title") or {}),
            "message": message, "entry": pr.entry, "shape": pr.shape,
            "diagnosis": check.get("diagnosis", ""), "lines": list(lines)}


def evaluate(check: dict, pr, outcome, views: list) -> dict:
    rule = check.get("rule") or {}
    if not outcome.ok or any(l.get("errors") for l in outcome.launches):
        first = next((e for l in outcome.launches for e in l.get("errors", [])), None)
        why = outcome.error or (first or {}).get("message", "") or "no launch"
        return _row(check, pr, "skip", msg(f"无法检查：{pr.entry} 单独运行时出错（{why}）。",
                                           f"Not checked: {pr.entry} failed when run alone ({why})."))
    if not outcome.launches:
        return _row(check, pr, "fail" if "total" in rule else "skip",
                    msg(f"{pr.entry} 没有启动任何 kernel。", f"{pr.entry} launched no kernel."))
    if "total" in rule:
        return _total(check, pr, rule, views)
    return _per_line(check, pr, rule, views)


def _total(check, pr, rule, views) -> dict:
    metric = rule["total"]
    value = sum(int(v["metrics"].get(metric, 0) or 0) for v in views)
    ok = True
    if "at_least" in rule:
        ok &= value >= rule["at_least"]
    if "at_most" in rule:
        ok &= value <= rule["at_most"]
    bound = " ".join(s for s in ((f"≥ {rule['at_least']:,}" if "at_least" in rule else ""),
                                 (f"≤ {rule['at_most']:,}" if "at_most" in rule else "")) if s)
    shape = "×".join(str(d) for d in pr.shape)
    return _row(check, pr, "pass" if ok else "fail",
                msg(f"{pr.entry}（{shape}）：{metric} = {value:,}，要求 {bound}",
                    f"{pr.entry} ({shape}): {metric} = {value:,}, required {bound}"))


def _per_line(check, pr, rule, views) -> dict:
    ops = list(rule["per_line"])
    tol = float(rule.get("tolerance", DEFAULT_TOLERANCE))
    limit_spec = rule.get("at_most", "ideal")
    seen, bad = [], []
    for v in views:
        for line in v["lines"]:
            for op in ops:
                if op not in line["requests"]:
                    continue
                limit = line["ideal"][op] if limit_spec == "ideal" else float(limit_spec)
                row = {"file": line["file"], "line": line["line"], "op": op,
                       "per_request": line["per_request"][op], "ideal": limit, "kernel": v["kernel"]}
                seen.append(row)
                if row["per_request"] > limit * (1 + tol) + 1e-9:
                    bad.append(row)
    what = "/".join(ops)
    if not seen:
        return _row(check, pr, "skip", msg(f"无可检查的访存：{pr.entry} 没有 {what} 访问。",
                                           f"Nothing to check: {pr.entry} issues no {what} access."))
    if not bad:
        lines = ", ".join(str(n) for n in sorted({r["line"] for r in seen}))
        return _row(check, pr, "pass", msg(f"{what} 每行都达到理想值（第 {lines} 行）。",
                                           f"Every {what} line is at the ideal (line {lines})."))
    bad.sort(key=lambda r: -r["per_request"] / max(r["ideal"], 1e-9))
    w = bad[0]
    more_zh = f"，另有 {len(bad) - 1} 处" if len(bad) > 1 else ""
    more_en = f"; {len(bad) - 1} more" if len(bad) > 1 else ""
    return _row(check, pr, "fail",
                msg(f"第 {w['line']} 行 {w['op']}：每请求 {w['per_request']:g} 个{counters.unit(w['op'], 'zh')}，"
                    f"理想 {w['ideal']:g}{more_zh}。",
                    f"line {w['line']} {w['op']}: {w['per_request']:g} {counters.unit(w['op'], 'en')} per request, "
                    f"ideal {w['ideal']:g}{more_en}."),
                bad)
