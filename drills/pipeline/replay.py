"""On a GPU, the simulator names what went wrong: the same file, built for the simulator, runs the
same test cases there, and what its checks find (a shared-memory race with both lines and threads,
an out-of-bounds access with its allocation and offset, a barrier in a divergent branch, a wrong
shuffle mask, host code dereferencing a device pointer, the line where a kernel never finishes) is
attached to the GPU's result, each diagnosis marked as found by a replay on the simulator.

The verdict is the GPU's: its cases, its timings, its crash or its hang. One addition, so that
both backends teach alike: a defect the replay finds in cases the GPU passed (an out-of-bounds
read that happened to land in mapped memory, a race the GPU's scheduling happened to hide) is a
fail, as it is on the simulator (drills/pipeline/verdict.py). And when it finds such a root cause,
the problem's rules read its rows, not the GPU's (drills/pipeline/symptoms.py): what a race or a bad
access did to the GPU's outputs is that defect's symptom.

The replay runs side by side with the GPU's cases (the simulator build is made anyway for the
technique checks), so a correct file pays nothing for it on a machine with spare cores; when
the GPU run stopped or crashed in a case, that case is replayed on its own first if the side run
did not already cover it.
"""

from __future__ import annotations

import re

from . import diagnose, gtestrun, symptoms
from ..manifest import Problem
from ..messages import say
from ..result import Result

# What a replay may add: the simulator's run-time findings, the root causes (symptoms.py), what
# stops a program and a launch the driver refuses. `unsupported` is the simulator's limit, not the
# learner's mistake, and a GPU that ran the code has nothing to learn from it.
FINDINGS = symptoms.ROOT_CAUSES | {"host-deref-device-pointer", "timeout", "deadlock", "launch-configuration"}
# Findings that are wrong whatever the GPU's outputs were.
DEFECTS = symptoms.ROOT_CAUSES
# A launch the simulator refuses (a grid with no block, too many threads or too much shared memory)
# a GPU refuses too, and its case fails with the runtime's bare error code (cudaErrorInvalidValue for
# a 0-block grid on an H200), no kernel and no reason: the replay names both. Where no GPU case
# failed, the GPU accepted the launch, and a refusal by the simulator alone is not the learner's.
NAMED_WHEN_THE_GPU_FAILED = frozenset({"launch-configuration"})


def public_filter(problem: Problem, case: str) -> str:
    """A GoogleTest filter for `case` as the simulator build has it: a GPU-only shape
    (`..._8192x8192`) becomes the same variant at every public shape."""
    m = re.match(r"(?P<head>.+/)?(?P<variant>[A-Za-z0-9_]+?)_(?P<m>\d+)x(?P<n>\d+)$", case)
    if not m:
        return case
    public = {tuple(s) for s in problem.shapes}
    if (int(m["m"]), int(m["n"])) in public:
        return case
    return f"{m['head'] or ''}{m['variant']}_*"


def covered(sim_run, case: str) -> bool:
    """The side run reached `case` (or its variant) and saw it go wrong."""
    if not case:
        return True
    variant = case.rsplit("_", 1)[0]
    return any(t["status"] in ("fail", "error") and (t["name"].endswith(case) or variant in t["name"])
               for t in sim_run.tests) or bool(sim_run.running)


def findings(problem: Problem, shown: str, sim_runs: list, binaries) -> list[dict]:
    """The simulator's run-time diagnoses from the replay runs, facts and message as the simulator
    backend words them, each marked {"replay": {...}}."""
    scratch = Result(problem=problem.number, file=shown)
    for run in sim_runs:
        for event in run.sim_events:
            diagnose._from_sim_event(problem, scratch, event, binaries)
    case = next((t["name"] for run in sim_runs for t in run.tests if t["status"] in ("fail", "error")), "") \
        or next((r.running for r in sim_runs if r.running), "")
    out = []
    for d in scratch.diagnoses:
        if d["id"] not in FINDINGS:
            continue
        d["replay"] = {"tool": "simulator", "case": _short(case)}
        d["message"] = say("diagnosis.replayed", finding=d["message"], case=_short(case) or "-")
        out.append(d)
    return out


def _short(name: str) -> str:
    """GoogleTest's case name as it prints it (the judge's rows prefix the suite once more)."""
    return name or ""


def attach(problem: Problem, result: Result, found: list[dict], gpu_runs: list) -> None:
    """Add the replay's findings to the GPU's result. A finding with a line replaces the GPU run's
    own diagnosis of the same id when that one has none (the GPU's watchdog knows the case that
    hung, the replay knows the line)."""
    gpu_case = next((r.running for r in gpu_runs if r.running), "")
    gpu_stop = next((r.stopped_after for r in gpu_runs if r.stopped), 0.0)
    gpu_failed = any(t.get("status") in ("fail", "error") for t in result.tests) or bool(gpu_case)
    for d in found:
        if d["id"] in NAMED_WHEN_THE_GPU_FAILED and not gpu_failed:
            continue
        same = next((x for x in result.diagnoses if x["id"] == d["id"]), None)
        if same is not None:
            # a refused launch: the GPU's case gave only the error's name, the replay the kernel and why
            if (same.get("line") or not d.get("line")) and d["id"] not in NAMED_WHEN_THE_GPU_FAILED:
                continue
            result.diagnoses.remove(same)
        if d["id"] == "timeout" and gpu_case:
            d["message"] = say("diagnosis.timeout-gpu-replayed", case=_short(gpu_case), seconds=gpu_stop,
                               finding=d["message"]["facts"]["finding"])
        result.diagnoses.append(d)
    diagnose.order(problem, result)


def gpu_stop_diagnosis(result: Result, runs: list) -> None:
    """The GPU's own words for a run its watchdog stopped: which case, after how long."""
    for run in runs:
        if run.timed_out and run.running:
            result.diagnoses[:] = [d for d in result.diagnoses if d["id"] != "timeout"]
            result.diagnose("timeout", key="diagnosis.timeout-gpu", case=_short(run.running), seconds=run.stopped_after)
            return


def host_code_stop(problem: Problem, result: Result, gpu_runs: list, sim_runs: list) -> None:
    """The GPU's watchdog stopped a case, and the simulator, running that case, ran past its limit
    too with no launch stopped by its own watchdog (which stops every launch in its time): what did
    not finish was the host code, not a kernel. Said so, instead of the GPU's words, which point
    at the kernel (issue 16)."""
    gpu = next((r for r in gpu_runs if r.timed_out and r.running), None)
    if gpu is None:
        return
    variant = gpu.running.rsplit("_", 1)[0] + "_"
    for run in sim_runs:
        stopped = run.timed_out and run.stopped != "cancelled" and \
            (run.running == gpu.running or run.running.startswith(variant))
        kernel_stop = any(e.get("kind") in ("watchdog", "deadlock") for ev in run.sim_events for e in ev.get("errors", []))
        if stopped and not kernel_stop:
            result.diagnoses[:] = [d for d in result.diagnoses if d["id"] != "timeout"]
            result.diagnose("timeout", key="diagnosis.timeout-gpu-host", case=_short(gpu.running),
                            seconds=gpu.stopped_after)
            diagnose.order(problem, result)
            return


# What a GPU's case names when its launch was refused before any block ran. CUDA 13 on an H200 gives
# cudaErrorInvalidValue for every refused launch (block or grid out of range, __launch_bounds__
# exceeded, shared memory over the limit: benchmarks/h200-launch-refusals-2026-12-02.md), and so does
# the simulator; a copy gives it too, so it only picks the case to replay: the simulator says whether
# the launch was refused. The other two names are older CUDA versions' answers.
LAUNCH_ERRORS = re.compile(r"\b(cudaErrorInvalidValue|cudaErrorInvalidConfiguration|cudaErrorLaunchOutOfResources)\b")


def refused_case(problem: Problem, gpu_runs: list) -> tuple[str, list] | None:
    """(GoogleTest name, shape) of the first case the GPU failed with a launch error at one of the
    manifest's GPU-only shapes, which the simulator's side run does not have. Never a grader's hidden
    shape: no process but the hidden run's own is told those (issue 16)."""
    public = {tuple(s) for s in problem.shapes}
    gpu_only = {tuple(s) for s in problem.gpu_shapes} - public
    for run in gpu_runs:
        for t in run.tests:
            shape = t.get("shape")
            if t.get("status") == "fail" and shape and tuple(shape) in gpu_only \
                    and LAUNCH_ERRORS.search(t.get("message") or ""):
                return t["name"], list(shape)
    return None


def refusal_env(sim_env: dict, shape: list) -> dict:
    """That one case on the simulator at its own shape. A refused launch is refused before any block
    runs; one the simulator accepts there runs under a short watchdog, and only a refusal is read."""
    return {**sim_env, "DRILLS_EXTRA_SHAPES": "x".join(str(d) for d in shape), "DRILLS_SIM_WATCHDOG": "5"}


def refusal_limits() -> gtestrun.Limits:
    return gtestrun.Limits(per_case=30, total=40)


def refusals(problem: Problem, shown: str, sim_runs: list, binaries) -> list[dict]:
    return [d for d in findings(problem, shown, sim_runs, binaries) if d["id"] == "launch-configuration"]


def defects_in_passing_cases(result: Result) -> list[dict]:
    """Replay findings the GPU's outputs did not show."""
    return [d for d in result.diagnoses if d.get("replay") and d["id"] in DEFECTS]


def limits_for_case() -> gtestrun.Limits:
    """A replay of one case: the simulator's own watchdog stops a hanging launch first."""
    return gtestrun.Limits(per_case=60, total=120)
