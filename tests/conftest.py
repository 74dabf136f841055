"""Shared pytest fixtures: a built C ABI library for the backend this machine can run.

DRILLS_SUBJECT_LIB (set by the judge) points the kernel tests at the library built from the file
under judgement; without it they test the reference, built here on first use.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import Phase, settings

from drills import manifest
from drills.pipeline import build as builder
from drills.pipeline.toolchain import backend_unavailable, pick_backend

# Hypothesis's explain phase runs a failing case again and again, varying each argument, to add
# "or any other generated value" comments to the report: for a wrong kernel on the simulator that
# was 50 of the 61 s of tests/test_c3_transpose.py (one failing property test), the part that ran a
# graded wrong answer past its time limit on a loaded machine. Nobody reads those comments; the
# shrunk failing case stays.
settings.register_profile("drills", phases=[p for p in Phase if p is not Phase.explain])
settings.load_profile("drills")


def kernel_backend() -> str:
    """The backend kernel tests run on; skips with the reason when this machine has none."""
    backend = pick_backend(os.environ.get("DRILLS_BACKEND", "auto"))
    why = backend_unavailable(backend)
    if why:
        pytest.skip(f"needs a GPU or the simulator: {why}")
    return backend


def library_for(slug: str) -> Path:
    """The C ABI library to test: the judge's subject, or the reference built now."""
    if os.environ.get("DRILLS_SUBJECT_LIB"):
        return Path(os.environ["DRILLS_SUBJECT_LIB"])
    backend = kernel_backend()
    problem = next(p for p in manifest.load().values() if p.slug == slug)
    subject = builder.subject_for(problem, problem.path("solution"), backend)
    outcome = builder.build(subject, [subject.targets[1]])
    if not outcome.ok:
        pytest.fail(f"the reference for {slug} did not build:\n{outcome.log[-3000:]}")
    return subject.capi_library

