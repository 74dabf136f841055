"""Judge one file for one problem: build, execute the shared tests, gather the evidence (counters,
checks, on a GPU the simulator's replay), diagnose, decide the verdict (verdict.py). Rendering is
the views' job.

On a GPU the work that does not need the GPU runs beside it: the simulator build of the same file
(for the technique checks and the replay) is compiled while the GPU build compiles, the simulator
runs the same cases while the GPU runs them (drills/pipeline/replay.py), and PyTorch is imported
while both run (drills/pipeline/perf.py). result.timings says where the time went.
"""

from __future__ import annotations

import os

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from .. import ROOT
from . import build as builder
from . import diagnose, execute, gtestrun, replay, symptoms, verdict
from ..manifest import Problem
from ..messages import render_result, say
from ..result import Result, error_say
from .toolchain import ToolchainError, backend_unavailable, gpu_name

TEST_TIMEOUT = 300.0  # a run's limit when the reference's time here is not known and none is given


class Clock:
    """Seconds per phase of one judge; phases that run beside others are marked as such."""

    def __init__(self):
        self.seconds: dict[str, float] = {}
        self._lock = threading.Lock()

    def add(self, name: str, seconds: float) -> None:
        with self._lock:
            self.seconds[name] = round(self.seconds.get(name, 0.0) + seconds, 3)

    @contextmanager
    def phase(self, name: str):
        started = time.monotonic()
        try:
            yield
        finally:
            self.add(name, time.monotonic() - started)


def display_path(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def judge(problem: Problem, file: Path, backend: str, *, extra_shapes=(), seed: int | None = None,
          timeout: float | None = None, perf: bool = True, build_root: Path | None = None,
          run_pytest: bool = True, build_fn=None, checker: Path | None = None) -> Result:
    """build_fn(subject) -> BuildOutcome replaces the build (the grader replays a cached recipe).
    timeout: seconds a run of the tests may take; None scales it to the reference (gtestrun.py).
    checker: the problem's checker program when the caller built it (the grader's template); else
    the build's own (build.Subject.checker)."""
    started = time.monotonic()
    clock = Clock()
    result = _judge(problem, file, backend, extra_shapes, seed, timeout, perf, build_root, run_pytest, build_fn, clock,
                    checker)
    render_result(result, problem)  # the last stage: every message from the catalogue, in both languages
    result.seconds = round(time.monotonic() - started, 2)
    result.timings = dict(clock.seconds, total=result.seconds)
    return result


def _judge(problem, file, backend, extra_shapes, seed, timeout, perf, build_root, run_pytest, build_fn, clock,
           checker=None) -> Result:
    shown = display_path(file)
    if not file.is_file():
        return error_say(problem.number, say("verdict.file-missing", file=shown, number=problem.number), shown)
    why = backend_unavailable(backend)
    if why:
        return error_say(problem.number, say("verdict.backend-unavailable", backend=backend, why=why), shown)

    device = gpu_name() if backend == "gpu" else "drills simulator"
    subject = builder.subject_for(problem, file, backend, build_root)
    if checker is not None:
        subject.checker_path = Path(checker)
    on_gpu = backend == "gpu"
    env, hidden_env = _envs(backend, extra_shapes, seed)
    shards = gtestrun.default_shards(backend)
    pool = ThreadPoolExecutor(max_workers=6, thread_name_prefix="drills-judge")
    torch_timer = None
    try:
        # Beside the GPU build: the simulator build, PyTorch's import, the reference's time here.
        sim_build = pool.submit(_sim_build, problem, file, build_root, clock) if on_gpu and not backend_unavailable("sim") else None
        if on_gpu and perf and problem.perf and problem.perf.torch:
            from .perf import TorchTimer
            torch_timer = TorchTimer()
        # (the reference judged itself times itself: _record_reference_time)
        reference_time = (pool.submit(_reference_time, problem, backend, device, env, shards, clock)
                          if timeout is None and build_fn is None and build_root is None
                          and subject.name != "solutions" else None)
        try:
            with clock.phase("build"):
                outcome = (build_fn or builder.build)(subject)
        except ToolchainError as e:
            return error_say(problem.number, say("verdict.missing-tool", why=str(e)), shown)
        if not outcome.ok:
            r = diagnose.build_failure(problem, shown, outcome)
            r.backend = {"kind": backend, "device": device}
            return r

        limits = _limits(backend, timeout, reference_time.result() if reference_time else None)
        result = Result(problem=problem.number, file=shown, backend={"kind": backend, "device": device})
        # Side by side: the GoogleTest cases, the pytest cases, the technique probe and, on a GPU,
        # the simulator's run of the same cases (replay.py). A run that hangs or crashes makes the
        # others' evidence moot, and the verdict says so; it never makes them wait longer.
        side = pool.submit(_side_run, problem, sim_build, env, limits, clock) if sim_build else None
        pytest_file = problem.path("pytest") if problem.pytest else None  # optional in the manifest
        # pytest's limit is not scaled: Hypothesis shrinking a failure takes what it takes, and a
        # hang shows in the GoogleTest run first, which stops pytest (stop_pytest)
        # The grader (build_fn) keeps them one after the other: its time limit is per run, and
        # submissions already run side by side.
        stop_pytest = threading.Event()
        start_pytest = lambda: pool.submit(_timed, clock, "pytest", execute.run_pytest, pytest_file,  # noqa: E731
                                           subject.capi_library, backend, env,
                                           timeout if timeout is not None else TEST_TIMEOUT, stop_pytest)
        side_by_side = build_fn is None
        pytest_run = start_pytest() if run_pytest and pytest_file and side_by_side else None
        probe = (pool.submit(_timed, clock, "probe", _technique, problem, subject, sim_build, file, shown)
                 if problem.checks else None)
        with clock.phase("tests"):
            # The runs whose passes decide the verdict are confirmed by the checker (gtestrun._one);
            # the simulator's replay and the probe below only diagnose.
            runs = [gtestrun.run(subject.test_binary, env, limits, problem.diagnosis.evidence, shards=shards,
                                 checker=subject.checker)]
        hidden_run = None
        if runs[0].timed_out or runs[0].crashed or _hung(runs[0]):
            stop_pytest.set()  # it would only hang or crash the same way (and the hidden cases stay unrun)
        else:
            if hidden_env is not None:
                with clock.phase("hidden"):
                    hidden_run = gtestrun.run(subject.test_binary, hidden_env, limits, problem.diagnosis.evidence,
                                              gtest_filter=hidden_filter(extra_shapes), shards=shards,
                                              checker=subject.checker)
            if run_pytest and pytest_file and not side_by_side:
                pytest_run = start_pytest()
        if pytest_run is not None:
            with clock.phase("pytest-wait"):
                pytest_result = pytest_run.result()
            if not (runs[0].timed_out or runs[0].crashed or _hung(runs[0])):
                runs.append(pytest_result)
        if hidden_run is not None:
            runs.append(hidden_run)
        _record_reference_time(problem, subject, runs, device, shards)
        if on_gpu:  # a GPU reports no simulator events (the stand-in's are not evidence either)
            for run in runs:
                run.sim_events = []

        for run in runs:
            result.tests.extend(run.tests)
        for t in result.tests:  # the reference's variants this file does not define: not the learner's tests
            if t["status"] == "skip" and not verdict.is_contract_case(t, problem):
                t["absent"] = True
        result.log = "\n".join(r.output for r in runs)[-execute.OUTPUT_CAP:]
        found, simulated, sim_runs, sim_subject = [], [], [], None
        if side is not None:  # the replay first: a root cause it finds decides which rows the rules read
            with clock.phase("replay-wait"):
                sim_subject, sim_runs = side.result()
            if sim_subject is not None:
                sim_runs += _replay_stopped_case(problem, sim_subject, env, runs, sim_runs, clock)
                found = replay.findings(problem, shown, sim_runs, (sim_subject.test_binary, sim_subject.capi_library))
                if not any(d["id"] == "launch-configuration" for d in found):
                    found += _replay_refused_launch(problem, shown, sim_subject, env, runs, clock)
                simulated = _simulated_rows(sim_runs)
        with symptoms.reading(result, symptoms.rows_to_read(result.tests, simulated, found)):
            diagnose.from_runs(problem, result, runs, (subject.test_binary, subject.capi_library))
        if hidden_run is not None:
            _public_words(problem, result, [r for r in runs if r is not hidden_run],
                          (subject.test_binary, subject.capi_library), extra_shapes)
        if side is not None:
            replay.gpu_stop_diagnosis(result, runs)
            replay.attach(problem, result, found, runs)
            if sim_subject is not None:
                replay.host_code_stop(problem, result, runs, sim_runs)
        hung = any(r.timed_out or _hung(r) for r in runs)
        if probe is not None:
            with clock.phase("probe-wait"):
                checks_rows, counters = probe.result()
            if not hung and not any(d["id"] in diagnose.ERROR_IDS for d in result.diagnoses):
                result.checks, result.counters = checks_rows, counters
        diagnose.from_checks(problem, result)
        verdict.decide(problem, result, runs)

        if perf and on_gpu and result.status == "pass":
            from . import perf as perf_mod
            with clock.phase("perf"):
                result.perf = perf_mod.measure_subject(problem, subject, torch_timer, clock)
            verdict.timing_checked(result)
        elif perf and not on_gpu and problem.perf and result.status != "error" and result.tests \
                and not any(t["status"] in ("fail", "error") for t in result.tests):
            # Right answers: how fast would it be (even when a technique check failed: the bound says why).
            from . import predicted
            with clock.phase("perf"):
                result.perf = predicted.for_subject(problem, subject)
        return result
    finally:
        if torch_timer is not None:
            torch_timer.close()
        pool.shutdown(wait=False, cancel_futures=True)


def _envs(backend: str, extra_shapes, seed: int | None) -> tuple[dict, dict | None]:
    """(public, hidden): a grader's hidden cases (its extra shapes and seed) run in a test process
    of their own, the only one that is told them. Every other process of the submission (the
    public cases, pytest, the probe, a GPU's simulator run) never has them in its environment, so
    nothing it prints, fails on or writes can carry them out (issue 16). Those runs get a seed
    derived from the hidden one: as unknown to the student, and not the hidden one."""
    public = execute.base_env(backend, {"DRILLS_EXTRA_SHAPES": ""})
    if seed is not None:
        public["DRILLS_SEED"] = str(public_seed(seed))
    if not extra_shapes:
        return public, None
    hidden = execute.base_env(backend, {
        "DRILLS_EXTRA_SHAPES": ",".join("x".join(str(d) for d in shape) for shape in extra_shapes),
        **({"DRILLS_SEED": str(seed)} if seed is not None else {}),
    })
    return public, hidden


def _public_words(problem, result: Result, public_runs: list, binaries, extra_shapes) -> None:
    """A diagnosis speaks with the facts of the public cases only: those of the hidden cases (a
    value written, an index, a count) are what a submission could choose to carry them out. One
    the public cases also give takes their facts; one only the hidden cases give is marked
    "hidden" (the student's feedback names it, nothing more: grading/feedback.py)."""
    hidden = {tuple(s) for s in extra_shapes}
    public = Result(problem=result.problem, file=result.file, backend=result.backend)
    public.tests = [t for t in result.tests if tuple(t.get("shape") or ()) not in hidden]
    diagnose.from_runs(problem, public, public_runs, binaries)
    words = {d["id"]: d for d in public.diagnoses}
    for d in result.diagnoses:
        own = words.get(d["id"])
        if own is None:
            d["hidden"] = True
        else:
            d.update({k: own[k] for k in ("message", "facts", "file", "line") if k in own})


def public_seed(seed: int) -> int:
    """The public cases' seed when grading: fixed by the hidden one, telling nothing about it."""
    import hashlib
    return int.from_bytes(hashlib.sha256(f"drills-public-seed:{seed}".encode()).digest()[:4], "little")


def hidden_filter(extra_shapes) -> str:
    """A GoogleTest filter for the cases of the extra shapes only: their names end in _MxN
    (tests/support/drills_test.h shape_name), or _1xL for a problem that takes a length
    (L = M*N); a public shape is never a hidden one (hidden.py)."""
    patterns = []
    for shape in extra_shapes:
        patterns.append("*_" + "x".join(str(d) for d in shape))
        length = 1
        for d in shape:
            length *= d
        patterns.append(f"*_1x{length}")
    return ":".join(dict.fromkeys(patterns))


def _limits(backend: str, timeout: float | None, reference: dict | None) -> gtestrun.Limits:
    if timeout is not None:
        limits = gtestrun.Limits.fixed(timeout)
    else:
        limits = gtestrun.Limits.scaled(reference, TEST_TIMEOUT)
    if backend == "sim":  # the simulator's own watchdog speaks first, with the line
        limits.extra = sim_backstop(float(os.environ.get("DRILLS_SIM_WATCHDOG", execute.SIM_WATCHDOG_SECONDS)))
    return limits


def sim_backstop(watchdog: float) -> float:
    """Seconds of wall time added to a case's limit on the simulator. The simulator's watchdog
    counts the CPU time each of its workers spent, so on a busy machine its `watchdog` CPU-seconds
    take longer in wall time; the wall-clock limit here is only the backstop for host code that
    never returns, and must not fire first (a hung kernel is better reported by the simulator,
    with its line). Twice the watchdog on an idle machine, more as the run queue grows: at a
    load of 5 on 2 cores a worker gets about 40% of a core."""
    try:
        load = os.getloadavg()[0]
    except OSError:
        load = 0.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return watchdog * min(6.0, max(2.0, 1.0 + load / max(1, cores)))


def _reference_time(problem, backend, device, env, shards, clock) -> dict | None:
    """The reference's time in this test program here; measured once (on a GPU) when unknown."""
    recipe, failed = builder.shared_recipe(problem, backend)
    if recipe is None:
        return None
    reference = builder.subject_for(problem, problem.path("solution"), backend)
    known = gtestrun.reference_timing(problem, backend, reference, recipe["fingerprint"], device or "", env,
                                      shards, measure=backend == "gpu")
    return known


def _record_reference_time(problem, subject, runs, device, shards) -> None:
    """Judging the reference itself times it for free."""
    if subject.name != "solutions" or not runs or runs[0].exit_code != 0 or runs[0].timed_out:
        return
    from . import swap
    try:
        fp = swap.fingerprint(problem, subject.backend)
    except OSError:
        return
    gtestrun.record_reference_timing(problem, subject, fp, device or "", runs[0])


def _sim_build(problem, file, build_root, clock):
    """The simulator build of the same file, for the technique checks and the replay."""
    with clock.phase("build-sim"):
        sim_subject = builder.subject_for(problem, file, "sim", build_root / "sim" if build_root else None)
        outcome = builder.build(sim_subject)
    return sim_subject, outcome


def _side_run(problem, sim_build, env, limits, clock):
    """The simulator runs the same cases (its public shapes) while the GPU runs them."""
    sim_subject, outcome = sim_build.result()
    if not outcome.ok:
        return None, []
    with clock.phase("replay"):
        sim_env = _sim_env(env)
        sim_limits = _limits("sim", None, None)
        sim_limits.total = max(sim_limits.total, limits.total)
        run = gtestrun.run(sim_subject.test_binary, sim_env, sim_limits, problem.diagnosis.evidence,
                           shards=gtestrun.default_shards("sim"))
    return sim_subject, [run]


def _sim_env(env: dict) -> dict:
    """The GPU run's settings (the seed) for a simulator run, with the simulator's own watchdog and
    its own shapes: a grader's extra shapes are GPU-sized, and the replay needs the public ones."""
    keep = {k: v for k, v in env.items() if k.startswith("DRILLS_")
            and k not in ("DRILLS_SIM_REPORT", "DRILLS_SIM_WATCHDOG", "DRILLS_EXTRA_SHAPES")}
    return execute.base_env("sim", keep)


def _replay_stopped_case(problem, sim_subject, env, gpu_runs, sim_runs, clock) -> list:
    """The GPU run stopped or crashed in a case the side run did not see go wrong: replay that case alone."""
    case = next((r.running for r in gpu_runs if r.running), "")
    if not case or any(replay.covered(r, case) for r in sim_runs):
        return []
    with clock.phase("replay"):
        sim_env = _sim_env(env)
        return [gtestrun.run(sim_subject.test_binary, sim_env, replay.limits_for_case(), problem.diagnosis.evidence,
                             gtest_filter=replay.public_filter(problem, case))]


def _replay_refused_launch(problem, shown, sim_subject, env, gpu_runs, clock) -> list:
    """A case the GPU failed with a launch error at a shape the side run does not have (a grid of
    262144 blocks in y exists only at a GPU-only shape): that case alone on the simulator, at its own
    shape, names the refused launch, its kernel and why (replay.refused_case)."""
    case = replay.refused_case(problem, gpu_runs)
    if case is None:
        return []
    name, shape = case
    with clock.phase("replay"):
        run = gtestrun.run(sim_subject.test_binary, replay.refusal_env(_sim_env(env), shape), replay.refusal_limits(),
                           problem.diagnosis.evidence, gtest_filter=name)
    return replay.refusals(problem, shown, [run], (sim_subject.test_binary, sim_subject.capi_library))


def _simulated_rows(sim_runs: list) -> list[dict]:
    """The side run's rows, then a stopped case's own replay where the side run has none of it."""
    rows = list(sim_runs[0].tests) if sim_runs else []
    seen = {t["name"] for t in rows}
    return rows + [t for r in sim_runs[1:] for t in r.tests if t["name"] not in seen]


def _hung(run) -> bool:
    """A launch stopped by the simulator's watchdog or deadlock check: running more would only wait."""
    return any(e.get("kind") in ("watchdog", "deadlock") for ev in run.sim_events for e in ev.get("errors", []))


def _timed(clock, name, fn, *args):
    with clock.phase(name):
        return fn(*args)


def _technique(problem: Problem, subject, sim_build, file: Path, shown: str) -> tuple[list, list]:
    """(checks, counters): technique checks from the simulator's counters; on a GPU machine from the
    simulator build of the same file (correctness and speed still come from the GPU)."""
    from . import checks
    library = subject.capi_library
    if subject.backend != "sim":
        why = backend_unavailable("sim")
        sim_subject, outcome = sim_build.result() if sim_build is not None else (None, None)
        if why or outcome is None or not outcome.ok:
            return checks.not_measured(problem, why or "the simulator build failed"), []
        library = sim_subject.capi_library
    return checks.run(problem, library, file.resolve(), shown)
