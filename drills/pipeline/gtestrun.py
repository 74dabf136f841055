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

The program links the learner's file, so code that knows the channel's protocol can still forge
its report from inside. Where a run decides a verdict (judge.py's public and hidden runs) each
shard runs beside the problem's checker (`checker`, see _one): the same tests in a process that
never loads the learner's file, fed the bytes the learner's kernels produced. A case passes only
when both reports say so.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
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


def _gtest(binary: Path, env: dict, limits: Limits, evidence_keys, gtest_filter: str, shard: tuple[int, int],
           tmp: Path, cancel=None, role: str = "", give_fds: tuple = ()) -> execute.Run:
    index, total = shard
    out_json = tmp / f"{role}gtest-{index}.json"
    report = tmp / f"{role}sim-{index}.jsonl"
    env = dict(env, DRILLS_SIM_REPORT=str(report))
    if total > 1:
        env.update(GTEST_TOTAL_SHARDS=str(total), GTEST_SHARD_INDEX=str(index))
    cmd = [str(binary), f"--gtest_output=json:{out_json}"]
    if gtest_filter:
        cmd.append(f"--gtest_filter={gtest_filter}")
    progress = _Progress(limits, time.monotonic())
    # execute._exec: output capped while read, the result channel, a deadline on every wait, the
    # kill of everything the program started; the per-case watchdog rides on its output reading.
    done = execute._exec(cmd, env, limits.total, report_json=out_json, cancel=cancel, watch=progress,
                         give_fds=give_fds)
    stopped, stopped_after = done.stopped, progress.stopped_after
    if done.timed_out and not stopped:
        stopped = "cancelled" if done.cancelled else f"the whole run was stopped after {limits.total:.0f} s"
        stopped_after = 0.0 if done.cancelled else limits.total
    code = done.code if done.code is not None else -signal.SIGKILL
    # No exit status: it had not ended five seconds after its output closed (execute._exec), which
    # is not the same thing as a kill; say so, so that the two are never confused in a report.
    crashed = "" if done.timed_out else (execute._crash_text(code) if done.code is not None else
                                         "did not exit after its output ended (no exit status)")
    run = execute.Run(exit_code=code, timed_out=done.timed_out, crashed=crashed,
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


class _Either:
    """Stop when either event is set (the caller's cancel, or the subject's run having ended badly)."""

    def __init__(self, *events):
        self.events = [e for e in events if e is not None]

    def is_set(self) -> bool:
        return any(e.is_set() for e in self.events)


READY_SECONDS = 60.0  # the checker's start-up (no CUDA context: its own runtime) before the subject may start


def _one(binary: Path, env: dict, limits: Limits, evidence_keys, gtest_filter: str, shard: tuple[int, int],
         tmp: Path, cancel=None, checker: Path | None = None) -> execute.Run:
    """One shard. With a checker (tests/support/drills_record.h): the checker starts first, with the
    same filter and environment, and says when it can no longer be traced or opened by the
    subject's processes; then the subject starts, sending the bytes of every download over a
    socket the checker reads in place of a device. Both end together (the subject's end of the
    socket closes with it; a stopped subject stops the checker), and _confirm merges the reports."""
    if checker is None:
        return _gtest(binary, env, limits, evidence_keys, gtest_filter, shard, tmp, cancel)
    if not checker.is_file():
        run = _gtest(binary, env, limits, evidence_keys, gtest_filter, shard, tmp, cancel)
        return _confirm(run, None, f"the checker program {checker.name} is missing")
    run, checker_run, why = _pair(binary, env, limits, evidence_keys, gtest_filter, shard, tmp, cancel, checker)
    if _checker_lost(run, checker_run, why) and not (cancel is not None and cancel.is_set()):
        # The checker was killed by a signal before its report while the program's own run ended
        # normally: seen twice in 185 golden cases of one CI run, under load, not reproduced alone.
        # Its records are gone with it, so the pair runs once more; a second loss is the verdict's
        # error as before. Never a pass without the checker's report.
        first = checker_run.crashed
        run, checker_run, why = _pair(binary, env, limits, evidence_keys, gtest_filter, shard, tmp, cancel, checker)
        run.checker_retried = first
    return _confirm(run, checker_run, why)


def _checker_lost(run: execute.Run | None, checker_run: execute.Run | None, why: str) -> bool:
    return (run is not None and not (run.crashed or run.timed_out or run.channel) and not why
            and checker_run is not None and bool(checker_run.crashed) and not checker_run.tests)


def _pair(binary: Path, env: dict, limits: Limits, evidence_keys, gtest_filter: str, shard: tuple[int, int],
          tmp: Path, cancel, checker: Path):
    subject_end, checker_end = (s.detach() for s in socket.socketpair())
    ready_r, ready_w = os.pipe()
    stop_checker = threading.Event()
    box: dict = {}
    checker_env = dict(env, DRILLS_REPLAY_FD=str(checker_end), DRILLS_READY_FD=str(ready_w))
    checker_env.pop("DRILLS_RECORD_FD", None)
    # The checker waits on the subject's records, so its cases take the subject's time and more
    # (its first case holds the subject's start-up). Its only watchdog is a deadline past the
    # subject's: the subject's own watchdog stops a hang, and the checker then reads the end of
    # the stream at once.
    slack = 1.5 * limits.total + 30
    checker_limits = Limits(per_case=slack, total=slack)

    def go():
        try:
            box["run"] = _gtest(checker, checker_env, checker_limits, (), gtest_filter, shard, tmp,
                                _Either(cancel, stop_checker), role="checker-", give_fds=(checker_end, ready_w))
        except BaseException as e:  # noqa: BLE001 - reported as the checker's failure, never a pass
            box["error"] = f"{type(e).__name__}: {e}"

    thread = threading.Thread(target=go, name="drills-checker")
    thread.start()
    why = ""
    try:
        ready = _wait_ready(ready_r, thread, cancel)
    finally:
        os.close(ready_r)
    if not ready:  # the subject still runs, for its evidence; its passes count for nothing
        why = "the checker program did not start"
        stop_checker.set()
    run = None
    try:
        run = _gtest(binary, dict(env, DRILLS_RECORD_FD=str(subject_end)), limits, evidence_keys, gtest_filter,
                     shard, tmp, cancel, give_fds=(subject_end,))
    finally:
        if run is None or run.timed_out:
            stop_checker.set()  # its verdict would change nothing: do not wait for it
        thread.join(slack + 30)
        if thread.is_alive():  # its own deadline is `slack`: this is a last resort
            stop_checker.set()
            thread.join(10)
    checker_run = box.get("run")
    if why == "" and checker_run is None:
        why = "the checker program failed: " + box.get("error", "it did not end")
    return run, checker_run, why


def _wait_ready(fd: int, thread: threading.Thread, cancel) -> bool:
    """The checker's one byte on its ready pipe ('R'), with a deadline; False when it ended first."""
    import select
    deadline = time.monotonic() + READY_SECONDS
    while time.monotonic() < deadline and not (cancel is not None and cancel.is_set()):
        readable, _, _ = select.select([fd], [], [], 0.2)
        if readable:
            return os.read(fd, 1) == b"R"
        if not thread.is_alive():
            return False
    return False


def _confirm(run: execute.Run, checker: execute.Run | None, why: str) -> execute.Run:
    """A case passes only when the subject's report and the checker's both say it passed.

    A subject's fail stays its fail, with its own evidence (its report supplies the diagnoses;
    forging a fail gains nothing). A pass the checker did not confirm becomes a fail marked
    `checker: results-not-confirmed` (verdict.py leads with it). A checker that did not start, did
    not finish or whose report cannot be read makes a run with passing cases untrusted (an error,
    never a pass)."""
    passed = [t for t in run.tests if t["status"] == "pass"]
    if not passed:
        return run
    if not why and checker is not None:
        if checker.timed_out:
            why = "the checker program did not finish"
        elif checker.channel:
            why = "the checker's report cannot be trusted: " + checker.channel
        elif checker.crashed:
            why = f"the checker program crashed ({checker.crashed})"
        elif not checker.tests:
            why = "the checker program reported no case"
    if why or checker is None:
        run.channel = why or "the checker program did not run"
        run.checker_failed = True
        run.tests = []
        return run
    seen = {t["name"]: t for t in checker.tests}
    # The checker, not the learner's process, says which cases exist: a static initialiser can set
    # GoogleTest's filter (or its listing) so that the program runs only the cases it passes. A
    # case the checker ran that the program's report lacks is a failed case, not a missing row.
    # (Only when the program ended normally: a crash or a timeout already makes the run an error.)
    if not (run.crashed or run.timed_out or run.channel):
        reported = {t["name"] for t in run.tests}
        for name in seen:
            if name not in reported:
                short = name.split("/")[-1]
                row = {"name": name, "status": "fail", "source": "gtest", "checker": "results-not-confirmed",
                       "message": "the program's own report lacks this case: it did not run it"}
                variant, shape = execute._variant_and_shape(short)
                if variant:
                    row["variant"], row["shape"] = variant, shape
                run.tests.append(row)
    for t in passed:
        other = seen.get(t["name"])
        if other is not None and other["status"] == "pass":
            continue
        said = (other or {}).get("message") or ("it did not run that case" if other is None else other["status"])
        t["status"] = "fail"
        t["checker"] = "results-not-confirmed"
        t["message"] = f"the outputs this program produced do not confirm its own report ({said})"[:800]
        t.pop("mismatches", None)
    run.exit_code = int(any(t["status"] in ("fail", "error") for t in run.tests))
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
        cancel=None, checker: Path | None = None) -> execute.Run:
    """One Run for the whole test program, whatever the number of shards; `cancel` (a
    threading.Event) stops every shard early. With `checker` (the problem's checker program, see
    _one) a case passes only when the checker confirms it: every run whose passes decide a
    verdict passes one."""
    shards = max(1, shards)
    # Cases are listed by the checker when there is one: listing runs a program's static
    # initialisers, and the learner's could print a shorter list.
    lister = checker if checker is not None and checker.is_file() else binary
    parts = _split(lister, env, shards) if shards > 1 and not gtest_filter else None
    shards = len(parts) if parts else 1
    env = _sim_threads(env, shards)
    with tempfile.TemporaryDirectory(prefix="drills-gtest-") as tmp:
        results: list = [None] * shards
        def go(i):
            results[i] = _one(binary, env, limits, evidence_keys, parts[i] if parts else gtest_filter, (i, 1), Path(tmp),
                              cancel, checker)
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
                      channel=next((r.channel for r in runs if r.channel), ""),
                      checker_failed=next((r.checker_failed for r in runs if r.channel), False))
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
