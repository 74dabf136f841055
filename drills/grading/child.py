"""`python -m drills.grading.child SPEC.json`: judge one submission inside its sandbox.

The grader starts this in the submission's private folder (WORK), under bubblewrap when it can,
and reads WORK/result.json when it ends. Here: the limits that every process below inherits, the
build from the template's recipe (see template.py), the judge itself, and the facts the judge
cannot know (the output limit, the build's time limit) turned into diagnoses.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sys
import time
from pathlib import Path

from ..pipeline.build import BuildOutcome, compile_errors, missing_symbols
from ..manifest import find, load
from ..messages import say
from ..result import error
from . import template

CAPPED = Path(__file__).with_name("capped.py")
OUTPUT_MARKER = "output-limit"


def apply_limits(limits: dict) -> None:
    def cap(which, value):
        if value:
            soft = int(value)
            resource.setrlimit(which, (soft, soft + (5 if which == resource.RLIMIT_CPU else 0)))
    cap(resource.RLIMIT_CPU, limits.get("cpu_s"))
    cap(resource.RLIMIT_AS, (limits.get("memory_mb") or 0) * 2**20)
    cap(resource.RLIMIT_FSIZE, (limits.get("file_mb") or 0) * 2**20)
    cap(resource.RLIMIT_NPROC, limits.get("nproc"))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class RecipeBuild:
    """judge()'s build step for a submission: the template's three commands, in WORK/build."""

    def __init__(self, spec: dict, problem):
        self.spec, self.problem = spec, problem
        self.timed_out = False
        self.seconds = 0.0

    def __call__(self, subject) -> BuildOutcome:
        started = time.monotonic()
        out = subject.build_dir
        out.mkdir(parents=True, exist_ok=True)
        real = subject.test_binary.with_name(subject.test_binary.name + ".bin")
        ok, log, self.timed_out = template.replay(self.spec["recipe"], subject.file, out, self.problem.slug,
                                                  real.name, timeout=self.spec["build_timeout"])
        self.seconds = time.monotonic() - started
        if not ok:
            errors = compile_errors(log, subject.file)
            missing = missing_symbols(log, self.problem.entry_points)
            stage = "link" if missing and not errors else "compile"
            return BuildOutcome(False, stage, log, self.seconds, errors, missing, timed_out=self.timed_out)
        work = Path(self.spec["work"])
        subject.test_binary.write_text(
            f'#!/bin/sh\nexec "{sys.executable}" -S "{CAPPED}" "{work / "test-output.log"}" '
            f'"{work / OUTPUT_MARKER}" -- "{real}" "$@"\n')
        subject.test_binary.chmod(0o755)
        return BuildOutcome(True, log=log, seconds=self.seconds)


def _perf(spec: dict, problem, capi: Path, work: Path) -> dict:
    """GPU timing of a passing submission against the template's copy kernel, in one process."""
    p = problem.perf
    cmd = [sys.executable, "-m", "drills.pipeline.perf", "--subject", str(capi), "--reference", spec["reference_capi"],
           "--bound", p.bound, "--shapes", ",".join(p.shapes), "--variants", ",".join(p.variants), "--torch", ""]
    from ..pipeline.perf import confirm_timing, run_timing
    if confirm_timing(spec["backend"], grading=True):  # points are at stake: a reported time must be confirmed
        cmd.append("--outside")
    times, why = run_timing(cmd, spec["timeout"])  # over the result channel: a line the library prints is no result
    return times if times is not None else {"error": why}


def _scrub(value, replace: list[tuple[str, str]]):
    """Private folder paths in every string of the result, replaced by what the student knows."""
    if isinstance(value, str):
        for old, new in replace:
            value = value.replace(old, new)
        return value
    if isinstance(value, list):
        return [_scrub(v, replace) for v in value]
    if isinstance(value, dict):
        return {k: _scrub(v, replace) for k, v in value.items()}
    return value


def run(spec: dict) -> dict:
    from ..pipeline.judge import judge
    problem = find(load(), spec["problem"])
    work = Path(spec["work"])
    if spec.get("replay_tool"):  # built with the template: the sandbox's file system is read-only
        os.environ["DRILLS_SIM_REPLAY_TOOL"] = spec["replay_tool"]
    build = RecipeBuild(spec, problem)
    try:
        result = judge(problem, Path(spec["file"]), spec["backend"],
                       extra_shapes=[tuple(s) for s in spec["extra_shapes"]], seed=spec.get("seed"),
                       timeout=spec["timeout"], perf=False, build_root=work / "build", build_fn=build,
                       checker=Path(spec.get("checker") or work / "no-checker"))  # none: an error, never a pass
    except Exception as e:  # the judge's own failure must still give this submission a row
        result = error(problem.number, say("grading.judge-error", error=repr(e)), diagnosis="grader-error")
    if (spec.get("perf") and spec["backend"] == "gpu" and result.status == "pass" and problem.perf):
        capi = work / "build" / f"lib{problem.slug}_capi-subject.so"
        result.perf = _perf(spec, problem, capi, work)
        from ..messages import render_result
        from ..pipeline import verdict
        verdict.timing_checked(result)  # a time the outside clock did not confirm: error (and no tier)
        render_result(result, problem)
    d = result.to_dict()
    d["build_seconds"] = round(build.seconds, 2)
    shown = spec["display_prefix"]
    replace = [(spec["src_prefix"] + "/", shown + "/" if shown else ""), (spec["src_prefix"], shown),
               (str(work), "<sandbox>")]
    return _scrub(d, replace)


def main(argv: list[str]) -> int:
    spec = json.loads(Path(argv[0]).read_text())
    apply_limits(spec["limits"])
    os.environ.update(spec.get("env", {}))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the child's own writes fail instead of killing it
    d = run(spec)
    out = Path(spec["work"]) / "result.json"
    out.write_text(json.dumps(d, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
