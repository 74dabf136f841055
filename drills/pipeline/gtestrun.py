"""A GoogleTest run with a watchdog scaled to the work, split into shards that run side by side.

A kernel that never finishes holds a GPU until someone stops it: the simulator has its own
watchdog, a GPU has none. Here each shard's output is read while it runs; GoogleTest flushes
"[ RUN      ] name" before each case, so we know which case is running and for how long. A case
that runs longer than its limit (ten times the slowest case of the reference in the same test
program, never under 10 s) or a run longer than its limit stops the shard's whole process group,
and the Run says which case was running (`running`), so the judge can name the kernel and replay
that case on the simulator. Each shard runs consecutive cases of the program's own order
(--gtest_filter, _split), so the merged cases and simulator records read as one process's; the
results come back through the same JSON file and parser as execute.run_gtest, one file per
shard, merged.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT
from . import execute

MIN_LIMIT = 10.0     # seconds: never stop a case sooner
SCALE = 10.0         # times what the reference needs
POLL = 0.1
OUTPUT_LIMIT = 256 << 20  # bytes of output before a run is stopped (a kernel printing in a loop)
_RUN = re.compile(r"^\[ RUN      \] (\S+)", re.M)
_END = re.compile(r"^\[ +(?:OK|FAILED|SKIPPED) +\] (\S+)", re.M)


@dataclass
class Limits:
    per_case: float          # seconds one case may run
    total: float             # seconds the whole run may take

    @staticmethod
    def fixed(seconds: float) -> "Limits":
        return Limits(per_case=seconds, total=seconds)

    @staticmethod
    def scaled(reference: dict | None, fallback: float) -> "Limits":
        """Ten times the reference's slowest case and whole run (never under MIN_LIMIT); `fallback`
        when the reference was not timed."""
        if not reference:
            return Limits(per_case=max(MIN_LIMIT, fallback), total=max(MIN_LIMIT, fallback))
        return Limits(per_case=max(MIN_LIMIT, SCALE * reference["slowest_case"]),
                      total=max(MIN_LIMIT, SCALE * reference["total"]))


def running_case(output: str) -> str:
    """The case that started and did not end: the one a stopped or crashed process was running."""
    started = _RUN.findall(output)
    ended = set(_END.findall(output))
    open_ = [name for name in started if name not in ended]
    return open_[-1] if open_ else ""


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _one(binary: Path, env: dict, limits: Limits, evidence_keys, gtest_filter: str, shard: tuple[int, int],
         tmp: Path) -> execute.Run:
    index, total = shard
    out_json = tmp / f"gtest-{index}.json"
    report = tmp / f"sim-{index}.jsonl"
    log = tmp / f"out-{index}.txt"
    env = dict(env, DRILLS_SIM_REPORT=str(report))
    if total > 1:
        env.update(GTEST_TOTAL_SHARDS=str(total), GTEST_SHARD_INDEX=str(index))
    cmd = [str(binary), f"--gtest_output=json:{out_json}"]
    if gtest_filter:
        cmd.append(f"--gtest_filter={gtest_filter}")
    started = time.monotonic()
    stopped, stopped_after = "", 0.0
    with open(log, "wb") as sink:  # a file, not a pipe: a kernel may print without end
        proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=sink, stderr=subprocess.STDOUT,
                                start_new_session=True)
        case, case_since, seen, pending = "", started, 0, ""
        while proc.poll() is None:
            time.sleep(POLL)
            now = time.monotonic()
            try:
                with open(log, "rb") as f:
                    f.seek(seen)
                    data = f.read()
            except OSError:
                data = b""
            seen += len(data)
            *lines, pending = (pending + data.decode(errors="replace")).split("\n")
            for line in lines:  # whole lines only: a name cut in two would never see its end
                m = _RUN.match(line)
                if m:
                    case, case_since = m.group(1), now
                    continue
                m = _END.match(line)
                if m and m.group(1) == case:
                    case = ""
            if seen > OUTPUT_LIMIT:
                stopped = f"the program printed more than {OUTPUT_LIMIT >> 20} MB"
            elif case and now - case_since > limits.per_case:
                stopped, stopped_after = f"stopped after {limits.per_case:.0f} s", limits.per_case
            elif now - started > limits.total:
                stopped, stopped_after = f"the whole run was stopped after {limits.total:.0f} s", limits.total
            if stopped:
                _kill(proc)
                proc.wait()
                break
        _kill(proc)  # anything the program left running in its group
    output = log.read_text(errors="replace")
    code = proc.returncode
    run = execute.Run(exit_code=code, timed_out=bool(stopped), crashed="" if stopped else execute._crash_text(code),
                      output=execute._cap(output), sim_events=execute.read_sim_report(report))
    run.running = running_case(output) if (stopped or run.crashed or code not in (0, 1)) else ""
    run.stopped, run.stopped_after = stopped, stopped_after
    run.seconds = time.monotonic() - started
    if out_json.exists():
        try:
            run.tests = execute._gtest_rows(json.loads(out_json.read_text()), evidence_keys)
            run.case_seconds = _case_seconds(json.loads(out_json.read_text()))
        except json.JSONDecodeError:
            pass
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


def run(binary: Path, env: dict, limits: Limits, evidence_keys=(), gtest_filter: str = "", shards: int = 1) -> execute.Run:
    """One Run for the whole test program, whatever the number of shards."""
    shards = max(1, shards)
    parts = _split(binary, env, shards) if shards > 1 and not gtest_filter else None
    shards = len(parts) if parts else 1
    env = _sim_threads(env, shards)
    with tempfile.TemporaryDirectory(prefix="drills-gtest-") as tmp:
        results: list = [None] * shards
        def go(i):
            results[i] = _one(binary, env, limits, evidence_keys, parts[i] if parts else gtest_filter, (i, 1), Path(tmp))
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
    try:
        p = subprocess.run([str(binary), "--gtest_list_tests"], cwd=ROOT, env=env, capture_output=True, text=True,
                           errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    names, suite = [], ""
    for line in p.stdout.splitlines():
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
        or max(runs, key=lambda r: r.exit_code)
    out = execute.Run(exit_code=worst.exit_code, timed_out=any(r.timed_out for r in runs), crashed=worst.crashed,
                      output=execute._cap("\n".join(r.output for r in runs)),
                      sim_events=[e for r in runs for e in r.sim_events])
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
    """How long the reference's own test program takes here: {"total", "slowest_case"} seconds,
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
             "slowest_case": round(max(r.case_seconds.values()), 3), "cases": len(r.case_seconds)}
    path = _timing_path(problem, reference)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    try:
        tmp.write_text(json.dumps(known))
        tmp.replace(path)
    except OSError:
        pass
    return known
