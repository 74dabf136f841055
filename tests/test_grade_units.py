"""The grader's parts that need no compiler: the hidden-cases file, finding submissions, scoring,
feedback, the gradebook and --merge, bad input on the command line, the process-tree kill."""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pydantic import ValidationError

from drills import ROOT, manifest
from drills.manifest import Scoring
from drills.messages import text
from drills.grading.command import select
from drills.grading import GradeError, feedback, gradebook, hidden, sandbox, scoring
from drills.grading.submissions import defines, discover

PROBLEMS = manifest.load()
P78 = PROBLEMS[78]
JUDGE = [sys.executable, str(ROOT / "practice" / "judge.py")]

RIGHT = """
#include "tile.cuh"
// void transpose_naive(const float* x, float* y, int M, int N) { commented out }
void transpose_naive(const float* x, float* y, int M, int N);   // a declaration is not a definition
void transpose_naive(const float* x, float* y, int M, int N) { launch(x, y, M, N); }
void transpose_tiled(const float* x, float* y,
                     int M, int N) {
  launch2(x, y, M, N);
}
"""


# ---- HIDDEN.toml ----------------------------------------------------------------------------------

def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_hidden_file_reads_shapes_and_seed(tmp_path):
    h, warnings = hidden.load(write(tmp_path / "h.toml", "[78]\nshapes = [[130, 67], \"3x4099\"]\nseed = 7\n"),
                              P78, PROBLEMS)
    assert h.shapes == ((130, 67), (3, 4099)) and h.seed == 7 and warnings == []
    assert h.fingerprint() != hidden.Hidden(((130, 67),), 7).fingerprint()


@pytest.mark.parametrize("text, words", [
    ("[78\nshapes = 1", "not valid TOML"),
    ("[79]\nshapes = [[2, 3]]\n[78]\nseed = 1", "no problem '79'"),
    ("[c3]\nseed = 1", "no problem 'c3'"),
    ("[78]\nshape = [[2, 3]]", "unknown key 'shape'"),
    ("[78]\nshapes = [[2, 3, 4]]", "shapes[0]"),
    ("[78]\nshapes = [[0, 3]]", "positive"),
    ("[78]\nshapes = [[2, 3], [2, 3]]", "listed twice"),
    ("[78]\nshapes = [[31, 33]]", "public shape"),
    ("[78]\nshapes = [[2, 3]]\nseed = -1", "seed must be"),
    ("[78]\nseed = \"7\"", "seed must be"),
    ("[78]\n", "nothing hidden"),
    ("x = 1", "no problem 'x'"),
])
def test_hidden_file_mistakes_are_named(tmp_path, text, words):
    with pytest.raises(GradeError, match=words.replace("[", r"\[")):
        hidden.load(write(tmp_path / "h.toml", text), P78, PROBLEMS)


def test_hidden_file_inside_the_repository_warns():
    _, warnings = hidden.load(ROOT / "tests" / "grade_fixtures" / "hidden.toml", P78, PROBLEMS)
    assert any("inside the repository" in w for w in warnings)


# ---- submissions ------------------------------------------------------------------------------------

def test_defines_tells_definitions_from_declarations_and_comments():
    assert defines(RIGHT, "transpose_naive") and defines(RIGHT, "transpose_tiled")
    assert not defines("void transpose_naive(const float*, float*, int, int);", "transpose_naive")
    assert not defines("/* void transpose_naive(int) { } */ int x;", "transpose_naive")
    assert not defines('const char* s = "transpose_naive(x) {";', "transpose_naive")
    assert defines("void transpose_naive(const float* x, float* y, int M, int N) noexcept { }", "transpose_naive")


def test_discover_names_and_chooses_files(tmp_path):
    write(tmp_path / "alice" / "src" / "kernel.cu", RIGHT)
    write(tmp_path / "alice" / "src" / "tile.cuh", "")
    write(tmp_path / "alice" / "scratch.cu", "int main() { }")
    write(tmp_path / "bob.cu", "anything")
    write(tmp_path / "carol" / "a.cu", RIGHT)
    write(tmp_path / "carol" / "b.cu", RIGHT)
    write(tmp_path / "dave" / "notes.txt", "")
    write(tmp_path / "erin" / "one.cu", "void transpose_naive(const float* x, float* y, int M, int N) { }")
    write(tmp_path / "frank" / "a.cu", "int a;")
    write(tmp_path / "frank" / "b.cu", "int b;")
    write(tmp_path / "grace smith!" / "k.cu", RIGHT)
    write(tmp_path / ".git" / "x.cu", RIGHT)
    write(tmp_path / "roster.csv", "")
    subs = {s.name: s for s in discover(tmp_path, P78)}
    assert sorted(subs) == ["alice", "bob", "carol", "dave", "erin", "frank", "grace_smith"]
    assert subs["alice"].file == tmp_path / "alice" / "src" / "kernel.cu"
    assert subs["bob"].file == tmp_path / "bob.cu"
    assert subs["carol"].file is None and subs["carol"].why_id == "several-contract-files"
    assert "a.cu, b.cu" in text(subs["carol"].why, "en")
    assert subs["dave"].why_id == "no-cu-file"
    assert subs["erin"].file == tmp_path / "erin" / "one.cu"  # one file: the judge names what it lacks
    assert subs["frank"].why_id == "no-contract-file" and "transpose_naive" in text(subs["frank"].why, "en")


def test_select_only_and_shard(tmp_path):
    for n in "abcde":
        write(tmp_path / f"{n}.cu", RIGHT)
    subs = discover(tmp_path, P78)
    assert [s.name for s in select(subs, None, "1/2", tmp_path)] == ["b", "d"]
    assert [s.name for s in select(subs, ["c", "a"], None, tmp_path)] == ["a", "c"]
    with pytest.raises(GradeError, match="no submission named zed"):
        select(subs, ["zed"], None, tmp_path)
    with pytest.raises(GradeError, match="K/N"):
        select(subs, None, "2/2", tmp_path)
    with pytest.raises(GradeError, match="no submissions"):
        select([], None, None, tmp_path)


# ---- scoring and feedback ---------------------------------------------------------------------------

def gtest(variant, m, n, status="pass"):
    return {"name": f"C3/Transpose.MatchesHostReference/{variant}_{m}x{n}", "status": status, "source": "gtest",
            "variant": variant, "shape": [m, n], "message": f"{variant} on x of {m}x{n}" if status != "pass" else ""}


def reference_result():
    tests = [gtest(v, m, n) for v in ("naive", "tiled", "tiled_unpadded") for m, n in ((31, 33), (130, 67))]
    tests += [{"name": "pytest.test_public_shapes[31x33-transpose_tiled]", "status": "pass", "source": "pytest"},
              {"name": "pytest.test_public_shapes[31x33-transpose_fast]", "status": "pass", "source": "pytest"},
              {"name": "pytest.test_copy_bound_copies", "status": "pass", "source": "pytest"}]
    checks = [{"id": "shared-memory-used", "status": "pass", "severity": "fail"},
              {"id": "no-bank-conflicts", "status": "error", "severity": "fail"},
              {"id": "conflict-free", "status": "pass", "severity": "note"}]  # a note earns nothing
    return {"status": "pass", "tests": tests, "checks": checks, "backend": {"kind": "sim"}}


def fail(result, short):
    for t in result["tests"]:
        if t["name"].endswith("/" + short):
            t["status"], t["message"] = "fail", f"{short}: wrong"


def test_cases_are_the_contracts_tests_and_hidden_ones_are_marked():
    cases = scoring.universe(reference_result(), P78, [(130, 67)])
    names = {c["name"]: c["hidden"] for c in cases}
    assert len(cases) == 5  # naive, tiled on two shapes + the pytest case of transpose_tiled
    assert names["C3/Transpose.MatchesHostReference/tiled_130x67"] is True
    assert names["pytest.test_public_shapes[31x33-transpose_tiled]"] is False
    assert not any("unpadded" in n or "fast" in n or "copy" in n for n in names)
    assert scoring.reference_checks(reference_result()) == ["shared-memory-used"]


def test_case_variants_are_glob_patterns_when_the_manifest_names_them():
    problem = P78.model_copy(update={"scoring": Scoring(case_variants=["naive", "tiled*", "transpose_tiled"])})
    names = [c["name"] for c in scoring.universe(reference_result(), problem, [])]
    assert sum("unpadded" in n for n in names) == 2 and sum("naive" in n for n in names) == 2
    assert "pytest.test_public_shapes[31x33-transpose_tiled]" in names and not any("fast" in n for n in names)
    with pytest.raises(ValidationError, match="case\n.*Extra inputs are not permitted"):
        Scoring.model_validate({"case": 1})


def test_score_on_the_simulator_leaves_perf_out():
    cases = scoring.universe(reference_result(), P78, [(130, 67)])
    result = reference_result()
    fail(result, "tiled_31x33")
    sc = scoring.score(result, P78, cases, ["shared-memory-used"], "sim")
    t = scoring.table(P78)
    assert sc["max_score"] == t["cases"] + t["checks"]
    assert sc["cases"] == {"passed": 4, "total": 5, "public_passed": 2, "public_total": 3,
                           "hidden_passed": 2, "hidden_total": 2}
    assert sc["score"] == round(t["cases"] * 4 / 5, 2)  # checks earn nothing while a case fails
    assert sc["perf"]["tier"] is None
    full = scoring.score(reference_result(), P78, cases, ["shared-memory-used"], "sim")
    assert full["score"] == full["max_score"]
    broken = scoring.score({"status": "error", "tests": []}, P78, cases, ["shared-memory-used"], "sim")
    assert broken["score"] == 0 and broken["cases"]["total"] == 5


@pytest.mark.parametrize("pcts, tier", [((95, 91), "gold"), ((95, 85), "gold"), ((85, 99), "silver"),
                                        ((60, 99), "bronze"), ((30, 99), "none")])
def test_perf_tier_counts_only_the_perf_shapes(pcts, tier):
    """78 grades the tier at 8192x8192 only (its perf_shapes): the 4113x8197 number is ignored."""
    result = reference_result()
    result["backend"] = {"kind": "gpu"}
    result["perf"] = {"variants": [{"name": "transpose_tiled", "shape": [8192, 8192], "pct_copy_kernel": pcts[0]},
                                   {"name": "transpose_tiled", "shape": [4113, 8197], "pct_copy_kernel": pcts[1]},
                                   {"name": "transpose_naive", "shape": [8192, 8192], "pct_copy_kernel": 10}]}
    cases = scoring.universe(reference_result(), P78, [])
    sc = scoring.score(result, P78, cases, [], "gpu")
    t = scoring.table(P78)
    assert t["perf_shapes"] == ["8192x8192"]
    assert sc["perf"]["tier"] == tier and sc["perf"]["pct_copy_kernel"] == pcts[0]
    assert sc["perf"]["points"] == round(t["perf"] * t["tier_points"].get(tier, 0), 2)
    assert sc["max_score"] == t["cases"] + t["perf"]



@pytest.mark.parametrize("defined, tier", [(("softmax_fast", "softmax_online"), "gold"), (("softmax_online",), "bronze"),
                                           ((), "none")])
def test_perf_tier_times_the_fallback_when_the_file_lacks_the_best_variant(defined, tier):
    """82 grades softmax_fast when the file defines it, else softmax_online (the list's second), on every shape."""
    p82 = manifest.load()[82]
    result = {"backend": {"kind": "gpu"}, "perf": {"variants": [
        {"name": name, "shape": list(shape), "pct_copy_kernel": pct}
        for name, pcts in (("softmax_fast", (93, 91)), ("softmax_online", (60, 55)), ("softmax_naive", (40, 35)))
        if name in defined or name == "softmax_naive"
        for shape, pct in zip(((4096, 8192), (64, 1048576)), pcts)]}}
    assert scoring.table(p82)["perf_variant"] == ["softmax_fast", "softmax_online"]
    got, pct = scoring.perf_tier(result, p82)
    assert got == tier and pct == {"gold": 91, "bronze": 55, "none": None}[tier]


def stored(name, status="fail", **grading):
    result = reference_result()
    fail(result, "tiled_31x33")
    fail(result, "tiled_130x67")
    result.update(status=status, problem=78, file=f"{name}/k.cu", diagnoses=[
        {"id": "out-of-bounds", "line": 9, "file": f"{name}/k.cu",
         "message": {"en": "Line 9: out-of-bounds, cudaMalloc #2 (34840 bytes) on x of 130x67",
                     "zh": "第 9 行越界：130x67，34840 字节"}}],
        message={"en": "2 test(s) failed, first: tiled_130x67", "zh": "tiled_130x67"})
    cases = scoring.universe(reference_result(), P78, [(130, 67)])
    result["grading"] = {"submission": name, "problem": 78, "backend": "sim", "hidden_fingerprint": "h1",
                         "graded_at": time.time(), "seconds": 3.0, "sandbox": "bwrap",
                         "scoring": scoring.score(result, P78, cases, ["shared-memory-used"], "sim"), **grading}
    return result


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_feedback_gives_hidden_cases_as_counts_only(lang):
    text = feedback.render(stored("alice"), lang, [(130, 67)], P78.title_in(lang))
    assert "130" not in text and "67x130" not in text and "34840" not in text and "8710" not in text
    assert "tiled_31x33" in text  # the failed public case, by name
    assert "1 / 2" in text or "1 /" in text
    assert ("1 of 2 failed" if lang == "en" else "2 个中有 1 个") in text


# ---- gradebook and merge ------------------------------------------------------------------------------

def save(folder: Path, d: dict) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    name = d["grading"]["submission"]
    (folder / f"{name}.json").write_text(json.dumps(d))
    (folder / f"{name}.feedback.md").write_text("feedback\n")


def read_csv(path: Path) -> list[dict]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def test_csv_has_the_promised_columns(tmp_path):
    save(tmp_path, stored("alice"))
    rows = read_csv(gradebook.write_csv(tmp_path))
    assert rows[0]["submission"] == "alice" and rows[0]["status"] == "fail"
    assert rows[0]["cases_passed"] == "3" and rows[0]["cases_total"] == "5" and rows[0]["hidden_total"] == "2"
    assert rows[0]["diagnoses"] == "out-of-bounds" and rows[0]["sandbox"] == "bwrap"
    for column in ("score", "max_score", "checks_passed", "checks_total", "perf_tier", "seconds"):
        assert column in rows[0]


def test_merge_combines_shards_and_keeps_the_newest(tmp_path):
    a, b, out = tmp_path / "a", tmp_path / "b", tmp_path / "merged"
    save(a, stored("alice"))
    save(a, stored("bob", graded_at=1.0))
    save(b, stored("carol"))
    save(b, stored("bob", status="pass", graded_at=2.0))
    path, notes = gradebook.merge([a, b], out)
    rows = {r["submission"]: r for r in read_csv(path)}
    assert sorted(rows) == ["alice", "bob", "carol"] and rows["bob"]["status"] == "pass"
    assert any("bob" in n for n in notes)
    assert (out / "carol.feedback.md").exists()


def test_merge_refuses_different_settings_and_missing_folders(tmp_path):
    save(tmp_path / "a", stored("alice"))
    save(tmp_path / "b", stored("bob", hidden_fingerprint="other"))
    with pytest.raises(GradeError, match="graded differently"):
        gradebook.merge([tmp_path / "a", tmp_path / "b"], tmp_path / "m")
    with pytest.raises(GradeError, match="no such folder"):
        gradebook.merge([tmp_path / "a", tmp_path / "nope"], tmp_path / "m")


# ---- the command line: bad input is one line and exit 2 -------------------------------------------------

@pytest.mark.parametrize("args, words", [
    (["grade", "78", "{tmp}/missing", "--out", "{tmp}/out"], "no such folder of submissions"),
    (["grade", "99999", "{tmp}/subs", "--out", "{tmp}/out"], "no problem '99999'"),
    (["grade", "78", "{tmp}/subs", "--out", "{tmp}/out", "--hidden", "{tmp}/missing.toml"], "no such hidden-cases file"),
    (["grade", "78", "{tmp}/subs", "--out", "{tmp}/out", "--hidden", "{tmp}/bad.toml"], "unknown key 'shape'"),
    (["grade", "78", "{tmp}/subs", "--out", "{tmp}/out", "--jobs", "0"], "must be positive"),
    (["grade", "78", "{tmp}/empty", "--out", "{tmp}/out"], "no submissions"),
    (["grade", "--merge", "{tmp}/nope", "--out", "{tmp}/m"], "no such folder"),
    (["grade", "78", "{tmp}/subs", "--out", "{tmp}/subs/a.cu"], "not a folder"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, words):
    write(tmp_path / "subs" / "a.cu", RIGHT)
    write(tmp_path / "bad.toml", "[78]\nshape = [[2, 3]]\n")
    (tmp_path / "empty").mkdir()
    p = subprocess.run(JUDGE + [a.replace("{tmp}", str(tmp_path)) for a in args], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert p.returncode == 2, p.stdout + p.stderr
    lines = [line for line in p.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and words in lines[0], p.stderr
    assert not (tmp_path / "out").exists()


# ---- the kill that reaches every process ---------------------------------------------------------------

def test_kill_tree_reaches_grandchildren_and_escapees(tmp_path):
    token = "unit-test-token"
    script = "sleep 300 & (setsid sleep 301 &) ; sleep 302"
    p = subprocess.Popen(["sh", "-c", script], env=dict(os.environ, DRILLS_GRADE_TOKEN=token), start_new_session=True)
    time.sleep(0.5)
    before = sandbox._tagged(token)
    assert len(before) >= 3
    sandbox.kill_tree(p.pid, token)
    os.killpg(p.pid, signal.SIGKILL)
    p.wait()
    time.sleep(0.2)
    alive = [pid for pid in before if Path(f"/proc/{pid}").exists()
             and Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"]
    assert alive == []
