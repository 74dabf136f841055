"""The verdict: one policy, in one function, read by the terminal, the web app and the grader alike.

    pass   every contract case ran and passed, and every check of severity `fail` was measured
           and passed. Checks of severity `note` teach without changing the verdict.
    fail   the program ran to the end and a test failed (a wrong answer, or a pass in its own report
           that the checker, which never loads the learner's code, did not confirm from the
           outputs: drills/pipeline/gtestrun.py), or a check of severity
           `fail` was measured and failed (a right answer without the chapter's technique), or, on
           a GPU, the simulator's replay of the same cases found a race or a bad access that the
           GPU's outputs happened not to show (drills/pipeline/replay.py): the simulator backend
           fails such a file, and both backends must agree.
    error  the program did not build, did not finish (timeout, crash, deadlock), used something
           the simulator does not support, ran no test, left a contract case unrun, or a check of
           severity `fail` could not be measured, or (on a GPU) a time the program reported was not
           confirmed by a clock outside it (timing_checked): the result says why. Never a silent pass.

The diagnoses the verdict leads with are the same on both backends because root causes and their
symptoms combine by one rule (drills/pipeline/symptoms.py): when the simulator (on a GPU, its replay)
finds a race, a bad access or a barrier fault, the problem's rules read the pattern of wrong outputs
from the simulator's run, and what the root cause did to a GPU's outputs is not a second mistake.

A contract case is a test of an entry point of the contract (the manifest's `entry_points`): a
GoogleTest case whose variant is an entry point or its suffix (`tiled` for `transpose_tiled`), or
whose variant matches one of the scoring table's `case_variants` globs, or a pytest case with an
entry point among its parameters. The grader's points come from this same decision
(drills/grading/scoring.py): it never decides a status of its own.
"""

from __future__ import annotations

import re
from fnmatch import fnmatchcase

from ..manifest import Problem
from ..messages import say
from ..result import Result
from .diagnose import ERROR_IDS
from .replay import DEFECTS as REPLAY_DEFECTS


def _params(name: str) -> list[str]:
    m = re.search(r"\[(.*)\]$", name)
    return m.group(1).split("-") if m else []


def is_contract_case(test: dict, problem: Problem) -> bool:
    wanted = problem.scoring.case_variants  # glob patterns, when the names need saying
    if test.get("source") == "gtest":
        v = test.get("variant")
        if not v:
            return False
        if wanted:
            return any(fnmatchcase(v, w) for w in wanted)
        return any(e == v or e.endswith("_" + v) for e in problem.entry_points)
    params = _params(test.get("name", ""))
    if wanted:
        return any(fnmatchcase(p, w) for p in params for w in wanted)
    return any(p in problem.entry_points for p in params)


def _broken(runs: list):
    return next((r for r in runs if r.timed_out or r.crashed or getattr(r, "channel", "")
                 or (r.exit_code not in (0, 1) and not r.tests)), None)


def decide(problem: Problem, result: Result, runs: list) -> None:
    """Set result.status and result.message (a catalogue reference) from the evidence and diagnoses."""
    broken = _broken(runs)
    hard = next((d for d in result.diagnoses if d["id"] in ERROR_IDS), None)
    lead = result.diagnoses[0]["message"] if result.diagnoses else None

    if hard is not None and broken is None:
        return _set(result, "error", hard["message"])
    if broken is not None:
        if getattr(broken, "channel", "") and not broken.timed_out:  # no diagnosis may turn this into a pass
            key = "checker.unconfirmed-run" if getattr(broken, "checker_failed", False) else "verdict.report-untrusted"
            return _set(result, "error", say(key, why=broken.channel))
        why = (say("verdict.timed-out") if broken.timed_out
               else say("verdict.crashed", what=broken.crashed or f"exit code {broken.exit_code}"))
        return _set(result, "error", lead or why)

    ran = [t for t in result.tests if t["status"] != "skip"]
    if not ran:
        return _set(result, "error", say("verdict.no-test"))
    # A pass the program's own report claimed and its outputs did not bear out: said first, whatever
    # a diagnosis would lead with (the rows' evidence came from that same report).
    unconfirmed = [t for t in result.tests if t.get("checker") == "results-not-confirmed"]
    if unconfirmed:
        return _set(result, "fail", say("checker.results-not-confirmed", count=len(unconfirmed),
                                        first=unconfirmed[0]["name"]))
    failed = [t for t in result.tests if t["status"] in ("fail", "error")]
    if failed:
        return _set(result, "fail", lead or say("verdict.tests-failed", count=len(failed), first=failed[0]["name"]))
    # On a GPU: the simulator's replay of the same cases found a race or a bad access that the
    # GPU's outputs happened not to show. The simulator backend fails such a file; so does this one.
    replayed = next((d for d in result.diagnoses if d.get("replay") and d["id"] in REPLAY_DEFECTS), None)
    if replayed is not None:
        return _set(result, "fail", say("verdict.replay-defect", finding=replayed["message"]))
    unrun = [t for t in result.tests if t["status"] == "skip" and is_contract_case(t, problem)]
    if unrun:
        return _set(result, "error", say("verdict.contract-case-unrun", name=unrun[0]["name"],
                                         why=unrun[0].get("message", "")))

    rows = {c["id"]: c for c in result.checks}
    lesson = [c.id for c in problem.checks if c.severity == "fail"]
    failed_checks = [rows[i] for i in lesson if i in rows and rows[i]["status"] == "fail"]
    if failed_checks:  # measured and failed: a fail, whatever else could not be measured
        c = failed_checks[0]
        return _set(result, "fail", say("verdict.check-failed", id=c["id"], why=c["message"]))
    for i in lesson:
        row = rows.get(i)
        if row is None:
            return _set(result, "error", say("verdict.check-missing", id=i))
        if row["status"] == "skip":  # a check of an optional entry point the file does not define
            continue
        if row["status"] != "pass":
            return _set(result, "error", say("verdict.check-unmeasured", id=i, why=row["message"]))
    notes = [c for c in result.checks if c.get("severity") == "note" and c["status"] != "pass"]
    return _set(result, "pass", say("verdict.pass", count=len(ran),
                                    notes=say("verdict.notes", count=len(notes)) if notes else ""))


def timing_checked(result: Result) -> None:
    """After a GPU timing (drills/pipeline/perf.py): a time the learner's process reported that a
    clock outside it does not confirm (drills/pipeline/timecheck.py) makes the verdict `error`: the
    program's evidence cannot be trusted, whatever its tests said. Its tier is never used either
    (drills/grading/scoring.py)."""
    bad = (result.perf or {}).get("unconfirmed") or []
    if bad:
        _set(result, "error", bad[0]["message"])


def _set(result: Result, status: str, message: dict) -> None:
    result.status, result.message = status, message
