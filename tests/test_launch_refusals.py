"""The simulator refuses a launch with the error a GPU gives: the program the H200 ran for
benchmarks/h200-launch-refusals-2026-12-02.md (benchmarks/h200_launch_refusals.cu), built against
the simulator, prints the H200's table row for row (CUDA 13: every refusal cudaErrorInvalidValue,
none sticky)."""

from __future__ import annotations

import re
import runpy
import subprocess

import pytest

from drills import ROOT
from drills.pipeline import build as builder

PROGRAM = ROOT / "benchmarks" / "h200_launch_refusals.cu"
RECORD = ROOT / "benchmarks" / "h200-launch-refusals-2026-12-02.md"
sim_run = runpy.run_path(str(ROOT / "sim" / "runtime" / "sim_run.py"))


def h200_rows() -> list[list[str]]:
    text = RECORD.read_text(encoding="utf-8").split("<!-- h200-output -->", 1)[1]
    block = re.search(r"```\n(.*?)```", text, re.S).group(1)
    return [line.split() for line in block.splitlines() if line.strip()]


def test_the_recorded_table_covers_every_refusal_the_simulator_checks():
    rows = {" ".join(r) for r in h200_rows()}
    for what in ("block 1025 threads", "block (1,1,65)", "block 0 threads", "grid (0,1,1)", "grid (1,65536,1)",
                 "grid (1,1,65536)", "grid (2^31,1,1)", "launch_bounds(128)", "dynamic smem 49153",
                 "dynamic smem 100001", "static 48000 B + dynamic 4096"):
        assert any(r.startswith(what) for r in rows), what


def test_the_simulator_answers_every_launch_as_the_h200_did(tmp_path):
    lib_dir, log = builder.sim_runtime_dir()
    if lib_dir is None:
        pytest.fail(f"the simulator's runtime library did not build:\n{log[-3000:]}")
    exe = tmp_path / "refusals"
    made = subprocess.run(sim_run["build_command"](PROGRAM, exe, lib_dir), capture_output=True, text=True, timeout=600)
    assert made.returncode == 0, made.stdout + made.stderr
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    got = [line.split() for line in ran.stdout.splitlines() if line.strip()]
    want = h200_rows()
    assert got == want, "\n".join(" ".join(r) for r in got)
    # every refusal is reported for the judge, with the reason
    assert ran.stderr.count("refused:") == sum(1 for r in want if "launch=cudaErrorInvalidValue" in r)
