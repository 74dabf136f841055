"""Run one entry point of a chapter's C ABI library alone under the simulator, so that every launch
belongs to that entry point: the evidence for technique checks.

    python -m drills.pipeline.probe LIB ENTRY --dims M=1024,N=2048 --args in:M*N,out:N*M,M,N

`--args` describes the call, one item per parameter: `in:EXPR` a device buffer of EXPR float32
filled with random non-zero values (`in16:EXPR`: float16), `out:EXPR` a device buffer of EXPR
float32 poisoned with NaN, and a bare name or integer an `int` argument. EXPR is a product of
dimension names and integers. The child sends one JSON object, {"ok": bool, "error": "...",
"buffers": [...]}, over the judge's result channel (execute._exec; printed when run by hand).

The parent side is `run()`: the child runs in its own process (a kernel fault, a hang or a host
crash in the learner's code stays there) with the simulator's op log on, and the launches the
checks read come from the judge's replay of that log (drills/pipeline/oplog_replay.py), never
from the learner's process.
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
    disagrees: object = ""   # why no check may pass: the replayed outputs are not the answer (oplog_replay)


SEED = 20261129          # the learner's process's inputs: the same every run
CALL_MARK, END_MARK = "drills-probe-call", "drills-probe-end"
REPLAY_TIMEOUT = 120.0


def _size(expr: str, dims: dict) -> int:
    total = 1
    for factor in expr.split("*"):
        factor = factor.strip()
        total *= int(factor) if factor.isdigit() else int(dims[factor])
    return total


@dataclass
class Item:
    kind: str         # "in", "out" or "int"
    value: object     # the input array (in), None (out), the integer (int)
    nbytes: int = 0


def call_items(args, dims: dict, rng) -> list[Item]:
    """The call's arguments from their description: `in:EXPR` EXPR random non-zero float32 in
    [-1, 1), `in16:EXPR` the same as float16, `out:EXPR` EXPR float32 (poisoned by the caller),
    anything else an int."""
    import numpy as np
    items = []
    for spec in (s for s in args if s):
        kind, _, expr = spec.partition(":")
        if kind in ("in", "in16", "out") and expr:
            n = _size(expr, dims)
            if kind == "out":
                items.append(Item("out", None, n * 4))
                continue
            host = rng.uniform(-1, 1, n).astype(np.float16 if kind == "in16" else np.float32)
            host[host == 0] = 0.5
            items.append(Item("in", host, host.nbytes))
        else:
            items.append(Item("int", _size(spec, dims)))
    return items


def run(library: Path, probe: Probe, timeout: float = PROBE_TIMEOUT, reference=None) -> ProbeRun:
    """Run `probe` against `library` in a child process, then replay what its host code asked of the
    device in a process of the judge's (`drills_sim_replay`, sim/replay): the launches come from
    that replay, never from a report the learner's process could write. The replay runs the call
    again on other inputs, drawn here and never shown to the learner's process, and its outputs
    must agree with `reference(entry, dims, inputs)` (the problem module's probe_reference): a call
    whose answer came from the host, or from anything but its kernels, does not."""
    from .execute import _exec, read_sim_report
    with tempfile.TemporaryDirectory(prefix="drills-probe-") as tmp:
        report, oplog = Path(tmp) / "sim.jsonl", Path(tmp) / "ops.bin"
        # Record only: the kernels run once, in the replay; here they would only cost time.
        env = dict(os.environ, DRILLS_SIM_REPORT=str(report), DRILLS_SIM_OPLOG=str(oplog), DRILLS_SIM_RECORD_ONLY="1")
        env.setdefault("DRILLS_SIM_WATCHDOG", "10")
        cmd = [sys.executable, "-m", "drills.pipeline.probe", str(library), probe.entry,
               "--dims", ",".join(f"{k}={v}" for k, v in probe.dims.items()),
               "--args", ",".join(probe.args)]
        done = _exec(cmd, env, timeout)  # output capped while read: a kernel may print without end
        events = read_sim_report(report)  # what the learner's process says: shown, never counted
        if done.timed_out:
            return ProbeRun(False, f"the probe did not finish in {timeout:.0f} s", [], events)
        if done.flooded:
            return ProbeRun(False, "the probe printed without end and was stopped", [], events)
        try:
            if done.channel:
                raise ValueError(done.channel)
            status = json.loads(done.report)
            if not isinstance(status, dict):
                raise ValueError("not an object")
        except (ValueError, TypeError):
            why = f"killed by signal {-done.code}" if done.code is not None and done.code < 0 else \
                f"the probe process ended with code {done.code}"
            status = {"ok": False, "error": done.channel if done.channel and not done.channel.startswith("no report") else why}
        error = str(status.get("error") or "")
        if ABSENT_TEXT in error:
            return ProbeRun(False, error, [], events)
        from . import oplog_replay
        replayed = oplog_replay.replay(library, oplog, probe, status.get("buffers"), reference, Path(tmp),
                                       REPLAY_TIMEOUT)
        # The child's own failure (a fault its call met) is said first; the replay met it too, and
        # its records say where.
        ok = bool(status.get("ok")) and replayed.ok
        return ProbeRun(ok, error if not status.get("ok") else replayed.error, replayed.launches, events,
                        replayed.disagrees)


ABSENT_TEXT = "is not defined in this file"


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

    def say(ok: bool, error: str = "", buffers=()) -> int:
        status = json.dumps({"ok": ok, "error": error, "buffers": list(buffers)})
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
        return say(False, f"{a.entry} {ABSENT_TEXT}")
    types, values, buffers = [], [], []
    try:
        for item in call_items(a.args.split(",") if a.args else [], dims, np.random.default_rng(SEED)):
            if item.kind == "int":
                types.append(ctypes.c_int)
                values.append(item.value)
                continue
            if item.kind == "in":
                ptr = lib.upload(item.value)
            else:
                ptr = lib.alloc(item.nbytes)
                lib.poison(ptr, item.nbytes)
            buffers.append({"kind": item.kind, "ptr": ptr, "nbytes": item.nbytes})
            types.append(ctypes.c_void_p)
            values.append(ptr)
    except (KeyError, ValueError, RuntimeError) as e:
        return say(False, f"cannot set up the call: {e}")
    try:
        # The op log's marks bracket the call: the judge replays what lies between them.
        lib.mark(CALL_MARK)
        lib.call(a.entry, tuple(types), *values)
        err = lib.sync()
        lib.mark(END_MARK)
        for b in buffers:
            lib.free(b["ptr"])
    except SubjectDied as e:  # a crash in the library's process (the subject server) ends only it
        return say(False, str(e), buffers)
    return say(err == 0, "" if err == 0 else lib.error_name(err), buffers)


if __name__ == "__main__":
    sys.exit(_child(sys.argv[1:]))
