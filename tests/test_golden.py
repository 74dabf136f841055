"""Golden cases for the judge: a folder per situation under tests/golden/<chapter>/ (c1, c2, c3:
the chapter of the problem it answers). Each chapter has one base learner file, base.cu (correct:
the case pass-base judges it as it is); a case's mistake (or correct variant, pass-*) is
mistake.patch, a small unified diff against it, and expected.json holds the stable parts of the
result it must get: status, diagnosis ids in order, failed (and for passes, passed) technique
checks, the first diagnosis's line.

Each case's patched file is written to build/golden-src/<chapter>/<case>/learner.cu and swapped into
the problem's shared build (drills/pipeline/swap.py): a case costs one compile of its own file, and
cases may run in parallel. `DRILLS_GOLDEN_UPDATE=1 pytest tests/test_golden.py` rewrites expected.json
from what the judge says now (review the diff before committing).

Parity: `DRILLS_GOLDEN_BACKEND=gpu` judges every case on the GPU and holds it to the same expected
verdict and diagnosis ids (expected.json is what the simulator says); a case's `timeout` applies to
the simulator only, so the GPU's own watchdog (scaled to the reference) is what stops a hang there.
`DRILLS_GOLDEN_TABLE=FILE` appends one JSON line per case (expected, got, seconds) for a parity
table (benchmarks/h200/gpupath.sh).
"""

from __future__ import annotations

import json
import os
import shutil

import pytest
from fixture_patch import materialise
from result_schema import assert_valid_result

from drills import ROOT, manifest
from drills.pipeline.judge import judge
from drills.pipeline.toolchain import backend_unavailable

GOLDEN = ROOT / "tests" / "golden"
PROBLEMS = {p.chapter.lower(): p for p in manifest.load().values()}
CHAPTERS = sorted(d.name for d in GOLDEN.iterdir() if d.is_dir())
CASES = [(chapter, case.name) for chapter in CHAPTERS
         for case in sorted((GOLDEN / chapter).iterdir()) if (case / "expected.json").exists()]


def learner_file(chapter: str, case: str):
    folder = GOLDEN / chapter / case
    return materialise(folder / "mistake.patch", GOLDEN / chapter / "base.cu",
                       ROOT / "build" / "golden-src" / chapter / case / "learner.cu")


UPDATE = os.environ.get("DRILLS_GOLDEN_UPDATE") == "1"
BACKEND = os.environ.get("DRILLS_GOLDEN_BACKEND", "sim")
TABLE = os.environ.get("DRILLS_GOLDEN_TABLE")

pytestmark = pytest.mark.skipif(bool(backend_unavailable(BACKEND) or backend_unavailable("sim") or not shutil.which("nvcc")),
                                reason=f"needs nvcc, the simulator sources and the {BACKEND} backend")


def stable(result, expected: dict) -> dict:
    d = result.to_dict()
    got = {"status": d["status"], "diagnoses": [x["id"] for x in d["diagnoses"]],
           "checks_failed": sorted(c["id"] for c in d["checks"] if c["status"] == "fail")}
    if "checks_passed" in expected or expected.get("status") == "pass":
        got["checks_passed"] = sorted(c["id"] for c in d["checks"] if c["status"] == "pass")
    if "first_diagnosis_line" in expected:
        got["first_diagnosis_line"] = d["diagnoses"][0]["line"] if d["diagnoses"] else None
    return got


def test_every_golden_folder_names_a_chapter():
    assert set(CHAPTERS) <= set(PROBLEMS), f"tests/golden/ folders without a problem: {set(CHAPTERS) - set(PROBLEMS)}"


@pytest.mark.parametrize("chapter, case", CASES, ids=[f"{c}/{n}" for c, n in CASES])
def test_each_case_is_its_base_and_at_most_a_small_patch(chapter, case, tmp_path):
    folder = GOLDEN / chapter / case
    patch = folder / "mistake.patch"
    assert patch.exists() or case == "pass-base", f"{case}: a mistake.patch against {chapter}/base.cu"
    assert not (folder / "learner.cu").exists(), "a case is a patch, not a copy"
    materialise(patch, GOLDEN / chapter / "base.cu", tmp_path / "learner.cu")  # the patch applies


@pytest.mark.parametrize("chapter, case", CASES, ids=[f"{c}/{n}" for c, n in CASES])
def test_golden(chapter, case, monkeypatch):
    problem = PROBLEMS[chapter]
    folder = GOLDEN / chapter / case
    expected = json.loads((folder / "expected.json").read_text(encoding="utf-8"))
    for key, value in expected.get("env", {}).items():
        monkeypatch.setenv(key, value)
    timeout = float(expected.get("timeout", 120)) if BACKEND == "sim" else None
    result = judge(problem, learner_file(chapter, case), BACKEND, run_pytest=False, perf=False, timeout=timeout)
    assert_valid_result(result.to_dict())
    got = stable(result, expected)
    if TABLE:
        with open(TABLE, "a", encoding="utf-8") as f:
            f.write(json.dumps({"case": f"{chapter}/{case}", "backend": BACKEND, "seconds": result.seconds,
                                "expected": {k: expected.get(k) for k in ("status", "diagnoses")},
                                "got": {k: got[k] for k in ("status", "diagnoses")},
                                "replayed": [d["id"] for d in result.diagnoses if d.get("replay")],
                                "first": result.diagnoses[0]["message"]["en"][:300] if result.diagnoses else "",
                                "timings": result.timings}) + "\n")
    if UPDATE and BACKEND == "sim":
        keep = {k: v for k, v in expected.items() if k not in got}
        (folder / "expected.json").write_text(json.dumps({**keep, **got}, indent=2, ensure_ascii=False) + "\n",
                                              encoding="utf-8")
    want = {k: expected[k] for k in got if k in expected}
    assert {k: got[k] for k in want} == want, (
        f"{case}: {result.message['en']}\n{json.dumps(result.to_dict()['diagnoses'], ensure_ascii=False, indent=1)}")
    for id_, words in expected.get("message_contains", {}).items():
        d = next(x for x in result.diagnoses if x["id"] == id_)
        assert words in d["message"]["en"], d["message"]["en"]
    # Every diagnosis speaks both languages.
    for d in result.diagnoses:
        assert d["message"]["zh"] and d["message"]["en"], d


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_reference_passes_every_check(chapter):
    problem = PROBLEMS[chapter]
    result = judge(problem, problem.path("solution"), BACKEND, run_pytest=False, perf=False)
    assert_valid_result(result.to_dict())
    assert result.status == "pass", result.message["en"]
    assert result.diagnoses == []
    assert sorted(c["status"] for c in result.checks) == ["pass"] * len(problem.checks)
    # The per-line report: every memory line of the probe has a per-request cost and its ideal.
    lines = [l for launch in result.counters for l in launch["lines"]]
    assert lines and all(set(l["per_request"]) == set(l["ideal"]) for l in lines)
    assert all(l["file"] == problem.solution for l in lines)
