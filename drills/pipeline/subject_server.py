"""The subject server: the one process that loads a chapter's C ABI library (the learner's code).

`python3 -I -S drills/pipeline/subject_server.py LIB.so REQ_FD REP_FD` (capi.Lib starts it, by
path: no drills package, no numpy, no site-packages, nothing else for the library to reach) loads
LIB.so with ctypes and answers requests from capi.Lib over a pipe pair, until the request pipe
ends or its parent dies. pytest, the perf timing and the probe talk to it and never load learner
code themselves, so nothing the library does (Python through the C API, writes to a result
channel, exit handlers, a crash) happens inside the process that records the results.

Wire format, both ways: 12 bytes `>IQ` (header length, body length), a JSON object, then the raw
body bytes. The client bounds every length it reads and never unpickles or evaluates anything
from here.
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import struct
import sys

PREFIX = struct.Struct(">IQ")
MAX_HEADER = 1 << 20
# ctypes types by name: the only argument types a request may use.
TYPES = {"c_void_p": ctypes.c_void_p, "c_int": ctypes.c_int, "c_float": ctypes.c_float,
         "c_longlong": ctypes.c_longlong, "c_size_t": ctypes.c_size_t, "c_double": ctypes.c_double}


def _read_exact(fd: int, n: int) -> bytearray | None:
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        k = os.readv(fd, [view[got:]])
        if k == 0:
            return None
        got += k
    return buf


def _write_all(fd: int, data) -> None:
    view = memoryview(data).cast("B")
    while view:
        view = view[os.write(fd, view):]


def _die_with_parent(parent: int) -> None:
    """The learner's code must not outlive the run that started it (the pipe's EOF ends the loop
    too; this covers a library that is stuck in a kernel when its parent dies)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)


# Capabilities a root server gives up before it loads the library: with CAP_SYS_PTRACE it could
# read or write pytest's memory and open its descriptors (through /proc) whatever pytest's dumpable
# flag says, and those of any process of its user with more capabilities than it keeps; the
# others reach past every process (modules, raw I/O, mounts, namespaces of other processes).
DROPPED_CAPS = (16, 17, 19, 21)  # CAP_SYS_MODULE, CAP_SYS_RAWIO, CAP_SYS_PTRACE, CAP_SYS_ADMIN


def _drop_capabilities() -> None:
    """nocaps.py beside this file (by path: no drills package here), the grader's one way to drop them."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "nocaps.py")
    spec = importlib.util.spec_from_file_location("drills_nocaps", path)
    nocaps = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nocaps)
    nocaps.drop(DROPPED_CAPS)


class Server:
    def __init__(self, path: str):
        self.dll = d = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
        P, I, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        d.drills_entry.restype = P
        d.drills_entry.argtypes = [ctypes.c_char_p]
        d.drills_malloc.argtypes = [ctypes.POINTER(P), S]
        d.drills_free.argtypes = [P]
        d.drills_to_device.argtypes = [P, P, S]
        d.drills_to_host.argtypes = [P, P, S]
        d.drills_memset.argtypes = [P, I, S]
        d.drills_time_variant.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong), I, I, I,
                                          ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double)]
        d.drills_time_memcpy.argtypes = [P, P, S, I, I, ctypes.POINTER(ctypes.c_float)]
        d.drills_error_name.restype = ctypes.c_char_p
        d.drills_error_name.argtypes = [I]

    # Each op: (header, body) -> (reply header, reply body).
    def op_entry(self, h, body):
        return {"defined": bool(self.dll.drills_entry(h["name"].encode()))}, b""

    def op_alloc(self, h, body):
        p = ctypes.c_void_p()
        err = self.dll.drills_malloc(ctypes.byref(p), int(h["nbytes"]))
        return {"err": err, "ptr": p.value or 0}, b""

    def op_free(self, h, body):
        return {"err": self.dll.drills_free(int(h["ptr"]))}, b""

    def op_upload(self, h, body):
        src = (ctypes.c_char * len(body)).from_buffer(body) if body else None
        return {"err": self.dll.drills_to_device(int(h["ptr"]), src, len(body))}, b""

    def op_download(self, h, body):
        out = bytearray(int(h["nbytes"]))
        dst = (ctypes.c_char * len(out)).from_buffer(out) if out else None
        err = self.dll.drills_to_host(dst, int(h["ptr"]), len(out))
        return {"err": err}, (out if err == 0 else b"")

    def op_memset(self, h, body):
        return {"err": self.dll.drills_memset(int(h["ptr"]), int(h["value"]), int(h["nbytes"]))}, b""

    def op_call(self, h, body):
        fn = self.dll.drills_entry(h["name"].encode())
        if not fn:
            return {"defined": False}, b""
        types = [TYPES[t] for t in h["signature"]]
        ctypes.CFUNCTYPE(None, *types)(fn)(*h["args"])
        return {"defined": True}, b""

    def op_mark(self, h, body):
        # The simulator's op log (DRILLS_SIM_OPLOG) brackets the call the judge replays
        # (drills/pipeline/probe.py); a library built for a GPU has no log and no mark.
        try:
            mark = self.dll.drills_sim_mark
        except AttributeError:
            return {"marked": False}, b""
        mark.argtypes = [ctypes.c_char_p]
        mark(str(h["text"]).encode())
        return {"marked": True}, b""

    def op_sync(self, h, body):
        return {"err": self.dll.drills_sync()}, b""

    def op_error_name(self, h, body):
        name = self.dll.drills_error_name(int(h["err"]))
        return {"name": (name or b"?").decode(errors="replace")[:200]}, b""

    def op_time_variant(self, h, body):
        dims, reps = h["dims"], int(h["reps"])
        samples = (ctypes.c_float * reps)()
        moved = ctypes.c_double()
        arr = (ctypes.c_longlong * len(dims))(*dims)
        err = self.dll.drills_time_variant(h["name"].encode(), arr, len(dims), int(h["warmup"]), reps, samples,
                                           ctypes.byref(moved))
        return {"err": err, "samples": list(samples), "moved": moved.value}, b""

    def op_memcpy_ms(self, h, body):
        reps = int(h["reps"])
        samples = (ctypes.c_float * reps)()
        err = self.dll.drills_time_memcpy(int(h["dst"]), int(h["src"]), int(h["nbytes"]), int(h["warmup"]), reps,
                                          samples)
        return {"err": err, "samples": list(samples)}, b""


def _send(fd: int, header: dict, body=b"") -> None:
    data = json.dumps(header).encode()
    _write_all(fd, PREFIX.pack(len(data), len(body)) + data)
    if body:
        _write_all(fd, body)


def serve(path: str, req: int, rep: int) -> int:
    try:
        server = Server(path)
    except (OSError, AttributeError) as e:  # no such file, not a library, not a chapter's library
        _send(rep, {"ok": False, "kind": "load", "error": str(e)[:2000]})
        return 1
    _send(rep, {"ok": True, "pid": os.getpid()})
    while True:
        prefix = _read_exact(req, PREFIX.size)
        if prefix is None:
            return 0  # the client closed the pipe: done
        hlen, blen = PREFIX.unpack(prefix)
        if hlen > MAX_HEADER:
            return 2
        header = _read_exact(req, hlen)
        body = _read_exact(req, blen) if blen else bytearray()
        if header is None or body is None:
            return 0
        h = json.loads(header)
        op = getattr(server, "op_" + h.get("op", ""), None)
        try:
            if op is None:
                raise ValueError(f"unknown request {h.get('op')!r}")
            reply, out = op(h, body)
            reply["ok"] = True
        except (ValueError, KeyError, TypeError, ctypes.ArgumentError, OverflowError) as e:
            reply, out = {"ok": False, "kind": type(e).__name__, "error": str(e)[:2000]}, b""
        _send(rep, reply, out)


def main(argv: list[str]) -> int:
    path, req, rep = argv[0], int(argv[1]), int(argv[2])
    _die_with_parent(int(os.environ.pop("DRILLS_SUBJECT_PARENT", os.getppid())))
    os.environ.pop("DRILLS_RESULT_FD", None)
    _drop_capabilities()
    return serve(path, req, rep)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
