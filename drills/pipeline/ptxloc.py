"""Where in the learner's file an instruction came from when the simulator names a header line.

An intrinsic such as __shfl_xor_sync is inlined from a CUDA header, so the simulator's error points
at e.g. sm_30_intrinsics.hpp:449. The PTX in the built binary keeps the inlining chain (`-lineinfo`):

    .loc 1 23 3, function_name $L__info_string1, inlined_at 1 35 3      <- warp_sum's line 23, called at 35
    .loc 2 449 9, function_name $L__info_string2, inlined_at 1 23 3     <- the intrinsic, called at 23
    shfl.sync.bfly.b32 %r40|%p14, %r36, %r38, %r37, %r39;

`call_chain()` finds the faulting instruction (its text, as the simulator quotes it, inside the
faulting kernel) and walks the chain outwards: [(file, line), ...], innermost first. This reads the
compiled program's line table, never the learner's source text.
"""

from __future__ import annotations

import re
from pathlib import Path

_FILE = re.compile(r'^\s*\.file\s+(\d+)\s+"([^"]*)"', re.M)
_LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+(?:.*?inlined_at\s+(\d+)\s+(\d+))?")
_ENTRY = re.compile(r"\.entry\s+([\w$.]+)\s*\(")


def _norm(text: str) -> str:
    return re.sub(r"\s+", "", text).rstrip(";")


def _ptx_texts(binary: Path) -> list[str]:
    try:
        data = Path(binary).read_bytes().decode("latin-1")
    except OSError:
        return []
    return [c for c in data.split("\x00") if ".entry" in c and ".loc" in c]


def call_chain(binaries, kernel: str, instruction: str) -> list[tuple[str, int]]:
    """[(file, line), ...] from the instruction's own location outwards; [] when not found or ambiguous."""
    want = _norm(instruction)
    if not want:
        return []
    for binary in binaries:
        for ptx in _ptx_texts(binary):
            chain = _chain_in(ptx, kernel, want)
            if chain:
                return chain
    return []


def _chain_in(ptx: str, kernel: str, want: str) -> list[tuple[str, int]]:
    files = {int(n): path for n, path in _FILE.findall(ptx)}
    entry = None
    locs: list[tuple[int, int, int, int]] = []   # (file, line, inlined file, inlined line) in order
    found = []
    for raw in ptx.splitlines():
        m = _ENTRY.search(raw)
        if m:
            entry, locs = m.group(1), []
            continue
        m = _LOC.match(raw)
        if m:
            locs.append((int(m[1]), int(m[2]), int(m[3] or 0), int(m[4] or 0)))
            continue
        if entry and (not kernel or entry == kernel) and locs and _norm(raw) == want:
            found.append(list(locs))
    if len(found) != 1:
        return []
    locs = found[0]
    f, l, inf, inl = locs[-1]
    chain = [(files.get(f, ""), l)]
    seen = {(f, l)}
    while inf and (inf, inl) not in seen:
        seen.add((inf, inl))
        chain.append((files.get(inf, ""), inl))
        # The inlining site's own .loc (the latest one before) says where it was inlined in turn.
        outer = next((x for x in reversed(locs) if (x[0], x[1]) == (inf, inl)), None)
        inf, inl = (outer[2], outer[3]) if outer else (0, 0)
    return chain


_BARRIER = re.compile(r"^\s*(?:@%?!?\w+\s+)?(?:bar|barrier)(?:\.cta)?\.(?:sync|red|arrive)\b|^\s*bar\.sync\b")


def barrier_lines(binaries, kernel: str, is_learner_file) -> list[int]:
    """The learner's lines of the block barriers (__syncthreads()) in `kernel`, in program order of
    the PTX; is_learner_file(path) says which .file is the learner's. [] when not found."""
    for binary in binaries:
        for ptx in _ptx_texts(binary):
            lines = _barriers_in(ptx, kernel, is_learner_file)
            if lines is not None:
                return lines
    return []


def _barriers_in(ptx: str, kernel: str, is_learner_file):
    files = {int(n): path for n, path in _FILE.findall(ptx)}
    entry, loc, out, seen_kernel = None, None, [], False
    for raw in ptx.splitlines():
        m = _ENTRY.search(raw)
        if m:
            entry, loc = m.group(1), None
            seen_kernel = seen_kernel or entry == kernel
            continue
        if entry != kernel:
            continue
        m = _LOC.match(raw)
        if m:
            loc = (int(m[1]), int(m[2]), int(m[3] or 0), int(m[4] or 0))
            continue
        if loc and _BARRIER.match(raw):
            # the barrier's own line, or where the inlined function holding it was called
            f, l, inf, inl = loc
            line = l if is_learner_file(files.get(f, "")) else (inl if inf and is_learner_file(files.get(inf, "")) else 0)
            if line and line not in out:
                out.append(line)
    return out if seen_kernel else None
