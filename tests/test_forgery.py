"""Issue 16, item 1: host code that knows the harness's protocols cannot make a wrong file pass.

The GoogleTest program links the learner's file, so its report can be forged from inside (a framed
all-pass report written to the channel, then _exit; a listener appended late that rewrites the
JSON before the channel sends it; forged records). A case passes only when the checker, the same
tests in a process that never loads the learner's file, confirms it from the bytes the kernels
produced (tests/support/drills_record.h, drills/pipeline/gtestrun.py).

One wrong C3 file (transpose_naive writes -x) carries every attack (tests/attacks/forge_protocol.inc);
DRILLS_ATTACK picks the one that runs, so the file is built once and each test is one warm judge.
Without the checker, every GoogleTest row of the forged runs reads `pass` (checked by hand: 59 of 59
for frame-exit); the verdict was still no pass only because the pytest cases caught the wrong kernel
in another process, which these tests do not count on.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from attack_judge import attack_file, judge_attack

ROOT = Path(__file__).resolve().parent.parent
ATTACK = ROOT / "tests" / "attacks" / "forge_protocol.inc"
NAIVE_STORE = "if (r < M && c < N) y[(int64_t)c * M + r] = x[(int64_t)r * N + c];"


@pytest.fixture(scope="module")
def forger() -> Path:
    text = (ROOT / "solutions" / "c3_transpose.cu").read_text()
    wrong = text.replace(NAIVE_STORE, NAIVE_STORE.replace("= x[", "= -x["), 1)
    wrong = wrong.replace("void transpose_naive(const float* x,", "void transpose_naive_real(const float* x,", 1)
    assert wrong.count("_real(") == 1 and "= -x[" in wrong, "the reference changed: update the fixture"
    path = attack_file(wrong, ATTACK, ROOT / "build" / "attacks" / "c3_transpose.cu")
    return path


def judge(file: Path, attack: str = "", **env) -> tuple[dict, float]:
    return judge_attack(78, file, attack, **env)


def naive(d: dict) -> list[dict]:
    return [t for t in d["tests"] if t["source"] == "gtest" and t.get("variant") == "naive"]


def test_an_honest_wrong_file_fails_on_its_own_evidence(forger):
    d, _ = judge(forger)  # the first call builds
    assert d["status"] == "fail", d["message"]["en"]
    rows = naive(d)
    assert rows and all(t["status"] == "fail" and "checker" not in t for t in rows)
    assert any(t.get("mismatches") for t in rows)  # the learner's own report still supplies the evidence
    assert all(t["status"] == "pass" for t in d["tests"] if t.get("variant") == "tiled")  # confirmed passes


def test_an_all_pass_frame_written_mid_run_then_exit_does_not_pass(forger):
    d, seconds = judge(forger, "frame-exit", DRILLS_TEST_SHARDS="1")  # one process: every case after the exit
    assert d["status"] in ("fail", "error"), d["message"]["en"]
    # Without the checker every GoogleTest row of this run reads `pass` (the forged frame). With it,
    # no case after the exit is confirmed: nothing was recorded for them.
    rows = [t for t in d["tests"] if t["source"] == "gtest"]
    assert rows and naive(d)
    assert all(t["status"] == "fail" and t.get("checker") == "results-not-confirmed" for t in naive(d))
    assert sum(t["status"] == "pass" for t in rows) <= 1  # at most the copy case, which ran before the exit
    assert seconds < 120


@pytest.mark.parametrize("attack", ["late-listener", "records", "rewrite-dir"])
def test_a_report_rewritten_by_a_late_listener_is_not_confirmed(forger, attack):
    # rewrite-dir in one process: with several shards, one shard's rewriting child also overwrites the
    # other shards' own reports while their harnesses send them, and the judge then calls those
    # reports untrusted (an error) instead of unconfirmed (a fail), depending on timing; the test
    # below holds that run to "never a pass".
    d, seconds = judge(forger, attack, **({"DRILLS_TEST_SHARDS": "1"} if attack == "rewrite-dir" else {}))
    assert d["status"] == "fail", d["message"]["en"]
    rows = naive(d)
    # the program's own report said these passed (the forgery worked there); the checker did not agree
    assert rows and all(t["status"] == "fail" and t.get("checker") == "results-not-confirmed" for t in rows), rows[:2]
    assert "do not match what its own report claims" in d["message"]["en"]
    assert seconds < 120


def test_rewriting_every_report_across_shards_never_passes(forger):
    d, seconds = judge(forger, "rewrite-dir")
    assert d["status"] in ("fail", "error"), d["message"]["en"]
    assert not any(t["status"] == "pass" for t in naive(d)), naive(d)[:2]
    assert seconds < 120


def test_a_file_that_kills_the_checker_gets_an_error_never_a_pass(forger):
    d, seconds = judge(forger, "kill-checker")
    assert d["status"] == "error", d["message"]["en"]
    assert d["message"]["key"] == "checker.unconfirmed-run", d["message"]
    assert "the checker program crashed" in d["message"]["en"]
    assert seconds < 120


def _checker() -> Path:
    tree = ROOT / "build" / "sim"
    path = tree / "c3_transpose_checker"
    if not path.exists():
        pytest.skip("the C3 simulator build has no checker yet (the fixture's judge builds it)")
    return path


def _run_checker(feed: bytes, gtest_filter: str) -> dict:
    """The checker alone, its record stream fed `feed`: its report, as it came over its result
    channel (the JSON path on its command line must stay unwritten: its report lies in a memory
    file no other process can open, tests/support/drills_checker_main.cu)."""
    from drills.pipeline import execute
    ours, theirs = socket.socketpair()
    r, w = os.pipe()
    out = ROOT / "build" / "attacks" / f"checker-{os.getpid()}.json"
    out.unlink(missing_ok=True)
    env = dict(os.environ, DRILLS_REPLAY_FD=str(theirs.fileno()), DRILLS_SIM_THREADS="1",
               DRILLS_RESULT_FD=str(w), DRILLS_RESULT_JSON=str(out))
    proc = subprocess.Popen([str(_checker()), f"--gtest_filter={gtest_filter}", f"--gtest_output=json:{out}"],
                            env=env, pass_fds=(theirs.fileno(), w), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    theirs.close()
    os.close(w)
    try:
        ours.sendall(feed)
    except OSError:
        pass
    ours.close()
    with os.fdopen(r, "rb") as channel:
        data = channel.read()
    proc.wait(timeout=120)
    assert not out.exists()
    payload, why = execute._unframe(data)
    assert payload is not None, why
    doc = json.loads(payload)
    return {f"{s['name']}.{c['name']}": c for s in doc["testsuites"] for c in s["testsuite"]}


def _record(test: str, index: int, payload: bytes, size: int | None = None) -> bytes:
    size = len(payload) if size is None else size
    return b"DRLSREC1" + len(test).to_bytes(4, "little") + index.to_bytes(4, "little") + \
        size.to_bytes(8, "little") + test.encode() + payload


@pytest.mark.usefixtures("forger")
def test_the_checker_fails_every_case_it_has_no_output_for_and_survives_a_hostile_stream():
    cases = "C3/Transpose.MatchesHostReference/naive_1x1:C3/Transpose.MatchesHostReference/naive_1x2"
    assert all(c.get("failures") for c in _run_checker(b"", cases).values())
    # a length past any buffer, a name past the limit, bytes that are no record: failed cases, no hang
    for feed in (_record("C3/Transpose.MatchesHostReference/naive_1x1", 0, b"", 2**62),
                 b"DRLSREC1" + (2**31).to_bytes(4, "little") + bytes(12), os.urandom(4096)):
        started = time.monotonic()
        report = _run_checker(feed, cases)
        assert report and all(c.get("failures") for c in report.values())
        assert time.monotonic() - started < 60


def test_the_checkers_stubs_define_every_entry_point_of_every_problem(tmp_path):
    """The checker's stubs come from the contract header (tests/support/make_stubs.py): each
    problem's required and optional functions, with the header's signatures, and nothing else."""
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    try:
        import make_stubs
    finally:
        sys.path.pop(0)
    from drills import manifest
    for problem in manifest.load().values():
        header = ROOT / "tests" / f"{problem.slug}.h"
        text = make_stubs.stubs(header)
        defined = {line.split("(")[0].split()[-1] for line in text.splitlines() if line.endswith("}")}
        wanted = set(problem.entry_points) | set(problem.optional_entry_points)
        assert wanted <= defined, (problem.slug, wanted - defined)
    empty = tmp_path / "empty.h"
    empty.write_text("#pragma once\nstruct S { int a; };\n")
    with pytest.raises(SystemExit):
        make_stubs.stubs(empty)


def test_the_hidden_cases_are_confirmed_too(forger, monkeypatch):
    """grade's hidden run (its own process, the grader's shapes and seed) goes through the checker
    like the public one: a forged pass there is not one either."""
    from drills import manifest
    from drills.pipeline.judge import judge as judge_in_process
    monkeypatch.setenv("DRILLS_ATTACK", "late-listener")
    monkeypatch.setenv("DRILLS_SIM_THREADS", "1")
    hidden = (67, 130)
    r = judge_in_process(manifest.find(manifest.load(), "78"), forger, "sim", extra_shapes=[hidden], seed=7,
                         perf=False, timeout=120, run_pytest=False)
    told = [t for t in r.tests if tuple(t.get("shape") or ()) == hidden and t.get("variant") == "naive"]
    assert told and all(t["status"] == "fail" and t.get("checker") == "results-not-confirmed" for t in told), told
    right = [t for t in r.tests if tuple(t.get("shape") or ()) == hidden and t.get("variant") == "tiled"]
    assert right and all(t["status"] == "pass" for t in right)  # confirmed: the hidden run's checker ran
    assert r.status == "fail"


def test_a_report_that_leaves_out_the_failed_cases_does_not_pass(forger):
    """Every row left in the rewritten report is a genuine, confirmed pass; the failed cases are
    simply absent. The checker, not the learner's process, says which cases exist."""
    d, seconds = judge(forger, "omit-failed")
    assert d["status"] == "fail", d["message"]["en"]
    rows = naive(d)
    assert rows and all(t["status"] == "fail" for t in rows)
    assert any(t.get("checker") == "results-not-confirmed" and "lacks this case" in t["message"] for t in rows)
    assert seconds < 300
