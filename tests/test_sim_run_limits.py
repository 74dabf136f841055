"""Issue 16: `sim-run` ends: the program gets a time limit after which it and everything it
started are killed, and the simulator's report is read up to a limit, however much the program
left there. A stand-in program (a shell) does the misbehaving; fast: no build, no simulator."""

from __future__ import annotations

import runpy
import time
import uuid
from pathlib import Path

import psutil

from drills import ROOT

SIM_RUN = runpy.run_path(str(ROOT / "sim" / "runtime" / "sim_run.py"))


def alive(tag: str) -> list[int]:
    found = []
    for p in psutil.process_iter():
        try:
            if p.environ().get("DRILLS_TAG") == tag and p.status() != psutil.STATUS_ZOMBIE:
                found.append(p.pid)
        except psutil.Error:
            continue
    return found


def test_a_program_past_its_time_limit_is_stopped_with_what_it_started():
    tag = uuid.uuid4().hex
    started = time.monotonic()
    result = SIM_RUN["run"](Path("/bin/sh"), ["-c", "sleep 300 & sleep 300 & wait"], timeout=1.0,
                            env={"PATH": "/usr/bin:/bin", "DRILLS_TAG": tag})
    assert result["exit_code"] == 124
    assert time.monotonic() - started < 15  # before: no limit at all
    time.sleep(0.3)
    assert not alive(tag)


def test_the_report_is_read_up_to_its_limit():
    launch = '{"event": "launch", "kernel": "k", "seconds": 0}'
    script = f"yes '{launch}' | head -c {SIM_RUN['REPORT_LIMIT'] * 2} > \"$DRILLS_SIM_REPORT\""
    before = psutil.Process().memory_info().rss
    result = SIM_RUN["run"](Path("/bin/sh"), ["-c", script], timeout=60)
    assert result["exit_code"] == 0
    assert len(result["launches"]) == SIM_RUN["RECORD_LIMIT"]
    assert psutil.Process().memory_info().rss - before < 200 * 2**20
