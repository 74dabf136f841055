"""A GoogleTest run with a watchdog scaled to the work, split into shards that run side by side.

A kernel that never finishes holds a GPU until someone stops it: the simulator has its own
watchdog, a GPU has none. Here each shard's output is read while it runs; GoogleTest flushes
"[ RUN      ] name" before each case, so we know which case is running and for how long. A case
that runs longer than its limit (ten times what the reference's same case needs in the same test
program, never under 10 s) or a run longer than its limit stops the shard's whole process group,
and the Run says which case was running (`running`), so the judge can name the kernel and replay
that case on the simulator. Each shard runs consecutive cases of the program's own order
(--gtest_filter, _split), so the merged cases and simulator records read as one process's. Each
shard is one execute._exec run: its results come back over the result channel
(tests/support/drills_result_channel.h), never from a file the program could rewrite, one report
per shard, merged.
"""

from __future__ import annotations

import json
import os
import re
import signal
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import execute

MIN_LIMIT = 10.0     # seconds: never stop a case sooner
SCALE = 10.0         # times what the reference needs
_RUN = re.compile(r"^\[ RUN      \] (\S+)", re.M)
_END = re.compile(r"^\[ +(?:OK|FAILED|SKIPPED) +\] (\S+)", re.M)


@dataclass
class Limits:
    per_case: float          # seconds a case may run when the reference did not time that case
    total: float             # seconds the whole run may take
    cases: dict = field(default_factory=dict)  # case name -> seconds that case may run
    extra: float = 0.0       # added to every case's limit (the simulator's own watchdog speaks first)

    def for_case(self, name: str) -> float:
        return self.cases.get(name, self.per_case) + self.extra

    @staticmethod
    def fixed(seconds: float) -> "Limits":
        return Limits(per_case=seconds, total=seconds)

    @staticmethod
    def scaled(reference: dict | None, fallback: float) -> "Limits":
        """Ten times what the reference needs (never under MIN_LIMIT): per case where the reference
        timed that case (a hang in a 1x97 case is stopped after 10 s, not after ten times the
        slowest 8192x8192 case), else the slowest case; the whole run likewise. `fallback` when the
        reference was not timed."""
        if not reference:
            return Limits(per_case=max(MIN_LIMIT, fallback), total=max(MIN_LIMIT, fallback))
        cases = {name: max(MIN_LIMIT, SCALE * t) for name, t in (reference.get("case_seconds") or {}).items()}
        return Limits(per_case=max(MIN_LIMIT, SCALE * reference["slowest_case"]),
                      total=max(MIN_LIMIT, SCALE * reference["total"]), cases=cases)


class _Progress:
    """The watchdog's view of a run (execute._exec's `watch`): GoogleTest's progress lines as they
    come, the case now running and since when. Progress lines come from the learner's process too,
    so they only time and name things; the verdict comes from the result channel alone."""

    def __init__(self, limits: Limits, started: float):
        self.limits = limits
        self.case, self.since = "", started
        self.pending = b""
        self.stopped_after = 0.0

    def feed(self, data: bytes, now: float) -> None:
        *lines, self.pending = (self.pending + data).split(b"\n")
        self.pending = self.pending[-4096:]  # a line without end holds no name worth keeping
        for raw in lines:  # whole lines only: a name cut in two would never see its end
            line = raw.decode(errors="replace")
            m = _RUN.match(line)
            if m:
                self.case, self.since = m.group(1), now
                continue
            m = _END.match(line)
            if m and m.group(1) == self.case:
                self.case = ""

    def check(self, now: float) -> str:
        limit = self.limits.for_case(self.case) if self.case else 0.0
        if self.case and now - self.since > limit:
            self.stopped_after = limit
            return f"stopped after {limit:.0f} s"
        return ""


def _one(binary: Path, env: dict, limits: Limits, evidence_keys, gtest_filter: str, shard: tuple[int, int],
         tmp: Path, cancel=None) -> execute.Run:
    index, total = shard
    out_json = tmp / f"gtest-{index}.json"
    report = tmp / f"sim-{index}.jsonl"
    env = dict(env, DRILLS_SIM_REPORT=str(report))
    if total > 1:
        env.update(GTEST_TOTAL_SHARDS=str(total), GTEST_SHARD_INDEX=str(index))
    cmd = [str(binary), f"--gtest_output=json:{out_json}"]
    if gtest_filter:
        cmd.append(f"--gtest_filter={gtest_filter}")
    progress = _Progress(limits, time.monotonic())
    # execute._exec: output capped while read, the result channel, a deadline on every wait, the
    # kill of everything the program started; the per-case watchdog rides on its output reading.
    done = execute._exec(cmd, env, limits.total, report_json=out_json, cancel=cancel, watch=progress)
    stopped, stopped_after = done.stopped, progress.stopped_after
    if done.timed_out and not stopped:
        stopped = "cancelled" if done.cancelled else f"the whole run was stopped after {limits.total:.0f} s"
        stopped_after = 0.0 if done.cancelled else limits.total
    code = done.code if done.code is not None else -signal.SIGKILL
    run = execute.Run(exit_code=code, timed_out=done.timed_out, crashed="" if done.timed_out else execute._crash_text(code),
                      output=execute._cap(done.output), sim_events=execute.read_sim_report(report))
    run.stopped, run.stopped_after, run.seconds = stopped, stopped_after, done.seconds
    docs = []

    def rows(data: bytes) -> list:
        doc = json.loads(data)
        docs.append(doc)
        return execute._gtest_rows(doc, evidence_keys)

    execute._finish(run, done, rows)
    if docs:
        run.case_seconds = _case_seconds(docs[0])
    # the case in progress when it was stopped or crashed (a crash after the trusted report is no crash)
    run.running = progress.case if (run.timed_out or run.crashed or run.channel or code not in (0, 1)) and not docs else ""
    return run


def _case_seconds(doc: dict) -> dict:
    out = {}
    for suite in doc.get("testsuites", []):
        for case in suite.get("testsuite", []):
            try:
                out[f"{suite['name']}.{case['name']}"] = float(str(case.get("time", "0s")).rstrip("s"))
            except ValueError:
                pass
    return out


def run(binary: Path, env: dict, limits: Limits, evidence_keys=(), gtest_filter: str = "", shards: int = 1,
        cancel=None) -> execute.Run:
    """One Run for the whole test program, whatever the number of shards; `cancel` (a
    threading.Event) stops every shard early."""
    shards = max(1, shards)
    parts = _split(binary, env, shards) if shards > 1 and not gtest_filter else None
    shards = len(parts) if parts else 1
    env = _sim_threads(env, shards)
    with tempfile.TemporaryDirectory(prefix="drills-gtest-") as tmp:
        results: list = [None] * shards
        def go(i):
            results[i] = _one(binary, env, limits, evidence_keys, parts[i] if parts else gtest_filter, (i, 1), Path(tmp),
                              cancel)
        threads = [threading.Thread(target=go, args=(i,)) for i in range(shards)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    return merge(results)


def _split(binary: Path, env: dict, shards: int) -> list[str] | None:
    """`shards` GoogleTest filters, each a run of consecutive cases of the program's own order, so
    that the shards' cases and simulator records, put end to end, read as one process would have
    written them (the first race found is the same race). None when the program cannot list its
    cases: it then runs whole, and shows why."""
    # The listing runs the learner's static initialisers too: through the one executor (capped
    # output, a deadline, the process tree killed after).
    try:
        done = execute._exec([str(binary), "--gtest_list_tests"], env, 60)
    except OSError:
        return None
    if done.timed_out or done.flooded or done.code != 0:
        return None
    names, suite = [], ""
    for line in done.output.splitlines():
        if line.startswith("  ") and suite:
            names.append(suite + line.split("#")[0].strip())
        elif line.endswith(".") and not line.startswith(" "):
            suite = line
    if len(names) < 2:
        return None
    size = -(-len(names) // min(shards, len(names)))
    return [":".join(names[i:i + size]) for i in range(0, len(names), size)]


def merge(runs: list) -> execute.Run:
    if len(runs) == 1:
        return runs[0]
    worst = next((r for r in runs if r.timed_out), None) or next((r for r in runs if r.crashed), None) \
        or next((r for r in runs if r.channel), None) or max(runs, key=lambda r: r.exit_code)
    # one shard's untrusted report makes the whole run's untrusted (verdict.py: an error, never a pass)
    out = execute.Run(exit_code=worst.exit_code, timed_out=any(r.timed_out for r in runs), crashed=worst.crashed,
                      output=execute._cap("\n".join(r.output for r in runs)),
                      sim_events=[e for r in runs for e in r.sim_events],
                      channel=next((r.channel for r in runs if r.channel), ""))
    out.tests = [t for r in runs for t in r.tests]  # consecutive parts of the program's order (_split)
    out.running, out.stopped, out.stopped_after = worst.running, worst.stopped, worst.stopped_after
    out.seconds = max(r.seconds for r in runs)
    out.case_seconds = {k: v for r in runs for k, v in getattr(r, "case_seconds", {}).items()}
    return out


def default_shards(backend: str) -> int:
    """Side-by-side processes for one test program. On a GPU the cases' host work (random inputs,
    the host reference, the comparison) dominates and the cores are idle. On the simulator that
    host work is about a fifth of a case (C3) and runs on one core, leaving the others idle, while
    the launch's blocks run on all of them: one shard per core, each simulating on its own share
    of the cores (run()), keeps every core busy for the same CPU time."""
    if os.environ.get("DRILLS_TEST_SHARDS"):
        return max(1, int(os.environ["DRILLS_TEST_SHARDS"]))
    n = cores()
    return max(1, min(4, n // 4)) if backend == "gpu" else max(1, min(4, n))


def cores() -> int:
    """The cores this process may run on (a container's or taskset's share), as the simulator counts them."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _sim_threads(env: dict, shards: int) -> dict:
    """The simulator's threads per shard: the cores shared out, unless the caller chose."""
    if shards <= 1 or env.get("DRILLS_SIM_THREADS"):
        return env
    return dict(env, DRILLS_SIM_THREADS=str(max(1, cores() // shards)))


def _timing_path(problem, reference) -> Path:
    return reference.build_dir / f".drills-reftime-{problem.slug}.json"


def reference_timing(problem, backend: str, reference, fingerprint: str, device: str, env: dict,
                     shards: int, measure: bool = True) -> dict | None:
    """How long the reference's own test program takes here: {"total", "slowest_case", "case_seconds"},
    recorded per shared build and device (build/<backend>/.drills-reftime-<slug>.json); measured
    now when unknown and `measure`."""
    try:
        known = json.loads(_timing_path(problem, reference).read_text())
        if known.get("fingerprint") == fingerprint and known.get("device") == device:
            return known
    except (OSError, json.JSONDecodeError):
        pass
    if not measure or not reference.test_binary.exists():
        return None
    r = run(reference.test_binary, env, Limits.fixed(600), shards=shards)
    return record_reference_timing(problem, reference, fingerprint, device, r)


def record_reference_timing(problem, reference, fingerprint: str, device: str, r: execute.Run) -> dict | None:
    if r.timed_out or r.crashed or r.exit_code != 0 or not r.case_seconds:
        return None
    # GoogleTest's per-case time misses the process's start (CUDA's initialisation, the first
    # allocation): the slowest case is held to at least the first shard's start-up on top.
    known = {"fingerprint": fingerprint, "device": device, "total": round(r.seconds, 3),
             "slowest_case": round(max(r.case_seconds.values()), 3), "cases": len(r.case_seconds),
             "case_seconds": {name: round(t, 3) for name, t in r.case_seconds.items()}}
    path = _timing_path(problem, reference)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    try:
        tmp.write_text(json.dumps(known))
        tmp.replace(path)
    except OSError:
        pass
    return known
