"""Run one entry point of a chapter's C ABI library alone under the simulator, so that every launch
in the simulator's report belongs to that entry point: the evidence for technique checks.

    python -m drills.pipeline.probe LIB ENTRY --dims M=1024,N=2048 --args in:M*N,out:N*M,M,N --report R.jsonl

`--args` describes the call, one item per parameter: `in:EXPR` a device buffer of EXPR float32
filled with random non-zero values, `out:EXPR` a device buffer of EXPR float32 poisoned with NaN,
and a bare name or integer an `int` argument. EXPR is a product of dimension names and integers.
The child sends one JSON object, {"ok": bool, "error": "..."}, over the judge's result channel
(execute._exec; printed when run by hand); the launches are in the report.

The parent side is `run()`, which starts the child in its own process (a kernel fault, a hang or a
host crash in the learner's code stays there) and returns the launches.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


PROBE_TIMEOUT = 60.0


@dataclass
class Probe:
    """What to run: an entry point, the dimensions it is called with, and how to call it."""
    entry: str
    dims: dict            # {"M": 1024, "N": 2048}
    args: tuple           # ("in:M*N", "out:N*M", "M", "N")

    @property
    def key(self) -> tuple:
        return (self.entry, tuple(sorted(self.dims.items())), tuple(self.args))

    @property
    def shape(self) -> list:
        return list(self.dims.values())


@dataclass
class ProbeRun:
    ok: bool
    error: str = ""
    launches: list = field(default_factory=list)   # the simulator's launch records, in order
    events: list = field(default_factory=list)     # every record (host faults, unsupported, ...)


def _size(expr: str, dims: dict) -> int:
    total = 1
    for factor in expr.split("*"):
        factor = factor.strip()
        total *= int(factor) if factor.isdigit() else int(dims[factor])
    return total


def run(library: Path, probe: Probe, timeout: float = PROBE_TIMEOUT) -> ProbeRun:
    """Run `probe` against `library` in a child process and collect its simulator report. The
    child's status comes over the result channel (execute._exec), not from its output, which the
    learner's code shares."""
    from .execute import _exec, read_sim_report
    with tempfile.TemporaryDirectory(prefix="drills-probe-") as tmp:
        report = Path(tmp) / "sim.jsonl"
        env = dict(os.environ, DRILLS_SIM_REPORT=str(report))
        env.setdefault("DRILLS_SIM_WATCHDOG", "10")
        cmd = [sys.executable, "-m", "drills.pipeline.probe", str(library), probe.entry,
               "--dims", ",".join(f"{k}={v}" for k, v in probe.dims.items()),
               "--args", ",".join(probe.args)]
        done = _exec(cmd, env, timeout)  # output capped while read: a kernel may print without end
        events = read_sim_report(report)
    launches = [e for e in events if e.get("event") == "launch"]
    if done.timed_out:
        return ProbeRun(False, f"the probe did not finish in {timeout:.0f} s", launches, events)
    if done.flooded:
        return ProbeRun(False, "the probe printed without end and was stopped", launches, events)
    try:
        if done.channel:
            raise ValueError(done.channel)
        status = json.loads(done.report)
    except (ValueError, TypeError):
        why = f"killed by signal {-done.code}" if done.code is not None and done.code < 0 else \
            f"the probe process ended with code {done.code}"
        status = {"ok": False, "error": done.channel if done.channel and not done.channel.startswith("no report") else why}
    return ProbeRun(bool(status.get("ok")), status.get("error", ""), launches, events)


# ---- static shared memory per kernel, from the PTX the simulator runs ----

_SHARED_DECL = re.compile(rb"\.shared\s+(?:\.align\s+\d+\s+)?\.\w+\s+([\w$.]+)\[(\d+)\]")
_ENTRY = re.compile(rb"\.entry\s+([\w$.]+)\s*\(")


def static_shared_bytes(library: Path) -> dict:
    """{mangled kernel: bytes of static shared memory it uses}, read from the PTX in the library
    (the simulator's build keeps it uncompressed). Nsight Compute's
    launch__shared_mem_per_block_static, for the kernels of a library; {} when unreadable."""
    try:
        data = Path(library).read_bytes()
    except OSError:
        return {}
    decls = {m.group(1): int(m.group(2)) for m in _SHARED_DECL.finditer(data)}
    entries = list(_ENTRY.finditer(data))
    out = {}
    for i, m in enumerate(entries):
        end = entries[i + 1].start() if i + 1 < len(entries) else len(data)
        body = data[m.end():end]
        used = sum(size for name, size in decls.items() if re.search(rb"\b" + re.escape(name) + rb"\b", body))
        out[m.group(1).decode(errors="replace")] = used
    return out


# ---- the child ----

def _child(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="python -m drills.pipeline.probe")
    ap.add_argument("library")
    ap.add_argument("entry")
    ap.add_argument("--dims", default="")
    ap.add_argument("--args", default="")
    a = ap.parse_args(argv)

    from .execute import result_fd, send_report
    channel = result_fd()

    def say(ok: bool, error: str = "") -> int:
        status = json.dumps({"ok": ok, "error": error})
        if channel is None:  # run by hand
            print(status, flush=True)
        else:  # before the learner's library can run anything at exit
            send_report(channel, status.encode())
        return 0 if ok else 1

    import ctypes

    import numpy as np

    from .capi import Lib, SubjectDied
    dims = {k: int(v) for k, v in (item.split("=") for item in a.dims.split(",") if item)}
    lib = Lib(Path(a.library))
    if not lib.entry(a.entry):
        return say(False, f"{a.entry} is not defined in this file")
    rng = np.random.default_rng(20261129)
    types, values, buffers = [], [], []
    try:
        for spec in (s for s in a.args.split(",") if s):
            kind, _, expr = spec.partition(":")
            if kind in ("in", "out") and expr:
                n = _size(expr, dims)
                if kind == "in":
                    host = rng.uniform(-1, 1, n).astype(np.float32)
                    host[host == 0] = 0.5
                    ptr = lib.upload(host)
                else:
                    ptr = lib.alloc(n * 4)
                    lib.poison(ptr, n * 4)
                buffers.append(ptr)
                types.append(ctypes.c_void_p)
                values.append(ptr)
            else:
                types.append(ctypes.c_int)
                values.append(_size(spec, dims))
    except (KeyError, ValueError, RuntimeError) as e:
        return say(False, f"cannot set up the call: {e}")
    try:
        lib.call(a.entry, tuple(types), *values)
        err = lib.sync()
        for ptr in buffers:
            lib.free(ptr)
    except SubjectDied as e:  # a crash in the library's process (the subject server) ends only it
        return say(False, str(e))
    return say(err == 0, "" if err == 0 else lib.error_name(err))


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
