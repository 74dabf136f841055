"""Issue 16: a batch survives any name and any bytes. Names that are not UTF-8, with spaces,
newlines or leading dashes get distinct safe names and their own rows; nothing a row carries can
stop the gradebook from being written; no temporary file is left in OUT; a removed submission's
row goes away. Fast: the judge itself is not run (see test_grade_batch.py for that)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from types import SimpleNamespace

from drills import manifest
from drills.grading import gradebook, hidden
from drills.grading.batch import Grader
from drills.grading.submissions import discover

NAMES = [b"\xff\xfe-caf\xe9.cu", b"with space.cu", b"new\nline.cu", b"-rf.cu", b"--help", b"ok.cu"]


def make_subs(folder: Path) -> None:
    folder.mkdir()
    for raw in NAMES:
        path = os.path.join(os.fsencode(folder), raw)
        if raw.endswith(b".cu"):
            with open(path, "wb") as f:
                f.write(b"__global__ void k() {}\n\xff not utf-8 either\n")
        else:
            os.mkdir(path)
            with open(os.path.join(path, b"c3_transpose.cu"), "wb") as f:
                f.write(b"// empty\n")


def grader(out: Path, problem) -> Grader:
    g = object.__new__(Grader)
    g.args = SimpleNamespace(timeout=10, build_timeout=10, lang="en")
    g.problem, g.backend, g.hidden = problem, "sim", hidden.Hidden()
    g.kind, g.note, g.out, g.lang, g.key = "rlimits", "test", out, "en", "k"
    g.limits = {}
    g.cases, g.checks = [], []
    g.done, g.stopping, g.print_lock = 0, False, threading.Lock()
    return g


def test_any_name_gets_its_own_row_and_nothing_is_left_in_out(tmp_path):
    problem = manifest.find(manifest.load(), "78")
    subs_dir, out = tmp_path / "subs", tmp_path / "out"
    make_subs(subs_dir)
    out.mkdir()
    subs = discover(subs_dir, problem)
    names = [s.name for s in subs]
    assert len(set(names)) == len(NAMES), names
    assert all(n and not n.startswith("-") and "\n" not in n for n in names), names
    g = grader(out, problem)

    def broken(sub):  # the judge failing in the worst way for one of them
        raise RuntimeError("judge exploded on " + str(sub.source))
    g.run = broken
    for sub in subs:
        g.grade(sub)
    path = gradebook.write_csv(out, keep=set(names))
    rows = path.read_text(encoding="utf-8").splitlines()
    assert len(rows) == 1 + len(NAMES)
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".") or ".tmp" in p.name]
    assert not leftovers, leftovers
    for n in names:
        d = json.loads((out / f"{n}.json").read_text(encoding="utf-8"))
        assert d["status"] == "error"

    # one submission removed: its row goes on the next run
    gone = names[0]
    path = gradebook.write_csv(out, keep=set(names) - {gone})
    assert all(not line.startswith(gone + ",") for line in path.read_text(encoding="utf-8").splitlines())


def test_write_atomic_takes_lone_surrogates_and_leaves_no_temporary_file(tmp_path):
    gradebook.write_atomic(tmp_path / "x.json", json.dumps({"s": "caf\udce9"}, ensure_ascii=False))
    assert "\\udce9" in (tmp_path / "x.json").read_text(encoding="utf-8")
    assert [p.name for p in tmp_path.iterdir()] == ["x.json"]


def test_feedback_shows_no_value_a_submission_chose():
    from drills.grading.feedback import render
    d = {"problem": 78, "status": "fail", "message": {"en": "1 test(s) failed", "zh": "1"}, "backend": {"kind": "sim"},
         "diagnoses": [],
         "tests": [{"name": "Transpose.X/naive_31x33", "status": "fail", "variant": "naive", "shape": [31, 33],
                    "message": "130067 of 1023 elements differ (output is 31x33)",
                    "mismatches": "[0, 0] expected 0.5 got 130067\n[0, 1] expected 0.25 got 7.0e+00"}],
         "grading": {"submission": "eve", "hidden_case_names": ["Transpose.X/naive_130x67"],
                     "scoring": {"score": 0, "max_score": 85,
                                 "cases": {"passed": 0, "total": 2, "public_passed": 0, "public_total": 1,
                                           "hidden_passed": 0, "hidden_total": 1},
                                 "checks": {"passed": 0, "total": 0, "failed": []},
                                 "perf": {"tier": None, "pct_copy_kernel": None}}}}
    text = render(d, "en", [(130, 67)], "transpose")
    assert "130067" not in text and "7.0e+00" not in text and "130" not in text, text
    assert "expected 0.5" in text  # the judge's own values stay


def test_a_result_file_is_the_childs_only_when_the_child_ended_normally(tmp_path, monkeypatch):
    """A submission's process could write an all-pass result.json (the one file the sandbox lets
    out) and kill the judging child before it wrote its own: no result, not a pass."""
    from drills.grading import sandbox
    from drills.grading.submissions import Submission
    problem = manifest.find(manifest.load(), "78")
    g = grader(tmp_path / "out", problem)
    g.args = SimpleNamespace(timeout=10, build_timeout=10, lang="en", memory_mb=None)
    g.tmpl = SimpleNamespace(recipe={}, reference_capi=tmp_path / "ref.so", checker=tmp_path / "checker", root=tmp_path)
    g.sim_threads = 1
    forged = {"problem": 78, "status": "pass", "message": {"en": "forged", "zh": "forged"}, "tests": []}

    def child(code):
        def run_child(argv, work, env, wall, kind, readable, gpu, token, hide=(), memory_mb=None):
            (work / sandbox.RESULT).write_text(json.dumps(forged))
            return sandbox.Finished(code, 0.1, "")
        return run_child
    f = tmp_path / "c3_transpose.cu"
    f.write_text("// mine\n")
    sub = Submission("mine", f, f)
    monkeypatch.setattr(sandbox, "run_child", child(-9))
    assert g.run(sub)["status"] == "error"
    monkeypatch.setattr(sandbox, "run_child", child(0))
    assert g.run(sub)["status"] == "pass"  # the same file from a child that ended normally


def test_feedback_names_a_diagnosis_only_the_hidden_cases_gave_without_its_facts():
    """An out-of-bounds index, a value, a line: facts of a hidden case a submission could choose
    (the hidden shape encoded in the index it reads). The feedback names the diagnosis, nothing
    more, and the verdict's words too when they are that diagnosis's."""
    from drills.grading.feedback import render
    leak = {"en": "out of bounds at index 4213067 (line 9)", "zh": "越界：下标 4213067（第 9 行）"}
    d = {"problem": 78, "status": "fail", "message": leak, "backend": {"kind": "sim"},
         "diagnoses": [{"id": "out-of-bounds", "message": leak, "facts": {"index": 4213067}, "file": "x.cu",
                        "line": 9, "hidden": True}],
         "tests": [],
         "grading": {"submission": "eve", "hidden_case_names": ["Transpose.X/naive_130x67"],
                     "scoring": {"score": 80, "max_score": 85,
                                 "cases": {"passed": 1, "total": 2, "public_passed": 1, "public_total": 1,
                                           "hidden_passed": 0, "hidden_total": 1},
                                 "checks": {"passed": 0, "total": 0, "failed": []},
                                 "perf": {"tier": None, "pct_copy_kernel": None}}}}
    for lang in ("en", "zh"):
        text = render(d, lang, [(130, 67)], "transpose")
        assert "4213067" not in text and "line 9" not in text and "x.cu" not in text, text
        assert "`out-of-bounds`" in text
