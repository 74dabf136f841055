"""Issue 16: the browser's judge runner reads the judge's output capped, with a deadline on every
wait, whatever the judge (or what it left behind) does. A stand-in judge (`python -c`) floods
stdout, leaves a daemon holding the pipes, or both past the time limit. Fast: no build."""

from __future__ import annotations

import json
import sys
import time

import psutil

from drills.web import judge_runner
from drills.web.judge_runner import JudgeRunner

RESULT = json.dumps({"problem": 78, "status": "pass", "message": {"en": "ok", "zh": "ok"}, "tests": []})
# A daemon in a session of its own that keeps the judge's stdout and stderr open for a minute.
DAEMON = ("import os, time\n"
          "if os.fork() == 0:\n"
          "    os.setsid()\n"
          "    if os.fork() == 0:\n"
          "        open(os.environ['PIDFILE'], 'w').write(str(os.getpid())); time.sleep(60)\n"
          "    os._exit(0)\n"
          "os.wait()\n")


def judge_is(monkeypatch, script: str) -> None:
    monkeypatch.setenv("DRILLS_JUDGE_CMD", json.dumps([sys.executable, "-c", script]))


def kill(pidfile):
    try:
        psutil.Process(int(pidfile.read_text())).kill()
    except (OSError, ValueError, psutil.Error):
        pass


def test_a_judge_that_prints_without_end_is_stopped_and_never_held_in_memory(monkeypatch, tmp_path):
    judge_is(monkeypatch, "import sys\nwhile True: sys.stdout.write('x' * 65536)")
    before = psutil.Process().memory_info().rss
    started = time.monotonic()
    r = JudgeRunner().run(78, tmp_path / "f.cu", "f.cu")
    assert time.monotonic() - started < 30
    assert r["status"] == "error" and [d["id"] for d in r["diagnoses"]] == ["output-limit"], r["message"]
    assert len(r.get("log", "")) <= 2 * judge_runner.LOG_TAIL
    assert psutil.Process().memory_info().rss - before < 4 * judge_runner.RESULT_LIMIT


def test_a_daemon_holding_the_pipes_after_the_judge_ended_does_not_hold_the_result(monkeypatch, tmp_path):
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("PIDFILE", str(pidfile))
    judge_is(monkeypatch, DAEMON + f"print({RESULT!r})\n")
    try:
        started = time.monotonic()
        r = JudgeRunner().run(78, tmp_path / "f.cu", "f.cu")
        assert time.monotonic() - started < judge_runner.DRAIN_S + 10  # before: until the daemon let go (60 s)
        assert r["status"] == "pass", r
    finally:
        kill(pidfile)


def test_a_judge_past_its_limit_with_a_daemon_on_its_pipes_ends_at_the_limit(monkeypatch, tmp_path):
    pidfile = tmp_path / "pid"
    monkeypatch.setenv("PIDFILE", str(pidfile))
    monkeypatch.setenv("DRILLS_JUDGE_TIMEOUT", "2")
    judge_is(monkeypatch, DAEMON + "time.sleep(60)\n")
    try:
        started = time.monotonic()
        r = JudgeRunner().run(78, tmp_path / "f.cu", "f.cu")
        assert time.monotonic() - started < 2 + 10
        assert r["status"] == "error" and [d["id"] for d in r["diagnoses"]] == ["timeout"]
    finally:
        kill(pidfile)


def test_a_large_result_under_the_limit_still_comes_through(monkeypatch, tmp_path):
    size = judge_runner.RESULT_LIMIT // 2
    judge_is(monkeypatch, "import json, sys\n"
             f"sys.stdout.write(json.dumps({{'problem': 78, 'status': 'fail', 'message': {{'en': 'x', 'zh': 'x'}}, "
             f"'tests': [], 'log': 'y' * {size}}}))")
    r = JudgeRunner().run(78, tmp_path / "f.cu", "f.cu")
    assert r["status"] == "fail" and len(r["log"]) == size
