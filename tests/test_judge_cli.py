"""The judge's command line: bad input gets one clear line and exit 2; nothing the learner wrote
is overwritten; --json prints exactly one result object."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from result_schema import assert_valid_result

ROOT = Path(__file__).resolve().parent.parent
JUDGE = [sys.executable, str(ROOT / "practice" / "judge.py")]


def judge(*args, env=None):
    return subprocess.run([*JUDGE, *args], capture_output=True, text=True, cwd=ROOT, env=env, timeout=600)


def test_unknown_problem_is_one_line_and_exit_2():
    p = judge("999")
    assert p.returncode == 2
    assert "no problem '999'" in p.stderr and "78" in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_missing_file_is_exit_2(tmp_path):
    p = judge("test", "78", "--file", str(tmp_path / "nope.cu"))
    assert p.returncode == 2
    assert "no such file" in p.stderr


def test_unknown_problem_with_json_prints_an_error_object():
    p = judge("test", "999", "--json")
    assert p.returncode == 2
    obj = json.loads(p.stdout)
    assert_valid_result(obj)
    assert obj["version"] == 1 and obj["status"] == "error"


def test_start_never_overwrites_the_learners_file():
    mine = ROOT / "mine" / "c3_transpose.cu"
    before = mine.read_bytes()
    p = judge("--lang", "en", "start", "78")
    assert p.returncode == 0
    assert "left as it is" in p.stdout
    assert mine.read_bytes() == before


def test_solution_is_refused_before_a_pass(tmp_path):
    env = {**__import__("os").environ, "DRILLS_PROGRESS_FILE": str(tmp_path / "progress.json")}
    p = judge("solution", "78", env=env)
    assert p.returncode == 2
    assert "--force" in p.stderr


def test_a_file_without_the_contract_is_an_error_naming_the_function(tmp_path):
    from drills.pipeline.toolchain import backend_unavailable, pick_backend
    backend = pick_backend("auto")
    if backend_unavailable(backend):
        pytest.skip(f"needs a GPU or the simulator: {backend_unavailable(backend)}")
    f = tmp_path / "only_naive.cu"
    f.write_text("void transpose_naive(const float*, float*, int, int) {}\n")
    p = judge("test", "78", "--file", str(f), "--json", "--no-perf")
    assert p.returncode == 2, p.stdout + p.stderr
    obj = json.loads(p.stdout)
    assert_valid_result(obj)
    assert obj["status"] == "error"
    assert "transpose_tiled" in obj["message"]["en"]
    assert any(d["id"] == "missing-entry-point" for d in obj["diagnoses"])


def test_compile_error_points_into_the_file(tmp_path):
    from drills.pipeline.toolchain import backend_unavailable, pick_backend
    backend = pick_backend("auto")
    if backend_unavailable(backend):
        pytest.skip(f"needs a GPU or the simulator: {backend_unavailable(backend)}")
    f = tmp_path / "broken.cu"
    f.write_text((ROOT / "solutions" / "c3_transpose.cu").read_text().replace(
        "const int yc = by * TILE + threadIdx.x;", "const int yc = by * TILE + threadIdx.x + undefined_name;"))
    p = judge("test", "78", "--file", str(f), "--json", "--no-perf")
    assert p.returncode == 2
    obj = json.loads(p.stdout)
    assert_valid_result(obj)
    diag = next(d for d in obj["diagnoses"] if d["id"] == "compile-error")
    assert diag["line"] > 0 and "undefined_name" in diag["message"]["en"]
