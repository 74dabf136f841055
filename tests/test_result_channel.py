"""Issue 16 on issue 10's paths, without a build: every way the judge runs learner code takes its
result from the result channel (execute._exec), never from what the program prints or leaves.

Stand-in programs play the test program: GoogleTest's progress lines for gtestrun (its shards and
watchdog), a Python child for the timing run (perf.run_timing). The hostile C1 build of
tests/test_attacks.py covers the real harness."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import time

from drills.pipeline import execute, gtestrun, perf

SEND = ("import os, sys; sys.path.insert(0, {root!r}); from drills.pipeline.execute import result_fd, send_report; "
        "fd = result_fd(); send_report(fd, {payload!r})")


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def _send(payload: bytes) -> str:
    return SEND.format(root=str(execute.ROOT), payload=payload)


def test_a_test_program_that_exits_0_without_a_report_is_never_a_pass(tmp_path):
    prog = tmp_path / "fake_test"
    prog.write_text("#!/bin/sh\necho '[ RUN      ] S.a'\necho '[       OK ] S.a (1 ms)'\n"
                    "echo '{\"testsuites\": []}' > \"$DRILLS_RESULT_JSON\"\nexit 0\n")
    prog.chmod(prog.stat().st_mode | stat.S_IEXEC)
    for shards in (1, 2):
        run = gtestrun.run(prog, dict(os.environ), gtestrun.Limits.fixed(20), shards=shards)
        assert run.channel.startswith("no report") and not run.tests, (shards, run)


def test_the_timing_comes_from_the_channel_not_from_a_printed_line():
    real = json.dumps({"variants": [{"name": "v", "ms": 2.0}]}).encode()
    forged = json.dumps({"variants": [{"name": "v", "ms": 0.001}]})
    code = _send(real) + f"; print({forged!r}, flush=True)"
    times, why = perf.run_timing(_python(code), 30)
    assert times == json.loads(real), why
    # a program that only prints its "result" gives none
    times, why = perf.run_timing(_python(f"print({forged!r})"), 30)
    assert times is None and "no report" in why


def test_a_frame_the_learner_wrote_first_makes_the_report_untrusted():
    done = execute._exec(_python(_send(b"{}")), dict(os.environ), 30)
    assert done.report == b"{}" and not done.channel
    # the learner's code writes a frame of its own before the harness's: two frames, not trusted
    forger = ("import os; fd = int(os.environ['DRILLS_RESULT_FD']); "
              "os.write(fd, b'DRILLS-RESULT 2\\n{}\\nDRILLS-END\\n'); ") + _send(b"{}")
    done = execute._exec(_python(forger), dict(os.environ), 30)
    assert done.report is None and done.channel.startswith("something wrote"), done.channel


def test_a_runs_kill_spares_what_the_judge_started_beside_it():
    """A build or a shard the judge starts while a run goes on is our child too; the run's kill
    must take only the run's orphans."""
    started = threading.Event()
    sibling = {}

    def build():
        time.sleep(0.3)  # starts after the run, as the other backend's build may
        sibling["proc"] = subprocess.Popen(["sleep", "20"])
        started.set()

    t = threading.Thread(target=build)
    t.start()
    # the run leaves a daemon of its own (setsid + fork, re-parented to us) that must go
    daemon = ("import os, time; time.sleep(1)\n"
              "if os.fork() == 0:\n    os.setsid()\n    os.environ.clear()\n"
              "    if os.fork() == 0:\n        time.sleep(30); os._exit(0)\n    os._exit(0)\n")
    done = execute._exec(_python(daemon), {k: v for k, v in os.environ.items()}, 30)
    t.join()
    proc = sibling["proc"]
    try:
        assert started.is_set() and proc.poll() is None, "the judge's own child was killed"
        assert done.channel.startswith("no report")
        leftovers = [p for p in _children() if p != proc.pid]
        assert not leftovers, leftovers
    finally:
        proc.kill()
        proc.wait()


def _children() -> list[int]:
    import psutil
    return [c.pid for c in psutil.Process().children(recursive=True) if c.status() != psutil.STATUS_ZOMBIE]
