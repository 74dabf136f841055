"""Judge one file for one problem: build, execute the shared tests, gather the evidence (counters,
checks), diagnose, decide the verdict (verdict.py). Rendering is the views' job."""

from __future__ import annotations

import time
from pathlib import Path

from .. import ROOT
from . import build as builder
from . import diagnose, execute, verdict
from ..manifest import Problem
from ..messages import render_result, say
from ..result import Result, error_say
from .toolchain import ToolchainError, backend_unavailable, gpu_name

TEST_TIMEOUT = 300.0


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def judge(problem: Problem, file: Path, backend: str, *, extra_shapes=(), seed: int | None = None,
          timeout: float = TEST_TIMEOUT, perf: bool = True, build_root: Path | None = None,
          run_pytest: bool = True, build_fn=None) -> Result:
    """build_fn(subject) -> BuildOutcome replaces the CMake build (the grader replays a cached recipe)."""
    started = time.monotonic()
    result = _judge(problem, file, backend, extra_shapes, seed, timeout, perf, build_root, run_pytest, build_fn)
    render_result(result, problem)  # the last stage: every message from the catalogue, in both languages
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _judge(problem, file, backend, extra_shapes, seed, timeout, perf, build_root, run_pytest, build_fn=None) -> Result:
    shown = display_path(file)
    if not file.is_file():
        return error_say(problem.number, say("verdict.file-missing", file=shown, number=problem.number), shown)
    why = backend_unavailable(backend)
    if why:
        return error_say(problem.number, say("verdict.backend-unavailable", backend=backend, why=why), shown)

    device = gpu_name() if backend == "gpu" else "drills simulator"
    subject = builder.subject_for(problem, file, backend, build_root)
    try:
        outcome = (build_fn or builder.build)(subject)
    except ToolchainError as e:
        return error_say(problem.number, say("verdict.missing-tool", why=str(e)), shown)
    if not outcome.ok:
        r = diagnose.build_failure(problem, shown, outcome)
        r.backend = {"kind": backend, "device": device}
        return r

    env = execute.base_env(backend, {
        "DRILLS_EXTRA_SHAPES": ",".join("x".join(str(d) for d in shape) for shape in extra_shapes),
        **({"DRILLS_SEED": str(seed)} if seed is not None else {}),
    })
    result = Result(problem=problem.number, file=shown, backend={"kind": backend, "device": device})
    runs = [execute.run_gtest(subject.test_binary, env, timeout, problem.diagnosis.evidence)]
    pytest_file = problem.path("pytest") if problem.pytest else None
    if (run_pytest and pytest_file and not runs[0].timed_out and not runs[0].crashed
            and not _hung(runs[0])):
        runs.append(execute.run_pytest(pytest_file, subject.capi_library, backend, env, timeout))

    for run in runs:
        result.tests.extend(run.tests)
    result.log = "\n".join(r.output for r in runs)[-execute.OUTPUT_CAP:]
    diagnose.from_runs(problem, result, runs, (subject.test_binary, subject.capi_library))
    if problem.checks and not any(r.timed_out or _hung(r) for r in runs) \
            and not any(d["id"] in diagnose.ERROR_IDS for d in result.diagnoses):
        _technique(problem, result, subject, file, shown, build_root)
    diagnose.from_checks(problem, result)
    verdict.decide(problem, result, runs)

    if perf and backend == "gpu" and result.status == "pass":
        from . import perf as perf_mod
        result.perf = perf_mod.measure_subject(problem, subject)
    return result


def _hung(run) -> bool:
    """A launch stopped by the simulator's watchdog or deadlock check: running more would only wait."""
    return any(e.get("kind") in ("watchdog", "deadlock") for ev in run.sim_events for e in ev.get("errors", []))


def _technique(problem: Problem, result: Result, subject, file: Path, shown: str, build_root) -> None:
    """Technique checks from the simulator's counters; on a GPU machine from a simulator build of
    the same file (correctness and speed still come from the GPU)."""
    from . import checks
    library = subject.capi_library
    if subject.backend != "sim":
        why = backend_unavailable("sim")
        sim_subject = builder.subject_for(problem, file, "sim", build_root / "sim" if build_root else None)
        outcome = None if why else builder.build(sim_subject, [sim_subject.targets[1]])
        if outcome is None or not outcome.ok:
            why = why or "the simulator build failed"
            result.checks = checks.not_measured(problem, why)
            return
        library = sim_subject.capi_library
    result.checks, result.counters = checks.run(problem, library, file.resolve(), shown)
