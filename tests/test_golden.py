"""Golden cases for the judge: a folder per situation under tests/golden/<chapter>/ (c1, c2, c3:
the chapter of the problem it answers). Each chapter has one base learner file, base.cu (correct:
the case pass-base judges it as it is); a case's mistake (or correct variant, pass-*) is
mistake.patch, a small unified diff against it, and expected.json holds the stable parts of the
result it must get: status, diagnosis ids in order, failed (and for passes, passed) technique
checks, the first diagnosis's line.

A chapter's cases share one simulator build folder (build/sim-golden-<chapter>) and one source path
(build/golden-src/<chapter>/learner.cu, where the patched file is written): after the first, a case
recompiles only that file. `DRILLS_GOLDEN_UPDATE=1 pytest tests/test_golden.py` rewrites expected.json
from what the judge says now (review the diff before committing).
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
                       ROOT / "build" / "golden-src" / chapter / "learner.cu")
UPDATE = os.environ.get("DRILLS_GOLDEN_UPDATE") == "1"

pytestmark = pytest.mark.skipif(bool(backend_unavailable("sim") or not shutil.which("nvcc")),
                                reason="needs nvcc and the simulator sources")


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
    result = judge(problem, learner_file(chapter, case), "sim", build_root=ROOT / "build" / f"sim-golden-{chapter}",
                   run_pytest=False, perf=False,
                   timeout=float(expected.get("timeout", 120)))
    assert_valid_result(result.to_dict())
    got = stable(result, expected)
    if UPDATE:
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
    result = judge(problem, problem.path("solution"), "sim", run_pytest=False, perf=False)
    assert_valid_result(result.to_dict())
    assert result.status == "pass", result.message["en"]
    assert result.diagnoses == []
    assert sorted(c["status"] for c in result.checks) == ["pass"] * len(problem.checks)
    # The per-line report: every memory line of the probe has a per-request cost and its ideal.
    lines = [l for launch in result.counters for l in launch["lines"]]
    assert lines and all(set(l["per_request"]) == set(l["ideal"]) for l in lines)
    assert all(l["file"] == problem.solution for l in lines)
