"""Running the judge for the browser: the same CLI the learner runs, in a subprocess with a time limit,
one run at a time per problem. Whatever goes wrong comes back as a result object (status "error"),
so the page always has something to render."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from .. import ROOT
from ..messages import say
from ..result import error

DEFAULT_TIMEOUT_S = 300.0
LOG_TAIL = 8000
# The judge's JSON on stdout: its log is capped at 64 KiB and its rows are a few hundred, so a
# result is well under a megabyte. More than this is no result, and is not kept.
RESULT_LIMIT = 16 * 2**20
DRAIN_S = 2.0  # after the judge ended: how long what it left behind may hold its pipes open


def judge_command() -> list[str]:
    """The judge CLI; DRILLS_JUDGE_CMD (a JSON list) replaces it, so tests can run a fake judge."""
    raw = os.environ.get("DRILLS_JUDGE_CMD")
    if raw:
        cmd = json.loads(raw)
        if not (isinstance(cmd, list) and cmd and all(isinstance(c, str) for c in cmd)):
            raise ValueError("DRILLS_JUDGE_CMD must be a JSON list of strings")
        return cmd
    return [sys.executable, str(ROOT / "practice" / "judge.py")]


def timeout_s() -> float:
    try:
        return float(os.environ.get("DRILLS_JUDGE_TIMEOUT", DEFAULT_TIMEOUT_S))
    except ValueError:
        return DEFAULT_TIMEOUT_S


class Busy(Exception):
    """A run of the same problem is already in progress."""


class JudgeRunner:
    def __init__(self) -> None:
        self._guard = threading.Lock()
        self._running: set[int] = set()
        self._procs: set[subprocess.Popen] = set()

    def stop_all(self) -> None:
        """End every judge still running (the server is shutting down)."""
        with self._guard:
            procs = list(self._procs)
        for proc in procs:
            _kill_group(proc)

    def run(self, number: int, file: Path, shown: str) -> dict:
        self.reserve(number)
        try:
            return self._run(number, file, shown)
        finally:
            self.release(number)

    def reserve(self, number: int) -> None:
        """Claim the problem for one run, before anything is saved: a refused Run changes nothing."""
        with self._guard:
            if number in self._running:
                raise Busy(number)
            self._running.add(number)

    def release(self, number: int) -> None:
        with self._guard:
            self._running.discard(number)

    def busy(self, number: int) -> bool:
        with self._guard:
            return number in self._running

    def run_reserved(self, number: int, file: Path, shown: str) -> dict:
        """Run the judge for a problem this caller reserved (see reserve); releases it."""
        try:
            return self._run(number, file, shown)
        finally:
            self.release(number)

    def _run(self, number: int, file: Path, shown: str) -> dict:
        try:
            cmd = judge_command() + ["test", str(number), "--json", "--file", str(file)]
        except ValueError as e:
            return _error(number, shown, say("web-judge.bad-judge-cmd", error=str(e)))
        limit = timeout_s()
        started = time.monotonic()
        try:
            # A session of its own, so a timeout can end the judge and everything it started
            # (the build, the test binary) together.
            proc = subprocess.Popen(cmd, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:
            return _error(number, shown, say("web-judge.cannot-start", error=str(e)))
        with self._guard:
            self._procs.add(proc)
        try:
            out, err, why = _collect(proc, limit)
            if why:
                _kill_group(proc)
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        finally:
            with self._guard:
                self._procs.discard(proc)
        if why == "timeout":
            r = _error(number, shown, say("web-judge.time-limit", seconds=limit), _tail(out, err), "timeout")
            r["seconds"] = round(time.monotonic() - started, 2)
            return r
        if why == "output":
            return _error(number, shown, say("web-judge.output-limit", mib=RESULT_LIMIT >> 20), _tail(out[-LOG_TAIL:], err),
                          "output-limit")
        result = _parse(out)
        if result is None:
            return _error(number, shown, say("web-judge.no-result", code=proc.returncode), _tail(out, err))
        return result


def _collect(proc: subprocess.Popen, limit_s: float) -> tuple[bytes, bytes, str]:
    """The judge's stdout (whole, up to RESULT_LIMIT) and the tail of its stderr, read while they
    come, with a deadline on every wait; and why reading stopped early: "timeout", "output" (more
    than RESULT_LIMIT), or "" (the judge ended; a daemon it left holding the pipes is not waited
    for longer than DRAIN_S)."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "out")
    sel.register(proc.stderr, selectors.EVENT_READ, "err")
    out, err = bytearray(), bytearray()
    deadline = time.monotonic() + limit_s
    ended = None
    why = ""
    streams = 2
    try:
        while streams and not why:
            now = time.monotonic()
            if ended is None and proc.poll() is not None:
                ended = now
            if ended is not None and now > ended + DRAIN_S:
                break
            if ended is None and now > deadline:
                why = "timeout"
                break
            until = min(deadline, ended + DRAIN_S if ended is not None else deadline, now + 0.2)
            for key, _ in sel.select(max(0.0, until - now)):
                chunk = os.read(key.fileobj.fileno(), 1 << 16)
                if not chunk:
                    sel.unregister(key.fileobj)
                    streams -= 1
                elif key.data == "out":
                    out += chunk
                    if len(out) > RESULT_LIMIT:
                        why = "output"
                        del out[:-LOG_TAIL]
                        break
                else:
                    err += chunk
                    del err[:-LOG_TAIL]
    finally:
        sel.close()
        proc.stdout.close()
        proc.stderr.close()
    return bytes(out), bytes(err), why


def _parse(out: bytes):
    try:
        result = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        return None
    if not isinstance(result, dict) or result.get("status") not in ("pass", "fail", "error"):
        return None
    return result


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _tail(out: bytes, err: bytes) -> str:
    text = (out or b"").decode("utf-8", "replace") + (err or b"").decode("utf-8", "replace")
    return text[-LOG_TAIL:]


def _error(number: int, shown: str, message: dict, log: str = "", diagnosis: str = "") -> dict:
    return error(number, message, shown, log, diagnosis).to_dict()
