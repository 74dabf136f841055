"""A chapter's C ABI library (tests/support/drills_capi.cu), reached through a subject server.

`Lib` never loads the library into this process: it starts `subject_server.py` (a child that
loads it with ctypes) and asks it over a pipe pair for device memory, the file's host functions by
name and event timing. Whatever the learner's code does (run Python through the C API, write to
a result channel, exit, crash) happens in that child, not in pytest, the timing or the probe,
which record the results. A crash ends one request with SubjectDied; the next request starts a
fresh server, so one segfaulting variant does not take the other cases with it.

Timings (time_variant, memcpy_ms) are still measured in the server, with CUDA events, by the
learner's process: a GPU's kernel times can only be taken where the kernels run. So that a file
cannot simply report a time it likes, time_variant_outside also times requests with this process's
clock (Lib.confirm; drills/pipeline/timecheck.py decides whether the two agree).
"""

from __future__ import annotations

import ctypes
import json
import math
import os
import select
import signal
import statistics
import struct
import subprocess
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

WARMUP, REPS = 5, 50
# Lib.confirm: enough calls that the time claimed for them is CONFIRM_S of work, within bounds, and
# CONFIRM_GRACE_S beyond the time the claim allows before the request is given up.
CONFIRM_S, CONFIRM_REPS, CONFIRM_GRACE_S = 0.25, (10, 20000), 3.0
SERVER = Path(__file__).with_name("subject_server.py")
PREFIX = struct.Struct(">IQ")
MAX_REPLY_HEADER = 64 * 1024 + 32 * CONFIRM_REPS[1]  # an honest reply: at most CONFIRM_REPS[1] samples
MAX_NAME = 200
TYPE_NAMES = {ctypes.c_void_p: "c_void_p", ctypes.c_int: "c_int", ctypes.c_float: "c_float",
              ctypes.c_longlong: "c_longlong", ctypes.c_size_t: "c_size_t", ctypes.c_double: "c_double"}
# Where the server's output goes: None, this process's own stdout and stderr (whatever pytest's
# capture made of them); pytest_channel sets the judge's end of pytest's output.
SERVER_OUTPUT: int | None = None
_INT_TYPES = {"c_void_p", "c_int", "c_longlong", "c_size_t"}


class Timed(NamedTuple):
    """One variant's timing with the outside clock (Lib.time_variant_outside)."""
    ms: float                  # median of the REPS event samples the library reported: the claim
    moved: float               # bytes (or operations) one call moves, as the library reported
    outside_ms: float | None   # per-call time seen from this process; None: ran past its deadline
    reps: int                  # calls of the confirming request
    wall_one_s: float          # the 1-call request (the fixed cost: allocation, fill, warm-up)
    wall_many_s: float         # the reps-call request (or the time waited for it)


class SubjectDied(RuntimeError):
    """The library's process ended (crash, exit) or answered something that is not a reply."""


class TooSlow(SubjectDied):
    """A request ran past its deadline; the library's process was ended."""


def make_undumpable() -> None:
    """PR_SET_DUMPABLE 0: a process of the same user (the subject server) can then neither ptrace
    this one nor read or write its memory (/proc/PID/mem, process_vm_writev) nor open its fds
    through /proc/PID/fd. Root (CAP_SYS_PTRACE) still can."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE
    except (OSError, AttributeError):
        pass


def _signature(signature) -> list[str]:
    names = []
    for t in signature:
        name = TYPE_NAMES.get(t)
        if name is None:
            raise TypeError(f"argument type {t!r} cannot be sent to the library's process "
                            f"(allowed: {', '.join(TYPE_NAMES.values())})")
        names.append(name)
    return names


def _argument(value, type_name: str):
    if isinstance(value, ctypes._SimpleCData):
        value = value.value
    if value is None and type_name == "c_void_p":
        return None
    if type_name in _INT_TYPES:
        if isinstance(value, (bool, float)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{type_name} argument must be an int, got {type(value).__name__}")
        return int(value)
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
        raise TypeError(f"{type_name} argument must be a number, got {type(value).__name__}")
    value = float(value)
    if not math.isfinite(value):  # JSON has no NaN or infinity
        raise ValueError(f"{type_name} argument {value} cannot be sent to the library's process")
    return value


def _describe(code: int | None) -> str:
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"died ({signal.Signals(-code).name})"
        except ValueError:
            return f"died (signal {-code})"
    return f"exited (code {code})"


class Lib:
    """One chapter C ABI library, loaded in a subject server started on first use."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._proc = None
        self._entries: dict[str, bool] = {}
        self._ptrs: set[int] = set()   # allocations of the current server: stale ones are never sent
        self._last_call = ""
        make_undumpable()
        self._start()  # a missing or broken library fails here, as ctypes.CDLL did

    # --- the server's life ---------------------------------------------------------------------
    def _start(self) -> None:
        req_r, req_w = os.pipe()
        rep_r, rep_w = os.pipe()
        env = dict(os.environ, DRILLS_SUBJECT_PARENT=str(os.getpid()))
        env.pop("DRILLS_RESULT_FD", None)  # the channel is this process's alone
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(SERVER), str(self.path), str(req_r), str(rep_w)],
                env=env, stdin=subprocess.DEVNULL, stdout=SERVER_OUTPUT, stderr=SERVER_OUTPUT, close_fds=True,
                pass_fds=(req_r, rep_w))
        finally:
            os.close(req_r)
            os.close(rep_w)
        self._req, self._rep = req_w, rep_r
        os.set_blocking(req_w, False)
        self._entries.clear()
        self._ptrs.clear()
        try:
            hello, _ = self._receive(0, "loading the library")
        except SubjectDied as e:
            raise OSError(f"{self.path}: {e}") from None
        if not hello.get("ok"):
            self._stop()
            raise OSError(f"{self.path}: {str(hello.get('error'))[:2000]}")

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        self._entries.clear()
        self._ptrs.clear()  # its allocations died with it
        if proc is None:
            return
        for fd in (self._req, self._rep):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            proc.wait(timeout=2)  # EOF on its request pipe ends it
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        self._stop()

    def __del__(self):
        try:
            self._stop()
        except Exception:
            pass

    def _died(self, during: str, why: str = "") -> SubjectDied:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self._stop()
        what = why or f"{_describe(code)}"
        return SubjectDied(f"the file's process {what} during {during}")

    # --- the wire ------------------------------------------------------------------------------
    def _read_exact(self, n: int, during: str) -> bytes:
        chunks, left = [], n
        dead_since = None
        while left:
            deadline = getattr(self, "_deadline", None)
            if deadline is not None and time.monotonic() > deadline:
                self._proc.kill()
                raise TooSlow(str(self._died(during, "did not answer before its deadline")))
            # A process the library forked may hold the reply pipe open after the server died:
            # its death, not the pipe's end, is what says no reply will come.
            poller = select.poll()
            poller.register(self._rep, select.POLLIN | select.POLLHUP | select.POLLERR)
            if not poller.poll(500 if deadline is None else max(1, min(500, int((deadline - time.monotonic()) * 1e3)))):
                if self._proc.poll() is None:
                    continue
                dead_since = dead_since or time.monotonic()
                if time.monotonic() - dead_since < 1.0:
                    continue
                raise self._died(during)
            try:
                chunk = os.read(self._rep, min(left, 1 << 20))
            except OSError:
                chunk = b""
            if not chunk:
                raise self._died(during)
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _receive(self, body_limit: int, during: str) -> tuple[dict, bytes]:
        hlen, blen = PREFIX.unpack(self._read_exact(PREFIX.size, during))
        if hlen > MAX_REPLY_HEADER or blen > body_limit:
            self._proc.kill()
            raise self._died(during, f"sent a reply of {hlen}+{blen} bytes (at most {MAX_REPLY_HEADER}+{body_limit})")
        try:
            header = json.loads(self._read_exact(hlen, during))
        except (ValueError, RecursionError):
            header = None
        if not isinstance(header, dict):
            self._proc.kill()
            raise self._died(during, "sent a reply that is not one")
        return header, self._read_exact(blen, during) if blen else b""

    def _ask(self, op: str, during: str, body=b"", body_limit: int = 0, **fields) -> tuple[dict, bytes]:
        if self._proc is None:
            self._start()
        data = json.dumps(dict(fields, op=op)).encode()
        try:
            self._write_all(PREFIX.pack(len(data), len(body)) + data)
            if body:
                self._write_all(body)
        except OSError:  # EPIPE: it died before reading
            raise self._died(during) from None
        reply, out = self._receive(body_limit, during)
        if not reply.get("ok"):
            raise RuntimeError(f"{during}: the library's process refused the request: {str(reply.get('error'))[:500]}")
        return reply, out

    def _write_all(self, data) -> None:
        """Like _read_exact: a process the library forked may hold the request pipe open and never
        read it; the server's death ends the wait (OSError, as a closed pipe would)."""
        view = memoryview(data).cast("B")
        dead_since = None
        while view:
            try:
                view = view[os.write(self._req, view):]
                continue
            except BlockingIOError:
                pass
            poller = select.poll()
            poller.register(self._req, select.POLLOUT | select.POLLERR)
            if poller.poll(500) or self._proc.poll() is None:
                continue
            dead_since = dead_since or time.monotonic()
            if time.monotonic() - dead_since > 1.0:
                raise BrokenPipeError("the library's process died")

    @staticmethod
    def _int(reply: dict, key: str, lo: int = -(2**31), hi: int = 2**31 - 1) -> int:
        v = reply.get(key)
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise SubjectDied(f"the file's process sent {key}={str(v)[:40]!r}, not an integer in range")
        return v

    @staticmethod
    def _floats(reply: dict, key: str, n: int) -> list[float]:
        v = reply.get(key)
        if not (isinstance(v, list) and len(v) == n and all(isinstance(x, (int, float)) and not isinstance(x, bool)
                                                            and math.isfinite(x) and x >= 0 for x in v)):
            raise SubjectDied(f"the file's process sent {key} that is not {n} numbers")
        return [float(x) for x in v]

    @staticmethod
    def _name(name: str) -> str:
        if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
            raise ValueError(f"bad host function name {name!r}")
        return name

    # --- the library's C ABI -------------------------------------------------------------------
    def entry(self, name: str) -> bool:
        """Whether the file defines the host function `name` (the answer is kept per server)."""
        if name not in self._entries or self._proc is None:
            reply, _ = self._ask("entry", f"looking up {name}", name=self._name(name))
            self._entries[name] = reply.get("defined") is True
        return self._entries[name]

    def check(self, err: int, what: str):
        if err:
            raise RuntimeError(f"{what}: {self.error_name(err)}")

    def alloc(self, nbytes: int) -> int:
        reply, _ = self._ask("alloc", "cudaMalloc", nbytes=int(nbytes))
        self.check(self._int(reply, "err"), "cudaMalloc")
        ptr = self._int(reply, "ptr", 0, 2**64 - 1)
        self._ptrs.add(ptr)
        return ptr

    def call(self, name: str, signature: tuple, *args) -> None:
        """Call the file's host function `name`; pytest skips when the file does not define it."""
        types = _signature(signature)
        if len(args) != len(types):
            raise TypeError(f"{name}: {len(types)} argument types but {len(args)} arguments")
        values = [_argument(a, t) for a, t in zip(args, types)]
        self._last_call = name
        reply, _ = self._ask("call", name, name=self._name(name), signature=types, args=values)
        if reply.get("defined") is not True:
            import pytest
            pytest.skip(f"{name} is not defined in this file")

    def upload(self, array: np.ndarray) -> int:
        array = np.ascontiguousarray(array)
        ptr = self.alloc(array.nbytes)
        reply, _ = self._ask("upload", "cudaMemcpy H2D", body=memoryview(array).cast("B") if array.nbytes else b"",
                             ptr=ptr)
        self.check(self._int(reply, "err"), "cudaMemcpy H2D")
        return ptr

    def download(self, ptr: int, shape, dtype=np.float32) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        reply, data = self._ask("download", "cudaMemcpy D2H", body_limit=out.nbytes, ptr=int(ptr), nbytes=out.nbytes)
        self.check(self._int(reply, "err"), "cudaMemcpy D2H")
        if len(data) != out.nbytes:
            raise SubjectDied(f"the file's process sent {len(data)} bytes for a {out.nbytes}-byte download")
        out.reshape(-1).view(np.uint8)[:] = np.frombuffer(data, dtype=np.uint8)
        return out

    def poison(self, ptr: int, nbytes: int) -> None:
        """0xFF bytes: NaN as float, so an element nobody wrote never matches."""
        reply, _ = self._ask("memset", "cudaMemset", ptr=int(ptr), value=0xFF, nbytes=int(nbytes))
        self.check(self._int(reply, "err"), "cudaMemset")

    def free(self, ptr: int) -> None:
        if ptr not in self._ptrs:  # from a server that died since, or freed already
            return
        self._ptrs.discard(ptr)
        self._ask("free", "cudaFree", ptr=int(ptr))

    def mark(self, text: str) -> bool:
        """A mark in the simulator's op log (the library's process writes it; False on a GPU build)."""
        reply, _ = self._ask("mark", "marking the op log", text=self._name(text))
        return reply.get("marked") is True

    def sync(self) -> int:
        during = f"cudaDeviceSynchronize after {self._last_call}" if self._last_call else "cudaDeviceSynchronize"
        reply, _ = self._ask("sync", during)
        return self._int(reply, "err")

    def error_name(self, err: int) -> str:
        reply, _ = self._ask("error_name", "cudaGetErrorName", err=int(err))
        name = reply.get("name")
        return name[:200] if isinstance(name, str) else "?"

    def time_variant(self, name: str, dims) -> tuple[float, float] | None:
        """(median ms, bytes one call moves) for a named host function, or None if undefined."""
        timed = self._time_request(name, dims, REPS)
        return None if timed is None else (statistics.median(timed[0]), timed[1])

    def time_variant_outside(self, name: str, dims) -> Timed | None:
        """time_variant, then Lib.confirm of the median it claimed; None if undefined."""
        normal = self._time_request(name, dims, REPS)
        if normal is None:
            return None
        return self.confirm(name, dims, statistics.median(normal[0]), normal[1])

    def confirm(self, name: str, dims, claimed_ms: float, moved: float) -> Timed:
        """A second clock the library cannot touch: this process times (perf_counter) a 1-call request
        and one of `reps` calls, reps chosen so the claimed time makes CONFIRM_S of work; each call is
        event-synced, so (wall_many - wall_one) / (reps - 1) is a per-call time (kernel + launch/sync
        overhead) in which the request's allocation, fill and warm-up cancel out. A forged small
        claim makes the request long: it is given up CONFIRM_GRACE_S after the claim's time."""
        lo, hi = CONFIRM_REPS
        reps = hi if claimed_ms <= 0 else max(lo, min(hi, math.ceil(CONFIRM_S * 1e3 / claimed_ms)))
        one = self._time_request(name, dims, 1)
        if one is None:  # defined a moment ago: the library changes its answers
            raise SubjectDied(f"{name} was defined, then was not")
        allowed = one[2] + reps * claimed_ms * 1e-3 + CONFIRM_GRACE_S
        try:
            many = self._time_request(name, dims, reps, deadline=time.monotonic() + allowed)
        except TooSlow:
            return Timed(claimed_ms, moved, None, reps, one[2], allowed)
        if many is None:
            raise SubjectDied(f"{name} was defined, then was not")
        return Timed(claimed_ms, moved, (many[2] - one[2]) / (reps - 1) * 1e3, reps, one[2], many[2])

    def moved(self, name: str, dims) -> float | None:
        """What one call of a named host function moves (bytes or operations), from one untimed call."""
        timed = self._time_request(name, dims, 1, warmup=0)
        return None if timed is None else timed[1]

    def _time_request(self, name: str, dims, reps: int, warmup: int = WARMUP,
                      deadline: float | None = None) -> tuple[list[float], float, float] | None:
        """(samples ms, bytes moved, seconds this process waited for the reply), or None if undefined.
        deadline (time.monotonic()): past it, the server is ended and TooSlow raised."""
        started = time.perf_counter()
        self._deadline = deadline
        try:
            reply, _ = self._ask("time_variant", f"timing {name}", name=self._name(name),
                                 dims=[int(d) for d in dims], warmup=warmup, reps=reps)
        finally:
            self._deadline = None
        wall = time.perf_counter() - started
        err = self._int(reply, "err")
        if err == -1:
            return None
        if err == -2:
            raise ValueError(f"{name}: bad shape {dims}")
        self.check(err, f"timing {name}")
        moved = reply.get("moved")
        if not isinstance(moved, (int, float)) or isinstance(moved, bool) or not math.isfinite(moved) or moved < 0:
            raise SubjectDied("the file's process sent a byte count that is not a number")
        return self._floats(reply, "samples", reps), float(moved), wall

    def memcpy_ms(self, dst, src, nbytes) -> float:
        reply, _ = self._ask("memcpy_ms", "cudaMemcpy", dst=int(dst), src=int(src), nbytes=int(nbytes),
                             warmup=WARMUP, reps=REPS)
        self.check(self._int(reply, "err"), "cudaMemcpy")
        return statistics.median(self._floats(reply, "samples", REPS))
