"""Judge one file for one problem: build, run the shared tests, read the evidence, decide."""

from __future__ import annotations

import time
from pathlib import Path

from . import ROOT
from . import build as builder
from . import diagnose, runner
from .catalog import Problem
from .result import Result, error, msg
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
    result.seconds = round(time.monotonic() - started, 2)
    return result


def _judge(problem, file, backend, extra_shapes, seed, timeout, perf, build_root, run_pytest, build_fn=None) -> Result:
    shown = display_path(file)
    if not file.is_file():
        return error(problem.number, f"找不到文件 {shown}。先运行 `python practice/judge.py start {problem.number}`。",
                     f"{shown} does not exist. Run `python practice/judge.py start {problem.number}` first.", shown)
    why = backend_unavailable(backend)
    if why:
        return error(problem.number, f"无法使用 {backend} 后端：{why}", f"cannot use the {backend} backend: {why}", shown)

    device = gpu_name() if backend == "gpu" else "drills simulator"
    subject = builder.subject_for(problem, file, backend, build_root)
    try:
        outcome = (build_fn or builder.build)(subject)
    except ToolchainError as e:
        return error(problem.number, f"缺少工具：{e}", f"missing tool: {e}", shown)
    if not outcome.ok:
        r = diagnose.build_failure(problem, shown, outcome)
        r.backend = {"kind": backend, "device": device}
        return r

    env = runner.base_env(backend, {
        "DRILLS_EXTRA_SHAPES": ",".join("x".join(str(d) for d in shape) for shape in extra_shapes),
        **({"DRILLS_SEED": str(seed)} if seed is not None else {}),
    })
    result = Result(problem=problem.number, file=shown, backend={"kind": backend, "device": device})
    runs = [runner.run_gtest(subject.test_binary, env, timeout)]
    pytest_file = problem.path("pytest")
    if (run_pytest and pytest_file.exists() and not runs[0].timed_out and not runs[0].crashed
            and not _hung(runs[0])):
        runs.append(runner.run_pytest(pytest_file, subject.capi_library, backend, env, timeout))

    for run in runs:
        result.tests.extend(run.tests)
    result.log = "\n".join(r.output for r in runs)[-runner.OUTPUT_CAP:]
    diagnose.from_runs(problem, result, runs, (subject.test_binary, subject.capi_library))
    if problem.checks and not any(r.timed_out or _hung(r) for r in runs) \
            and not any(d["id"] in diagnose.ERROR_IDS for d in result.diagnoses):
        _technique(problem, result, subject, file, shown, build_root)
    diagnose.from_checks(result)
    decide(problem, result, runs)

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
    from . import technique
    library = subject.capi_library
    if subject.backend != "sim":
        why = backend_unavailable("sim")
        sim_subject = builder.subject_for(problem, file, "sim", build_root / "sim" if build_root else None)
        outcome = None if why else builder.build(sim_subject, [sim_subject.targets[1]])
        if outcome is None or not outcome.ok:
            why = why or "the simulator build failed"
            result.checks = [{"id": c["id"], "status": "skip", "title": dict(c.get("title") or {}),
                              "message": msg(f"未检查：{why}", f"Not checked: {why}")} for c in problem.checks]
            return
        library = sim_subject.capi_library
    result.checks, result.counters = technique.run(problem, library, file.resolve(), shown)


def decide(problem: Problem, result: Result, runs: list) -> None:
    """pass: every test that ran passed and every contract case ran; fail: a wrong answer or a
    failed technique check; error: the program did not finish or nothing ran."""
    failed = [t for t in result.tests if t["status"] in ("fail", "error")]
    ran = [t for t in result.tests if t["status"] != "skip"]
    broken = next((r for r in runs if r.timed_out or r.crashed or (r.exit_code not in (0, 1) and not r.tests)), None)
    checks_failed = [c for c in result.checks if c["status"] == "fail"]

    hard = next((d for d in result.diagnoses if d["id"] in diagnose.ERROR_IDS), None)
    if broken is None and hard is not None:
        result.status = "error"
        result.message = hard["message"]
        return
    if broken is not None:
        result.status = "error"
        if broken.timed_out:
            result.message = msg("超时：测试没有在时限内结束（kernel 可能没有结束）。",
                                 "Timed out: the tests did not finish in time (a kernel may never end).")
        else:
            what = broken.crashed or f"exit code {broken.exit_code}"
            result.message = msg(f"测试程序异常结束（{what}）。", f"The test program crashed ({what}).")
        first = result.diagnoses[0]["message"] if result.diagnoses else None
        if first:
            result.message = first
        return
    if not ran:
        result.status = "error"
        result.message = msg("没有运行任何测试。", "No test ran.")
        return
    if failed:
        result.status = "fail"
        first = failed[0]
        lead = result.diagnoses[0]["message"] if result.diagnoses else None
        result.message = lead or msg(f"{len(failed)} 个测试失败，第一个：{first['name']}",
                                     f"{len(failed)} test(s) failed, first: {first['name']}")
        return
    if checks_failed:
        result.status = "fail"
        c = checks_failed[0]
        result.message = msg(f"结果正确，但技术检查 {c['id']} 未通过：{c['message']['zh']}",
                             f"Correct output, but the technique check {c['id']} failed: {c['message']['en']}")
        return
    result.status = "pass"
    result.message = msg(f"通过：{len(ran)} 个测试全部正确。", f"Pass: all {len(ran)} tests correct.")
