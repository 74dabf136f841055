"""Run learner code with limits (_exec: the one executor; gtestrun.py runs GoogleTest through it,
run_pytest the pytest cases against a built library, probe.py its technique probe) and turn the
report that came over the result channel into the result object's test rows."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT, bytecode_env

OUTPUT_CAP = 64 * 1024  # keep this much of a run's output for the result's log
SIM_WATCHDOG_SECONDS = "10"  # a judged launch takes well under a second; a hang should not cost a minute


@dataclass
class Run:
    tests: list = field(default_factory=list)
    exit_code: int = 0
    timed_out: bool = False
    crashed: str = ""           # e.g. "killed by SIGSEGV", "" when the process ended normally
    output: str = ""
    sim_events: list = field(default_factory=list)
    channel: str = ""           # why the report cannot be trusted (see _unframe); "" when it can
    checker_retried: str = ""     # why the checker of the first attempt was lost (gtestrun._one ran the pair again)
    checker_failed: bool = False  # `channel` says why the checker could not confirm it (gtestrun._confirm)
    running: str = ""           # the case in progress when the run was stopped or crashed (gtestrun.py)
    stopped: str = ""           # why the watchdog stopped it
    stopped_after: float = 0.0  # the limit it was stopped at, in seconds
    seconds: float = 0.0
    case_seconds: dict = field(default_factory=dict)  # GoogleTest's time per case


def _finish(run: "Run", done: "Exec", rows) -> "Run":
    """The rows come only from the frame the harness sent before any learner code could run at
    exit. With a trusted frame the verdict is the frame's: an exit code, a signal or a crash after
    it changes nothing. Without one, nothing the program left behind counts."""
    if done.flooded:
        run.crashed = f"stopped after printing more than {OUTPUT_LIMIT >> 20} MiB"
        return run
    if done.timed_out:
        return run
    if done.channel:
        if done.report is None and done.channel.startswith("no report") and run.crashed:
            return run  # it crashed before the report: the crash is the evidence (diagnose names it)
        run.channel = done.channel
        return run
    try:
        run.tests = rows(done.report)
    except (ValueError, KeyError, TypeError, AttributeError, ET.ParseError) as e:
        run.channel = f"the report on the result channel could not be read ({type(e).__name__})"
        return run
    failed = any(t["status"] in ("fail", "error") for t in run.tests)
    run.exit_code, run.crashed = int(failed), ""
    return run


def _cap(text: str) -> str:
    return text if len(text) <= OUTPUT_CAP else "...\n" + text[-OUTPUT_CAP:]


OUTPUT_LIMIT = 32 * 2**20   # a test program that prints more is stopped: nothing it could say needs this much
REPORT_LIMIT = 16 * 2**20   # the result frame's size limit
DRAIN_SECONDS = 2.0         # after the program ended: how long its leftovers may hold the pipes open
_FRAME = re.compile(rb"DRILLS-RESULT (\d+)\n")


@dataclass
class Exec:
    code: int | None
    output: str
    timed_out: bool
    report: bytes | None = None   # the result frame's payload; None when none came
    channel: str = ""             # why the frame cannot be trusted; "" when it can
    flooded: bool = False
    stopped: str = ""             # why `watch` stopped it; "" when it did not
    cancelled: bool = False       # stopped because `cancel` was set
    seconds: float = 0.0


def _become_subreaper() -> None:
    """Orphans of a run (daemons that called setsid and double-forked) become our children, so the
    kill after a run finds them; without it they would be re-parented to init and survive."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
    except (OSError, AttributeError):
        pass


def _become_undumpable() -> None:
    """PR_SET_DUMPABLE 0: a run's processes (the learner's, same user) can then neither open our
    end of its result channel through /proc/PID/fd (and write a frame of their own into it before
    killing the harness) nor read or write our memory. Root's CAP_SYS_PTRACE still can: the
    grader's sandbox drops every capability (drills/grading/sandbox.py) and pytest's library runs
    in a server that gives that one up (drills/pipeline/subject_server.py)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        pass


def kill_run(proc: subprocess.Popen, token: str, started: float) -> None:
    """End every process of one run: its process group, its descendants, orphans it left that were
    re-parented to us (see _become_subreaper and _adopted: our children born since it started
    that we did not start ourselves), and any process anywhere still carrying its token in the
    environment."""
    import psutil
    me = os.getpid()
    born = time.time() - (time.monotonic() - started) - 1.0
    for _ in range(10):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        victims = {c.pid for c in _children_of(proc.pid)}
        with SPAWN_LOCK:
            for c in _children_of(me):
                try:
                    if c.pid != proc.pid and c.ppid() == me and c.create_time() >= born and _adopted(c):
                        victims.add(c.pid)
                except psutil.Error:
                    continue
        for p in psutil.process_iter():
            if p.pid != me and _has_token(p, token):
                victims.add(p.pid)
        victims -= {me, proc.pid}
        victims = {v for v in victims if not _zombie(v)}
        if not victims:
            break
        for v in victims:
            try:
                os.kill(v, signal.SIGKILL)
            except OSError:
                pass
        time.sleep(0.05)
        for v in victims:
            _reap(v)


def _adopted(p) -> bool:
    """A child of ours that we did not start: an orphan of a run, re-parented to us. The judge
    starts other children while a run goes on (the other backend's build, the compiler, shards
    and pytest beside it, PyTorch's timer): those are registered (own_child) or stay in our own
    session, which no process of a run can re-enter (each run starts a session of its own, and
    setsid only ever makes a new one)."""
    if p.pid in _OWN_CHILDREN:
        return False
    try:
        return os.getsid(p.pid) != os.getsid(0)
    except OSError:
        return False


def own_child(pid: int) -> None:
    """Register a child this process started in a session of its own and keeps across runs (a
    server), so that no run's kill takes it for a run's orphan."""
    _OWN_CHILDREN.add(pid)


def _zombie(pid: int) -> bool:
    import psutil
    try:
        if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
            _reap(pid)
            return True
        return False
    except psutil.Error:
        return True


def _reap(pid: int) -> None:
    if pid in _OWN_CHILDREN:
        return
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


_OWN_CHILDREN: set[int] = set()  # pids of the runs this process started itself (subprocess reaps them)
# Held from a child's start in a session of its own until it is in _OWN_CHILDREN, and while a run's
# kill looks for orphans: otherwise a run ending in one thread takes the test program another thread
# is just starting (forked, its own session, not registered yet) for an orphan and kills it
# ("killed by SIGKILL" under load, with the simulator's tests split into shards side by side).
SPAWN_LOCK = threading.RLock()


def _children_of(pid: int) -> list:
    import psutil
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _has_token(p, token: str) -> bool:
    import psutil
    try:
        return p.environ().get("DRILLS_RUN_TOKEN") == token
    except (psutil.Error, OSError):
        return False


def _exec(cmd: list[str], env: dict, timeout: float, report_json: Path | None = None, *,
          cancel=None, watch=None, give_fds: tuple = ()) -> Exec:
    """Run `cmd` in its own session; read its output (capped while read) and the result channel
    (see tests/support/drills_result_channel.h) until it ends, with a deadline on every wait; then
    kill whatever it left behind. This is the one way the judge runs learner code.

    `cancel` (a threading.Event) stops it early: the judge's other run found a hang that this one
    would only wait for again. `watch` follows the output while it comes: watch.feed(bytes, now)
    gets every chunk, watch.check(now) returns why to stop now ("" to go on); gtestrun.py's
    per-case watchdog is one. `give_fds` are handed to the program and closed here once it has
    started (or failed to start), so that only the program holds them (gtestrun.py's record stream)."""
    import selectors
    _become_subreaper()
    _become_undumpable()
    token = uuid.uuid4().hex
    r, w = os.pipe()
    env = dict(env, DRILLS_RESULT_FD=str(w), DRILLS_RUN_TOKEN=token)
    if report_json is not None:
        env["DRILLS_RESULT_JSON"] = str(report_json)
    try:
        with SPAWN_LOCK:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True, pass_fds=(w, *give_fds))
            _OWN_CHILDREN.add(proc.pid)
    finally:
        for fd in (w, *give_fds):
            os.close(fd)
    started = time.monotonic()
    deadline = started + timeout
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(r, selectors.EVENT_READ, "report")
    head, tail, total = bytearray(), bytearray(), 0
    report = bytearray()
    timed_out = flooded = cancelled = False
    stopped = ""
    ended_at = None
    open_streams = 2
    while open_streams:
        now = time.monotonic()
        if ended_at is None and proc.poll() is not None:
            ended_at = now
        if ended_at is not None and now > ended_at + DRAIN_SECONDS:
            break  # leftovers (daemons) hold a pipe open: stop waiting for them
        if now > deadline:
            timed_out = ended_at is None
            break
        if ended_at is None and cancel is not None and cancel.is_set():
            timed_out = cancelled = True
            break
        if ended_at is None and watch is not None:
            stopped = watch.check(now)
            if stopped:
                timed_out = True
                break
        limit = min(deadline, ended_at + DRAIN_SECONDS if ended_at else deadline, now + 0.2)
        for key, _ in sel.select(max(0.0, limit - now)):
            fd = key.fileobj if isinstance(key.fileobj, int) else key.fileobj.fileno()
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                sel.unregister(key.fileobj)
                open_streams -= 1
                continue
            if key.data == "out":
                if watch is not None:
                    watch.feed(chunk, time.monotonic())
                total += len(chunk)
                if len(head) < 16 * 1024:
                    head += chunk[:16 * 1024 - len(head)]
                tail += chunk
                if len(tail) > 2 * OUTPUT_CAP:
                    del tail[:-OUTPUT_CAP]
                if total > OUTPUT_LIMIT:
                    flooded = True
            else:
                report += chunk
                if len(report) > REPORT_LIMIT + 64:
                    flooded = True
        if flooded:
            break
    kill_run(proc, token, started)
    try:
        code = proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        code = None
    _OWN_CHILDREN.discard(proc.pid)
    sel.close()
    proc.stdout.close()
    os.close(r)
    text = bytes(tail[-OUTPUT_CAP:])
    if total > len(text):  # the head (the first failures) and the tail, as capped.py keeps them
        cut = max(0, len(head) - (total - len(text)))
        text = bytes(head[:len(head) - cut]) + \
            f"\n... ({total - len(head) + cut - len(text)} bytes left out) ...\n".encode() + text
    out = Exec(None if timed_out else code, text.decode(errors="replace"), timed_out, flooded=flooded,
               stopped=stopped, cancelled=cancelled, seconds=time.monotonic() - started)
    out.report, out.channel = _unframe(bytes(report))
    return out


def result_fd() -> int | None:
    """The sending side in Python (pytest_channel.py, the probe): the result channel's fd, taken
    out of the environment and kept from every program this process starts."""
    text = os.environ.pop("DRILLS_RESULT_FD", None)
    if not (text and text.isdigit()):
        return None
    fd = int(text)
    try:
        os.set_inheritable(fd, False)
    except OSError:
        return None
    return fd


def send_report(fd: int, payload: bytes) -> None:
    """Send the one frame (_unframe reads it) and close the channel: code that runs later in this
    process (the learner's destructors, atexit handlers) finds nothing left to write to."""
    frame = b"DRILLS-RESULT %d\n" % len(payload) + payload + b"\nDRILLS-END\n"
    try:
        view = memoryview(frame)
        while view:
            view = view[os.write(fd, view):]
    except OSError:
        pass
    try:
        os.close(fd)
    except OSError:
        pass


def _unframe(data: bytes) -> tuple[bytes | None, str]:
    """The one frame the harness sent: (payload, "") or (None, why it cannot be trusted)."""
    if not data:
        return None, "no report came over the result channel"
    m = _FRAME.match(data)
    if not m:
        return None, "the result channel carried something that is not the harness's report"
    size = int(m[1])
    end = m.end() + size
    if size > REPORT_LIMIT or data[end:] != b"\nDRILLS-END\n":
        extra = len(data) - end - len(b"\nDRILLS-END\n")
        return None, ("the report on the result channel was cut short" if extra < 0 else
                      "something wrote to the result channel after the harness's report")
    return data[m.end():end], ""


def _crash_text(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return ""


def read_sim_report(path: Path) -> list[dict]:
    """The simulator's JSON lines (launches, host faults); a torn last line is ignored."""
    events = []
    if not path.exists():
        return events
    for line in path.read_text(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def base_env(backend: str, extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.pop("DRILLS_SIM_REPORT", None)
    if backend == "sim":
        env.setdefault("DRILLS_SIM_WATCHDOG", SIM_WATCHDOG_SECONDS)
    elif env.get("DRILLS_GPU_STANDIN") == "sim":  # a GPU has no watchdog: only the judge's stops a hang
        env["DRILLS_SIM_WATCHDOG"] = "100000"
    env.update(extra or {})
    return env


def _variant_and_shape(name: str):
    """"tiled_31x33" -> ("tiled", [31, 33]); "naive_7x33x1" -> ("naive", [7, 33, 1])."""
    m = re.match(r"(?P<variant>.+?)_(?P<dims>\d+(?:x\d+){1,2})$", name)
    if not m:
        return None, None
    return m["variant"], [int(v) for v in m["dims"].split("x")]


def _split_failure(text: str) -> tuple[str, str]:
    """GoogleTest's failure text: the first line after the location is the message; lines that
    look like "[r, c] expected X got Y" are the mismatches."""
    lines = [l for l in text.splitlines()[1:] if l.strip()]
    mism = [l.strip() for l in lines if re.match(r"\s*\[\d+, \d+\] expected", l)]
    rest = [l.strip() for l in lines if l.strip() not in mism]
    return " ".join(rest)[:500], "\n".join(mism)


def _gtest_rows(doc: dict, evidence_keys=()) -> list[dict]:
    rows = []
    for suite in doc.get("testsuites", []):
        for case in suite.get("testsuite", []):
            full = case["name"]
            short = full.split("/")[-1]
            variant, shape = _variant_and_shape(short)
            row = {"name": f"{suite['name']}.{full}", "status": "pass", "message": "", "source": "gtest"}
            if variant:
                row["variant"], row["shape"] = variant, shape
            if case.get("result") == "SKIPPED":
                row["status"] = "skip"
                row["message"] = "skipped"
            elif case.get("failures"):
                row["status"] = "fail"
                msgs, mism = zip(*(_split_failure(f["failure"]) for f in case["failures"]))
                row["message"] = " | ".join(m for m in msgs if m)
                row["mismatches"] = "\n".join(m for m in mism if m)
            evidence = {k: case[k] for k in evidence_keys if k in case}
            if evidence:
                row["evidence"] = evidence
            rows.append(row)
    return rows


def run_pytest(test_file: Path, library: Path, backend: str, env: dict, timeout: float, cancel=None) -> Run:
    """The problem's pytest cases (Hypothesis shapes included) against one C ABI library; `cancel`
    as in _exec."""
    with tempfile.TemporaryDirectory(prefix="drills-pytest-") as tmp:
        junit = Path(tmp) / "junit.xml"
        report = Path(tmp) / "sim.jsonl"
        # Only the plugins the cases need: a machine's other pytest plugins (anyio, trio, xdist,
        # benchmark, ...) cost more start-up than the cases themselves. The result channel's
        # plugin (pytest_channel.py) is how the report reaches the judge.
        # Compiled test modules go to build/pycache, never beside the tests (drills.bytecode_env).
        env = bytecode_env(dict(env, DRILLS_SUBJECT_LIB=str(library), DRILLS_BACKEND=backend,
                                DRILLS_SIM_REPORT=str(report), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
        plugins = ["-p", "_hypothesis_pytestplugin"] if importlib.util.find_spec("_hypothesis_pytestplugin") else []
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugins,
               "-p", "drills.pipeline.pytest_channel", f"--junitxml={junit}", str(test_file)]
        done = _exec(cmd, env, timeout, cancel=cancel)
        run = Run(exit_code=done.code if done.code is not None else -signal.SIGKILL, timed_out=done.timed_out,
                  crashed=_crash_text(done.code or 0), output=_cap(done.output), sim_events=read_sim_report(report))
        return _finish(run, done, _junit_rows)


def _junit_rows(data: bytes) -> list[dict]:
    rows = []
    for case in ET.fromstring(data).iter("testcase"):
        row = {"name": f"pytest.{case.get('name')}", "status": "pass", "message": "", "source": "pytest"}
        for child in case:
            if child.tag == "skipped":
                row["status"], row["message"] = "skip", child.get("message", "skipped")
            elif child.tag in ("failure", "error"):
                row["status"] = "fail" if child.tag == "failure" else "error"
                text = (child.get("message") or "") + "\n" + (child.text or "")
                row["message"] = text.strip()[:800]
                mism = re.findall(r"\[\d+, \d+\] expected \S+ got \S+", text)
                if mism:
                    row["mismatches"] = "\n".join(dict.fromkeys(mism))
        rows.append(row)
    return rows
