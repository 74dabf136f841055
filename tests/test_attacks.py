"""Issue 16: a hostile file cannot make itself pass, and every run ends, in `test` mode.

One wrong C1 file (c = a - b) carries every attack (tests/attacks/forge_results.inc); DRILLS_ATTACK
picks the one that runs, so the file is built once (minutes of CPU on CI's two cores) and each test
is one warm judge call. Each attack ends in the verdict it deserves, within its time limit, with no
process left behind.
"""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest
from attack_judge import attack_file, judge_attack

ROOT = Path(__file__).resolve().parent.parent
ATTACK = ROOT / "tests" / "attacks" / "forge_results.inc"


@pytest.fixture(scope="module")
def hostile() -> Path:
    text = (ROOT / "solutions" / "c1_vector_add.cu").read_text()
    wrong = text.replace("if (i < n) c[i] = a[i] + b[i];", "if (i < n) c[i] = a[i] - b[i];", 1)
    wrong = wrong.replace("void vector_add(const float* a,", "void vector_add_real(const float* a,", 1)
    assert wrong.count("_real(") == 1 and "a[i] - b[i]" in wrong, "the reference changed: update the fixture"
    # a fixed path, rewritten only when it changes: the judge's build of it stays warm between runs
    path = attack_file(wrong, ATTACK, ROOT / "build" / "attacks" / "c1_vector_add.cu")
    judge(path)  # builds it: the time limits below are for warm judge calls
    return path


def judge(file: Path, attack: str = "", **env) -> tuple[dict, float]:
    return judge_attack(71, file, attack, **env)


def test_a_destructor_rewriting_the_reports_cannot_make_a_wrong_file_pass(hostile):
    d, _ = judge(hostile)  # the first call builds
    assert d["status"] == "fail", d["message"]["en"]
    failed = [t for t in d["tests"] if t["status"] == "fail"]
    assert any(t["source"] == "gtest" for t in failed) and any(t["source"] == "pytest" for t in failed)


def test_a_forged_frame_written_during_the_run_is_an_error(hostile):
    d, seconds = judge(hostile, "midrun")
    assert d["status"] == "error", d["message"]["en"]
    assert "cannot be trusted" in d["message"]["en"]
    assert seconds < 120


def test_daemons_holding_the_pipes_neither_hold_the_judge_nor_survive(hostile, tmp_path):
    pidfile = tmp_path / "pids"
    d, seconds = judge(hostile, "daemon", DRILLS_ATTACK_PIDFILE=str(pidfile))
    assert d["status"] == "fail", d["message"]["en"]  # the tests ran and failed: not a kernel that hung
    assert seconds < 120
    pids = [int(x) for x in pidfile.read_text().split()]
    assert pids
    time.sleep(0.5)
    alive = [p for p in pids if psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE]
    assert not alive, f"daemons left running: {alive}"


def test_host_output_without_end_is_stopped_at_the_output_limit(hostile):
    d, seconds = judge(hostile, "flood")
    assert d["status"] == "error", d["message"]["en"]
    assert [g["id"] for g in d.get("diagnoses", [])][:1] == ["output-limit"], d.get("diagnoses")
    assert len(d.get("log", "")) < 200_000
    assert seconds < 180


@pytest.mark.parametrize("attack", ["barrier-loop", "huge-grid"])
def test_the_simulator_watchdog_stops_what_it_used_to_miss(hostile, attack):
    d, seconds = judge(hostile, attack)
    assert d["status"] == "error", d["message"]["en"]
    stops = [g for g in d.get("diagnoses", []) if g["id"] == "timeout"]
    assert stops and stops[0].get("line"), d.get("diagnoses")  # the watchdog names the kernel's line
    assert "host code" not in stops[0]["message"]["en"]
    assert seconds < 150  # the watchdog is 10 s a launch; before the fix only the 300 s limit ended them


def test_a_kernel_printing_without_end_keeps_the_judge_small(hostile):
    d, seconds = judge(hostile, "kernel-print")
    assert d["status"] == "error", d["message"]["en"]
    assert len(d.get("log", "")) < 200_000
    assert seconds < 150


def test_the_hidden_cases_are_told_only_to_the_process_that_runs_them(hostile, monkeypatch):
    """A file that answers right unless its environment holds the grader's extra shapes or its
    seed: the public cases and pytest pass (they are never told), the hidden ones fail (their
    own process is). Before: every case was told, so a submission could carry them out."""
    from drills import manifest
    from drills.pipeline.judge import judge as judge_in_process
    monkeypatch.setenv("DRILLS_ATTACK", "hidden-env")
    monkeypatch.setenv("DRILLS_ATTACK_HIDDEN_SEED", "7")
    monkeypatch.setenv("DRILLS_SIM_THREADS", "1")
    hidden = (1, 5003)
    started = time.monotonic()
    r = judge_in_process(manifest.find(manifest.load(), "71"), hostile, "sim", extra_shapes=[hidden], seed=7,
                         perf=False, timeout=120)
    seconds = time.monotonic() - started
    rows = [t for t in r.tests if t["status"] != "skip"]
    told = [t for t in rows if tuple(t.get("shape") or ()) == hidden]
    public = [t for t in rows if t not in told]
    attacked = [t for t in told if t.get("variant") == "one_per_thread"]  # vector_add; the others are the reference's
    assert attacked and all(t["status"] == "fail" for t in attacked), told
    assert public and all(t["status"] == "pass" for t in public), [t for t in public if t["status"] != "pass"][:3]
    assert any(t["source"] == "pytest" for t in public)
    assert r.status != "pass"
    # what went wrong shows only in the hidden cases (the wrong values, the write past c): every
    # diagnosis is marked so, and the student's feedback names it without its facts
    assert r.diagnoses and all(d.get("hidden") for d in r.diagnoses), r.diagnoses
    assert seconds < 150
