"""Record what the simulator's run of a golden case leaves for the diagnoses: its test rows and its
launch errors, the input of tests/test_parity.py. The simulator's run is also what a GPU judge's
replay of the same file runs (drills/pipeline/judge.py, _side_run), so one recording stands for both.

    python3 tests/parity/capture.py c4/k-tail-read-outside [...]   # writes tests/parity/<chapter>-<case>.json

Keeps each run case's name, status, variant, shape, evidence and the start of a failure's message,
each distinct launch error without counters, and the checks as the diagnoses read them (their messages
references with facts, not yet rendered).
A recording keeps its `gpu` part (what the H200 showed, written by hand from its run) when rewritten.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # fixture_patch
sys.path.insert(0, str(HERE.parent.parent))

from drills import manifest  # noqa: E402
from drills.pipeline import diagnose, gtestrun  # noqa: E402
from drills.pipeline.judge import judge  # noqa: E402
from fixture_patch import materialise  # noqa: E402

ROOT = HERE.parent.parent
GOLDEN = ROOT / "tests" / "golden"


def compact_row(t: dict) -> dict | None:
    """A skipped case (a reference's variant the file does not define) tells the diagnoses nothing."""
    if t.get("status") == "skip":
        return None
    keep = {k: t[k] for k in ("name", "status", "variant", "shape", "evidence") if k in t}
    if t.get("status") != "pass":
        keep["message"] = (t.get("message") or "")[:200]
    return keep


def dump(doc: dict) -> str:
    """JSON with one test row a line: a recording reads (and diffs) row by row."""
    text = json.dumps({**doc, "sim": {**doc["sim"], "tests": "@TESTS@"}, "gpu": {**doc["gpu"], "rows": "@ROWS@"}},
                      indent=1, ensure_ascii=False)
    lines = lambda rows: "[\n" + ",\n".join("  " + json.dumps(r, ensure_ascii=False) for r in rows) + "\n ]"  # noqa: E731
    return (text.replace('"@TESTS@"', lines(doc["sim"]["tests"]))
            .replace('"@ROWS@"', lines(doc["gpu"].get("rows", []))) + "\n")


def compact_event(e: dict) -> dict | None:
    if e.get("event") != "launch":
        return e
    if not e.get("errors"):
        return None
    return {k: e[k] for k in ("event", "kernel", "mangled", "errors") if k in e}


def relative(doc):
    """Paths under this checkout as the judge shows them (relative), so a recording is the same anywhere."""
    if isinstance(doc, str):
        return doc.replace(str(ROOT) + "/", "")
    if isinstance(doc, list):
        return [relative(x) for x in doc]
    if isinstance(doc, dict):
        return {k: relative(v) for k, v in doc.items()}
    return doc


def unique(events: list) -> list:
    """One of each launch error (every case of a variant repeats the same one)."""
    seen, out = set(), []
    for e in events:
        key = json.dumps(e, sort_keys=True)
        if key not in seen:
            seen.add(key)
            out.append(e)
    return out


def compact_check(c: dict) -> dict:
    """A check row as the diagnoses read it: a failed one keeps its first offending lines."""
    keep = {k: c[k] for k in ("id", "status", "severity", "entry", "diagnosis", "message") if k in c}
    if c.get("status") == "fail":
        keep["lines"] = (c.get("lines") or [])[:3]
    return keep


def capture(chapter: str, case: str) -> Path:
    problems = {p.chapter.lower(): p for p in manifest.load().values()}
    problem = problems[chapter]
    folder = GOLDEN / chapter / case
    learner = materialise(folder / "mistake.patch", GOLDEN / chapter / "base.cu",
                          ROOT / "build" / "golden-src" / chapter / case / "learner.cu")
    runs, checks = [], []
    real, real_checks = gtestrun.run, diagnose.from_checks

    def recording(*args, **kwargs):
        r = real(*args, **kwargs)
        runs.append(r)
        return r

    def checks_as_read(problem, result):  # the checks as the diagnoses read them: messages not yet rendered
        checks.extend(copy.deepcopy(result.checks))
        return real_checks(problem, result)

    gtestrun.run, diagnose.from_checks = recording, checks_as_read
    try:
        result = judge(problem, learner, "sim", run_pytest=False, perf=False, timeout=120)
    finally:
        gtestrun.run, diagnose.from_checks = real, real_checks
    (run,) = runs  # the judged file's GoogleTest run (a sim judge makes no other)
    out = HERE / f"{chapter}-{case}.json"
    old = json.loads(out.read_text()) if out.exists() else {}
    doc = {"case": f"{chapter}/{case}", "file": result.file,
           "sim": {"diagnoses": [d["id"] for d in result.diagnoses], "status": result.status,
                   "tests": [r for r in (compact_row(t) for t in run.tests) if r],
                   "events": unique([c for c in (compact_event(e) for e in run.sim_events) if c]),
                   "checks": [compact_check(c) for c in checks]},
           "gpu": old.get("gpu", {})}
    out.write_text(dump(relative(doc)), encoding="utf-8")
    return out


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        chapter, case = arg.split("/")
        print(capture(chapter, case))
