"""`judge.py check` on this machine's backend: the manifest matches the files, every skeleton
compiles and fails, every reference passes. Also the C++ unit tests registered with CTest (the
simulator's own suite and the references' GoogleTest binaries)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drills import manifest
from drills.pipeline import build as builder
from drills.authoring.verify import manifest_problems
from drills.pipeline.toolchain import backend_unavailable, pick_backend

ROOT = Path(__file__).resolve().parent.parent


def test_manifest_matches_disk():
    assert manifest_problems() == []


def test_every_skeleton_fails_and_every_reference_passes():
    backend = pick_backend("auto")
    if backend_unavailable(backend):
        pytest.skip(f"needs a GPU or the simulator: {backend_unavailable(backend)}")
    p = subprocess.run([sys.executable, str(ROOT / "practice" / "judge.py"), "--lang", "en", "check"],
                       capture_output=True, text=True, cwd=ROOT, timeout=1800)
    assert p.returncode == 0, p.stdout + p.stderr


def test_ctest_suite():
    backend = pick_backend("auto")
    if backend_unavailable(backend):
        pytest.skip(f"needs a GPU or the simulator: {backend_unavailable(backend)}")
    problem = min(manifest.load().values(), key=lambda p: p.number)
    subject = builder.subject_for(problem, problem.path("solution"), backend)
    outcome = builder.build(subject, ["all"])
    assert outcome.ok, outcome.log[-4000:]
    p = subprocess.run(["ctest", "--test-dir", str(subject.build_dir), "--output-on-failure", "-j2"],
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, p.stdout[-6000:] + p.stderr[-2000:]
