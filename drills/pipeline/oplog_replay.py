"""The technique checks' evidence, from a process the learner's code never runs in.

The probe's child calls the entry point with the simulator's runtime inside the learner's library,
and that process can write anything anywhere it writes: its launch records are not evidence. What
it does write is an op log (DRILLS_SIM_OPLOG: every allocation, copy, memset and launch its host
code asked for, in order; sim/runtime/oplog.*). `drills_sim_replay` (sim/replay) reads that log
and the PTX of the library FILE, never runs a line of the library's host code, and runs the logged
launches again in its own simulator; its launch records are the evidence.

The log itself is the learner's word, so the replay does not take its data either: at the call's
mark it writes inputs drawn here, from a seed the learner's process never sees, into the call's
buffers, and the outputs the replayed kernels leave must agree with the problem's reference for
those inputs (`probe_reference` in the problem's module). A call whose answer came from its host
code (copied in, or passed to a kernel as a parameter), or from anything but its kernels, gives the
answer of the inputs it saw, not of these, and its counters count for nothing; a forged log
replays kernels that do not compute the answer, and fails the same way.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, field
from pathlib import Path

from ..messages import say

MAX_BUFFERS = 16
# How far a replayed output may lie from the reference: the tests judge correctness with the
# problem's own tolerance; this only tells a computed answer from one that belongs to other inputs.
RTOL = 1e-3


@dataclass
class Replayed:
    ok: bool
    error: object = ""                       # a plain text or a catalogue reference (messages.say)
    launches: list = field(default_factory=list)
    # The replayed outputs disagree with the reference: the launches were measured, but no check
    # may pass on them (checks.evaluate); a check they fail still fails (a TODO kernel uses no
    # shared memory whatever its outputs are).
    disagrees: object = ""


def _buffers(claimed, items) -> list[dict] | None:
    """The call's buffers as the child reported them, if they fit the probe's description."""
    wanted = [i for i in items if i.kind != "int"]
    if not isinstance(claimed, list) or len(claimed) != len(wanted) or len(claimed) > MAX_BUFFERS:
        return None
    out = []
    for b, item in zip(claimed, wanted):
        if not (isinstance(b, dict) and b.get("kind") == item.kind and isinstance(b.get("ptr"), int)
                and not isinstance(b.get("ptr"), bool) and 0 < b["ptr"] < 2**64 and b.get("nbytes") == item.nbytes):
            return None
        out.append({"ptr": b["ptr"], "nbytes": item.nbytes, "item": item})
    return out


def agree(got, expected, atol) -> tuple[bool, int]:
    """(whether every element is within atol + RTOL*|expected|, the first index that is not);
    NaN is expected where the reference has NaN."""
    import numpy as np
    expected = np.asarray(expected, dtype=np.float64)
    atol = np.broadcast_to(np.asarray(atol, dtype=np.float64), expected.shape).reshape(-1)
    expected = expected.reshape(-1)
    got = np.asarray(got, dtype=np.float64).reshape(-1)
    with np.errstate(invalid="ignore", over="ignore"):
        close = np.abs(got - expected) <= atol + RTOL * np.abs(expected)
    close |= np.isnan(got) & np.isnan(expected)
    close |= np.isinf(got) & (got == expected)
    if close.all():
        return True, -1
    return False, int(np.argmin(close))


def replay(library: Path, oplog: Path, probe, claimed_buffers, reference, tmp: Path, timeout: float) -> Replayed:
    import numpy as np

    from . import build
    from .execute import _exec, read_sim_report
    from .probe import CALL_MARK, END_MARK, call_items

    if not oplog.is_file() or oplog.stat().st_size == 0:
        return Replayed(False, say("probe.no-oplog", entry=probe.entry))
    if reference is None:
        return Replayed(False, say("probe.no-reference", entry=probe.entry))
    tool, log = build.sim_replay_tool()
    if tool is None:
        return Replayed(False, say("probe.no-replay-tool", log=log[-2000:]))

    items = call_items(probe.args, probe.dims, np.random.default_rng(secrets.randbits(63)))
    buffers = _buffers(claimed_buffers, items)
    if buffers is None:
        return Replayed(False, say("probe.buffers-unknown", entry=probe.entry))
    cmd = [str(tool), str(library), str(oplog), "--report", str(tmp / "replay.jsonl"),
           "--after-mark", CALL_MARK, "--until-mark", END_MARK]
    outputs = []
    for n, b in enumerate(buffers):
        item = b["item"]
        if item.kind == "in":
            path = tmp / f"in{n}.bin"
            path.write_bytes(item.value.tobytes())
            cmd += ["--set", f"{b['ptr']:#x}={path}"]
        else:
            path = tmp / f"out{n}.bin"
            cmd += ["--poison", f"{b['ptr']:#x}={b['nbytes']}", "--dump", f"{b['ptr']:#x}={b['nbytes']}={path}"]
            outputs.append(path)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRILLS_SIM_REPORT") and k != "DRILLS_SIM_OPLOG"}
    env.setdefault("DRILLS_SIM_WATCHDOG", "10")
    done = _exec(cmd, env, timeout)  # the learner's kernels run here: their printf is capped too
    launches = [e for e in read_sim_report(tmp / "replay.jsonl") if e.get("event") == "launch"]
    if done.timed_out:
        return Replayed(False, say("probe.replay-timeout", seconds=int(timeout)), launches)
    if done.code != 0:
        # The tool's own last line says why (never the kernels' printf, which it does not start with).
        said = [line for line in done.output.splitlines() if line.startswith("drills_sim_replay")]
        why = said[-1] if said else f"exit code {done.code}"
        return Replayed(False, say("probe.replay-refused", why=why[:500]), launches)
    if any(l.get("errors") for l in launches):
        return Replayed(True, "", launches)  # the fault is the finding: checks.evaluate says which
    ins = [b["item"].value for b in buffers if b["item"].kind == "in"]
    try:
        expected = reference(probe.entry, dict(probe.dims), ins)
    except Exception as e:  # noqa: BLE001 - the reference is ours: say what broke, never pass
        return Replayed(False, say("probe.reference-broke", entry=probe.entry, why=repr(e)[:300]), launches)
    for path, (want, atol) in zip(outputs, expected):
        try:
            got = np.fromfile(path, dtype=np.float32)
        except OSError:
            return Replayed(False, say("probe.replay-no-output", entry=probe.entry), launches)
        ok, at = agree(got[:np.asarray(want).size], want, atol)
        if not ok:
            return Replayed(True, "", launches,
                            disagrees=say("probe.replay-differs", entry=probe.entry, index=at,
                                          got=float(got.reshape(-1)[at]), want=float(np.asarray(want).reshape(-1)[at])))
    return Replayed(True, "", launches)
