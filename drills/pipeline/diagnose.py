"""Named diagnoses from evidence: the build log, the simulator's checks and counters, the pattern of
wrong elements across shapes. Never from reading the learner's source text.

Stable ids (the result object's `diagnoses[].id`; golden cases in tests/golden/<chapter>/<id>/):
  compile-error, missing-entry-point, host-deref-device-pointer, timeout, deadlock, unsupported
      (these make the status `error`: the program did not build or did not finish);
  from the simulator's errors: wrong-shuffle-mask (sync-mask), barrier-in-divergent-branch
      (barrier-divergence), missing-barrier (shared-race), vec4-tail-overrun (a float4 or group of
      four reading past the array's end), misaligned-vector-access, out-of-bounds;
  launch-configuration: a launch refused (the simulator's reason; on a GPU the replay's, at a shape
      only the GPU runs too, else the case's own error name);
  from the pattern of wrong outputs: each problem's module (drills/problems/<module>.py, DIAGNOSES);
  from failed technique checks (the manifest's `diagnosis`): no-shared-memory, uncoalesced-store,
      uncoalesced-load, uncoalesced-access, no-vector-loads, bank-conflicts.

Wording that depends on the problem (C3's tiles and [32][33] mean nothing in a vector add) is the
problem's manifest entry ([problem.diagnosis.advice], keyed by diagnosis id), else DEFAULT_ADVICE;
the facts (line, index, thread, ways) are computed here. No problem number appears in this file.
"""

from __future__ import annotations

import math
import re

from . import ptxloc
from .. import problems
from ..manifest import Problem
from ..messages import is_reference, say
from ..result import Result, error_say

# The program did not build or did not finish: status `error`, never a wrong answer.
ERROR_IDS = frozenset({"compile-error", "build-time-limit", "missing-entry-point", "host-deref-device-pointer",
                       "timeout", "output-limit", "deadlock", "unsupported"})
# Most specific first: the first diagnosis leads the verdict. PROBLEM stands for the problem
# module's own DIAGNOSES (drills/problems/<module>.py): the pattern of wrong outputs names the
# mistake, so it ranks after the simulator's race, barrier and shuffle findings and before memory
# errors, which are often its consequence.
PROBLEM = "<the problem's own diagnoses>"
ORDER = ("output-limit", "build-time-limit", "compile-error", "missing-entry-point", "host-deref-device-pointer",
         "timeout", "deadlock",
         "unsupported", "wrong-shuffle-mask", "barrier-in-divergent-branch", "cp-async-read-before-wait",
         "missing-barrier", PROBLEM,
         "vec4-tail-overrun", "misaligned-vector-access", "out-of-bounds", "launch-configuration",
         "no-shared-memory", "no-vector-loads", "uncoalesced-store", "uncoalesced-load", "uncoalesced-access",
         "bank-conflicts")


def advice(problem: Problem, id: str) -> dict:
    """A fact that renders as the problem's own advice for `id`, else the catalogue's [advice]."""
    return {"advice": id}


def build_failure(problem: Problem, shown: str, outcome) -> Result:
    log = outcome.log[-8000:]
    if outcome.stage == "configure":
        return error_say(problem.number, say("verdict.configure-failed"), shown, log)
    if outcome.timed_out:
        return error_say(problem.number, say("diagnosis.build-time-limit"), shown, log, diagnosis="build-time-limit")
    if outcome.missing:
        return error_say(problem.number, say("diagnosis.missing-entry-point", file=shown, names=", ".join(outcome.missing)),
                         shown, log, diagnosis="missing-entry-point")
    if outcome.errors:
        line, first = outcome.errors[0]
        r = error_say(problem.number, say("verdict.compile-error", file=shown, line=line, first=first), shown, log)
        more = [say("diagnosis.compile-error-more", file=shown, line=l, text=m) for l, m in outcome.errors[1:]]
        r.diagnose("compile-error", file=shown, line=line, first=first, more=more)
    else:
        r = error_say(problem.number, say("verdict.build-failed"), shown, log)
        r.diagnose("compile-error", key="diagnosis.compile-error-outside", file=shown)
    return r


def from_runs(problem: Problem, result: Result, runs: list, binaries=()) -> None:
    """binaries: the built test program and library, whose PTX line table traces an error inside an
    inlined header function back to the learner's line (drills/pipeline/ptxloc.py)."""
    for run in runs:
        for event in run.sim_events:
            _from_sim_event(problem, result, event, binaries)
        if run.crashed == "killed by SIGXFSZ" or run.crashed.startswith("stopped after printing"):
            result.diagnose("output-limit")
        if run.timed_out:
            watchdog = any(e.get("kind") == "watchdog" for ev in run.sim_events for e in ev.get("errors", []))
            if (result.backend or {}).get("kind") == "sim" and not watchdog:
                # the simulator's watchdog stops every launch in its time: what ran on was host code
                result.diagnose("timeout", key="diagnosis.timeout-host")
            else:
                result.diagnose("timeout")
    _refused_launch(result)
    _from_wrong_outputs(problem, result)
    order(problem, result)


# Only a launch gives these (older CUDA versions): the case failed before its kernel ran.
# cudaErrorInvalidValue, which CUDA 13 on an H200 and the simulator give for every refused launch,
# comes from a copy as well: for that one the simulator's launch event decides (on a GPU, the replay
# of the case: replay.refused_case).
LAUNCH_REFUSED = re.compile(r"\b(cudaErrorInvalidConfiguration|cudaErrorLaunchOutOfResources)\b")


def _refused_launch(result: Result) -> None:
    """A case whose launch was refused, from the case's own failure (the tests print the error's name).
    The simulator names the kernel and the reason (its launch event; on a GPU, the replay), but it
    never runs a shape only the GPU runs, and there a grid can be too large (262144 blocks in y)."""
    if any(d["id"] == "launch-configuration" for d in result.diagnoses):
        return
    for t in result.tests:
        m = LAUNCH_REFUSED.search(t.get("message") or "") if t.get("status") == "fail" else None
        if m:
            result.diagnose("launch-configuration", key="diagnosis.launch-refused",
                            case=t["name"].rsplit("/", 1)[-1], error=m.group(1))
            return


def order(problem: Problem, result: Result) -> None:
    own = getattr(problems.module_for(problem), "DIAGNOSES", ())
    ids = [i for id in ORDER for i in (own if id == PROBLEM else (id,))]
    rank = {id: i for i, id in enumerate(ids)}
    result.diagnoses.sort(key=lambda d: rank.get(d["id"], len(ids)))


def _shown(result: Result, file: str) -> str:
    """The learner's file as the result names it (the simulator reports absolute paths)."""
    if file and result.file and (file == result.file or file.endswith("/" + result.file)):
        return result.file
    return file


def _where(e: dict) -> str:
    b, t = e.get("block", [0, 0, 0]), e.get("thread", [0, 0, 0])
    return f"block ({b[0]},{b[1]},{b[2]}) thread ({t[0]},{t[1]},{t[2]})"


def _from_sim_event(problem: Problem, result: Result, event: dict, binaries=()) -> None:
    kind_of_event = event.get("event")
    if kind_of_event == "host-deref-device-pointer":
        result.diagnose("host-deref-device-pointer", where=str(event.get("allocation") or event.get("address", "?")))
        return
    if kind_of_event == "unsupported":
        result.diagnose("unsupported", what=event.get("what", ""))
        return
    for e in event.get("errors", []) if kind_of_event == "launch" else []:
        _from_launch_error(problem, result, e, event, binaries)


def _learner_site(problem: Problem, result: Result, e: dict, event: dict, binaries) -> tuple[str, int, list]:
    """(file, line, callers) in the learner's file for a simulator error. An error inside an inlined
    header function (e.g. a shuffle: sm_30_intrinsics.hpp) is traced back through the PTX's inlining
    chain to the innermost line of the learner's file; callers are the learner's lines further out."""
    file, line = _shown(result, e.get("file", "") or ""), int(e.get("line", 0) or 0)
    if not result.file or file == result.file:
        return file, line, []
    instr = re.search(r"\(`([^`]*)`\)\s*$", e.get("message", ""))
    chain = ptxloc.call_chain(binaries, event.get("mangled", ""), instr.group(1)) if instr else []
    mine = [ln for f, ln in chain if _shown(result, f) == result.file]
    if not mine:
        return file, line, []
    return result.file, mine[0], mine[1:]


def _from_launch_error(problem: Problem, result: Result, e: dict, event: dict | None = None, binaries=()) -> None:
    file, line, callers = _learner_site(problem, result, e, event or {}, binaries)
    kind = e.get("kind", "")
    where = _where(e)
    text = e.get("message", "")
    if kind in ("out-of-bounds", "misaligned"):
        _memory_error(problem, result, e, kind, file, line, where)
    elif kind == "shared-race" and "cp.async" in e.get("detail", ""):
        # A read of a cp.async destination before its group was waited for (and a barrier passed).
        copy = re.search(r"cp\.async at line (\d+)", e.get("detail", ""))
        result.diagnose("cp-async-read-before-wait", file=file, line=line, where=where, detail=e.get("detail", ""),
                        copy_line=int(copy.group(1)) if copy else 0, advice="cp-async-read-before-wait")
    elif kind == "shared-race":
        _race(problem, result, e, event or {}, binaries, file, line, where)
    elif kind == "watchdog":
        result.diagnose("timeout", key="diagnosis.timeout-at-line", file=file, line=line, where=where,
                        kernel=_short_kernel((event or {}).get("kernel", "")) or "?")
    elif kind == "deadlock":
        result.diagnose("deadlock", file=file, line=line, text=text)
    elif kind == "barrier-divergence":
        result.diagnose("barrier-in-divergent-branch", file=file, line=line, where=where,
                        advice="barrier-in-divergent-branch")
    elif kind == "sync-mask":
        _wrong_shuffle_mask(problem, result, e, file, line, callers, where)
    elif line:
        result.diagnose(kind or "simulator-error", key="diagnosis.simulator-error", file=file, line=line, text=text)
    else:  # a refused launch has no source line: name the kernel, not "line 0"
        result.diagnose(kind or "simulator-error", key="diagnosis.simulator-error-kernel",
                        kernel=_short_kernel((event or {}).get("kernel", "")) or "?", text=text)


def race_case(line: int, other: int, barriers: list[int]) -> tuple[str, int]:
    """Which race it is, from the two accesses' lines and the kernel's barrier lines:
    ("loop-end", barrier) the earlier access is further down than the later one (the race crosses
        a loop iteration) and a barrier already lies between them in program order: the loop body
        lacks a barrier at its end, before the next iteration overwrites the tile;
    ("too-early", barrier) no barrier between the write and the read, but one before the write:
        placed before the tile is filled;
    ("", 0) no barrier anywhere near: the plain missing barrier."""
    if not other or not line or other == line:
        return "", 0
    if other > line:
        between = [b for b in barriers if line < b < other]
        return ("loop-end", between[0]) if between else ("", 0)
    if any(other < b < line for b in barriers):
        return "", 0
    before = [b for b in barriers if b < other]
    return ("too-early", before[-1]) if before else ("", 0)


def _race(problem: Problem, result: Result, e: dict, event: dict, binaries, file: str, line: int, where: str) -> None:
    detail = e.get("detail", "")
    m = re.search(r"at line (\d+)", detail)
    other = int(m.group(1)) if m else 0
    barriers = []
    if file and file == result.file and binaries:
        barriers = ptxloc.barrier_lines(binaries, event.get("mangled", ""),
                                        lambda path: bool(path) and _shown(result, path) == result.file)
    case, barrier = race_case(line, other, barriers)
    facts = dict(file=file, line=line, where=where, detail=detail, what=advice(problem, "shared-memory-name"))
    if case:
        result.diagnose("missing-barrier", key=f"diagnosis.missing-barrier-{case}", other=other, barrier=barrier, **facts)
    else:
        result.diagnose("missing-barrier", advice="missing-barrier", **facts)


def _short_kernel(name: str) -> str:
    """`void transpose_tiled_kernel<32>(float const*, ...)` -> `transpose_tiled_kernel`."""
    from .render import short_kernel
    return short_kernel(name) if name else ""


def _wrong_shuffle_mask(problem: Problem, result: Result, e: dict, file: str, line: int, callers: list, where: str) -> None:
    text = e.get("message", "")
    m = re.search(r"member mask (0x[0-9a-f]+).*?\((0x[0-9a-f]+)\); active (0x[0-9a-f]+)", text)
    mask, missing, active = m.groups() if m else ("?", "?", "?")
    if file == result.file:
        at = say("diagnosis.shuffle-at-line", line=line,
                 via=[say("diagnosis.shuffle-called-from", line=c) for c in callers[:2]])
    else:  # the inlining chain was not found: say where the simulator saw it, and that it is not the learner's line
        at = say("diagnosis.shuffle-at-header", header=file.rsplit("/", 1)[-1], line=line)
    mine = file == result.file
    result.diagnose("wrong-shuffle-mask", file=file if mine else "", line=line if mine else 0, at=at, mask=mask,
                    missing=missing, active=active, where=where, advice="wrong-shuffle-mask")


def _memory_error(problem: Problem, result: Result, e: dict, kind: str, file: str, line: int, where: str) -> None:
    text = e.get("message", "")
    op = re.search(r"\b(global|shared|local) (load|store)\b", text)
    space, verb = (op.group(1), op.group(2)) if op else ("global", "")
    width_m = re.search(r"\bof (\d+) bytes\b", text)
    width = int(width_m.group(1)) if width_m else 4
    size_m = re.search(r"\((\d+) bytes\)", e.get("allocation", ""))
    offset = int(e.get("offset", 0) or 0)
    # Which array: the contract's kernels load only from their input and store only to their output.
    array = say({"store": "words.output-array", "load": "words.input-array"}.get(verb, "words.an-array"))
    size = int(size_m.group(1)) if size_m else None
    if size is not None:
        floats = size // 4
        first, last = offset // 4, (offset + width - 1) // 4
        at = say("words.indices", first=first, last=last) if width > 4 and last > first else say("words.index", first=first)
        index = (say("words.index-in-array", at=at, floats=floats, top=floats - 1) if floats != 1
                 else say("words.index-in-array-of-one", at=at))
    else:
        index = say("words.byte-offset", offset=offset)
    vector = width > 4
    facts = dict(file=file, line=line, array=array, index=index, where=where)
    if kind == "misaligned":
        if vector and space == "global":
            past = (int(e.get("address", 0) or 0) % 16) // 4
            result.diagnose("misaligned-vector-access", width=width, past=past, advice="misaligned-vector-access", **facts)
        else:
            result.diagnose("out-of-bounds", key="diagnosis.misaligned", space=space, **facts)
        return
    # Past the end by less than one float4: the vector part (or a loop over groups of four) ran one
    # group too far instead of leaving the last n % 4 elements to a scalar tail.
    tail = (space == "global" and size is not None and offset + width > size and offset < size + 16
            and (vector or (problem.diagnosis.scalar_tail_overrun and verb == "load" and offset >= size)))
    if tail:
        what = say("words.vector-access", width=width) if vector else say("words.group-of-four-read")
        result.diagnose("vec4-tail-overrun", what=what, advice="vec4-tail-overrun", **facts)
        return
    result.diagnose("out-of-bounds", advice="out-of-bounds", **facts)


# ---- the pattern of wrong elements (evidence recorded by the GoogleTest file) ----

def evidence_int(ev: dict, key: str) -> int:
    try:
        return int(ev.get(key, 0))
    except (TypeError, ValueError):
        return 0


def nothing_written(test: dict) -> bool:
    """Every element the test compared is still the poison it filled the output with. A test that
    compares only part of a large output (whole rows and columns of a GEMM's C on the GPU-only
    shapes) records how many it compared as `checked`; else it compared all M×N of them."""
    ev = test.get("evidence") or {}
    shape = test.get("shape") or ()
    checked = evidence_int(ev, "checked") if "checked" in ev else \
        (shape[0] * shape[1] if len(shape) >= 2 else 0)
    return checked > 0 and evidence_int(ev, "unwritten") == checked


def _from_wrong_outputs(problem: Problem, result: Result) -> None:
    """The problem's own diagnoses from the pattern of wrong outputs (drills/problems/<module>.py)."""
    module = problems.module_for(problem)
    if module is not None:
        module.diagnose_outputs(problem, result)


def rows_by_entry(result: Result, entries: dict) -> dict:
    """{entry point: its gtest rows}, in the order of `entries`; `_offsetK` variants join their base."""
    out: dict[str, list] = {}
    for t in result.tests:
        base = re.sub(r"(_positive)?(_offset\d+)?$", "", t.get("variant") or "")
        if base in entries and t.get("shape"):
            out.setdefault(entries[base], []).append(t)
    return {e: out[e] for e in entries.values() if e in out}


# ---- failed technique checks (drills/pipeline/checks.py) ----

def from_checks(problem: Problem, result: Result) -> None:
    module = problems.module_for(problem)
    store_line = getattr(module, "STORE_LINE_DIAGNOSES", ())
    for d in result.diagnoses:
        if d["id"] in store_line and not d.get("line"):
            stores = {(l["file"], l["line"]) for launch in result.counters if launch.get("entry") == d.get("entry")
                      for l in launch["lines"] if "global_st" in l["requests"]}
            if len(stores) == 1:
                d["file"], d["line"] = stores.pop()
    # A check of severity fail speaks for its diagnosis before a note that names the same one. A check
    # that found no launch to measure names nothing: nothing ran, and the output diagnoses say why.
    failing = sorted((c for c in result.checks if c["status"] == "fail" and c.get("diagnosis") and not (
                      is_reference(c.get("message")) and c["message"]["key"] == "check.no-launch")),
                     key=lambda c: c.get("severity") == "fail")
    failed = {c["diagnosis"]: c for c in failing}
    before = len(result.diagnoses)
    if "no-shared-memory" in failed:
        _no_shared_memory(problem, result, failed["no-shared-memory"])
    elif "uncoalesced-store" in failed:
        _uncoalesced(problem, result, failed["uncoalesced-store"], "uncoalesced-store")
    if "no-vector-loads" in failed:
        _no_vector_loads(problem, result, failed["no-vector-loads"])
    for id in ("uncoalesced-load", "uncoalesced-access"):
        if id in failed:
            _uncoalesced(problem, result, failed[id], id)
    if "bank-conflicts" in failed:
        _bank_conflicts(problem, result, failed["bank-conflicts"])
    # A diagnosis the core has no rule for is the problem's own: its module's diagnose_check when it has
    # one, else named with the check's entry point and measured value, worded by the problem's catalogue.
    hook = getattr(module, "diagnose_check", None)
    for id, check in failed.items():
        if id in CHECK_RULES:
            continue
        if hook is not None:
            hook(problem, result, check)
        else:
            measured = check["message"]["facts"] if is_reference(check.get("message")) else {}
            result.diagnose(id, **{**measured, "entry": check["entry"]})
    for d in result.diagnoses[before:]:  # raised by a note: it teaches, the verdict ignores it
        if failed.get(d["id"], {}).get("severity") == "note":
            d["severity"] = "note"
    order(problem, result)


# The check diagnoses with a rule above; any other is the problem's own (see from_checks).
CHECK_RULES = frozenset({"no-shared-memory", "uncoalesced-store", "no-vector-loads", "uncoalesced-load",
                         "uncoalesced-access", "bank-conflicts"})


def _worst_store(result: Result, entry: str) -> dict | None:
    rows = [(l, launch) for launch in result.counters if launch.get("entry") == entry
            for l in launch["lines"] if "global_st" in l["requests"]]
    if not rows:
        return None
    line, _ = max(rows, key=lambda r: r[0]["per_request"]["global_st"] / max(r[0]["ideal"]["global_st"], 1e-9))
    return line


def _no_shared_memory(problem: Problem, result: Result, check: dict) -> None:
    w = _worst_store(result, check["entry"])
    store = (say("diagnosis.no-shared-memory-store", line=w["line"], sectors=w["per_request"]["global_st"],
                 ideal=w["ideal"]["global_st"]) if w else "")
    result.diagnose("no-shared-memory", file=w["file"] if w else "", line=w["line"] if w else 0, entry=check["entry"],
                    store=store, advice="no-shared-memory")


def _uncoalesced(problem: Problem, result: Result, check: dict, id: str) -> None:
    bad = check.get("lines") or []
    want = {"uncoalesced-store": "global_st", "uncoalesced-load": "global_ld"}.get(id)
    rows = [r for r in bad if r["op"] == want] or bad
    if not rows:
        return
    w = rows[0]
    result.diagnose(id, key="diagnosis.uncoalesced", file=w["file"], line=w["line"],
                    kind=say("words.store" if w["op"].endswith("st") else "words.load"),
                    per_request=w["per_request"], ideal=w["ideal"],
                    advice=id if id in problem.diagnosis.advice else "uncoalesced")


def _no_vector_loads(problem: Problem, result: Result, check: dict) -> None:
    """A total rule on load requests failed: name the entry's scalar load line (4 bytes a lane) if any.
    Only a line of the learner's file is named: a load inside a header (wmma::load_matrix_sync's
    mma.hpp) would send the learner to that line number of their own file."""
    scalar = [l for launch in result.counters if launch.get("entry") == check.get("entry")
              for l in launch["lines"] if "global_ld" in l["requests"]
              and int((l.get("sample") or {}).get("bytes_per_lane", 4) or 4) < 16
              and (not result.file or _shown(result, l["file"]) == result.file)]
    w = max(scalar, key=lambda l: l["requests"]["global_ld"]) if scalar else None
    at = say("diagnosis.scalar-load-line", line=w["line"], bytes=w["sample"].get("bytes_per_lane", 4)) if w else ""
    result.diagnose("no-vector-loads", file=w["file"] if w else "", line=w["line"] if w else 0, entry=check["entry"],
                    check=check["message"], at=at, advice="no-vector-loads")


def _bank_conflicts(problem: Problem, result: Result, check: dict) -> None:
    rows = check.get("lines") or []
    if not rows:
        return
    w = rows[0]
    ways = round(w["per_request"] / max(w["ideal"], 1e-9), 2)
    launch, line = _line_of(result, w)
    stride, wrong_dimension = _tile_evidence(launch, line, w["op"])
    if stride and stride % 128 == 0:
        why = say("diagnosis.stride-one-bank", bytes=stride, words=stride // 4)
    elif stride and stride % 4 == 0:
        why = say("diagnosis.stride-shared-banks", words=stride // 4, share=math.gcd(stride // 4, 32))
    else:
        why = ""
    fix = ("bank-conflicts-wrong-dimension" if wrong_dimension and "bank-conflicts-wrong-dimension" in problem.diagnosis.advice
           else "bank-conflicts")
    result.diagnose("bank-conflicts", key="diagnosis.bank-conflicts" + ("" if ways == int(ways) else "-average"),
                    file=w["file"], line=w["line"], kind=say("words.read" if w["op"].endswith("ld") else "words.write"),
                    ways=ways, per_request=w["per_request"], ideal=w["ideal"], stride=why, advice=fix)


def _line_of(result: Result, row: dict):
    for launch in result.counters:
        if launch.get("kernel") != row.get("kernel"):
            continue
        for line in launch["lines"]:
            if line["line"] == row["line"] and line["file"] == row["file"]:
                return launch, line
    return None, None


def _tile_evidence(launch, line, op: str) -> tuple[int, bool]:
    """(lane stride in bytes, padding in the wrong dimension) from the conflicted line's warp sample
    and the kernel's static shared memory: a column read whose lanes are a multiple of 32 words
    apart, in a tile holding whole extra rows of that pitch, was padded by rows, not by columns."""
    sample = (line or {}).get("sample") or {}
    if f"{sample.get('space')}_{sample.get('op')}" != op:
        return 0, False
    mask = int(sample.get("active_mask", 0))
    lanes = [i for i in range(32) if mask >> i & 1]
    addr = sample.get("address", [])
    if len(lanes) < 2 or max(lanes) >= len(addr):
        return 0, False
    strides = {(addr[b] - addr[a]) // (b - a) for a, b in zip(lanes, lanes[1:]) if (addr[b] - addr[a]) % (b - a) == 0}
    if len(strides) != 1:
        return 0, False
    stride = strides.pop()
    if stride <= 0 or stride % 128:
        return stride if stride > 0 else 0, False
    shared = int((launch or {}).get("static_shared_bytes") or 0)
    rows_touched = len(lanes)
    extra = shared - rows_touched * stride
    return stride, extra > 0 and extra % stride == 0 and extra < rows_touched * stride
