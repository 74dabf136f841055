"""Mutated fixtures (golden cases, grading submissions) are stored as small unified diffs against
one base file, so each case's mistake reads at a glance. apply() rebuilds a case's file; a patch
whose context does not match its base is an error naming the hunk, never a silent best effort."""

from __future__ import annotations

import re
from pathlib import Path

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


class PatchError(Exception):
    pass


def apply(base: str, patch: str, where: str = "patch") -> str:
    """`base` with the unified diff `patch` applied (the diff's context must match exactly)."""
    old = base.splitlines(keepends=True)
    out: list[str] = []
    pos = 0  # next line of `old` not yet copied
    lines = patch.splitlines(keepends=True)
    i = 0
    while i < len(lines) and not lines[i].startswith("@@"):
        i += 1  # the --- / +++ header
    if i == len(lines):
        raise PatchError(f"{where}: no hunk")
    while i < len(lines):
        m = HUNK.match(lines[i])
        if not m:
            raise PatchError(f"{where}: line {i + 1} is not a hunk header: {lines[i]!r}")
        start = int(m[1]) - (0 if m[2] == "0" else 1)
        if start < pos:
            raise PatchError(f"{where}: hunk {lines[i].strip()} overlaps the one before")
        out.extend(old[pos:start])
        pos = start
        i += 1
        while i < len(lines) and not lines[i].startswith("@@"):
            tag, text = lines[i][:1], lines[i][1:]
            if tag == "\\":  # "\ No newline at end of file"
                if out and out[-1].endswith("\n"):
                    out[-1] = out[-1][:-1]
            elif tag in (" ", "-"):
                if pos >= len(old) or old[pos].rstrip("\n") != text.rstrip("\n"):
                    got = old[pos].rstrip("\n") if pos < len(old) else "<end of file>"
                    raise PatchError(f"{where}: line {pos + 1} of the base is {got!r}, the patch expects {text.rstrip()!r}")
                if tag == " ":
                    out.append(old[pos])
                pos += 1
            elif tag == "+":
                out.append(text)
            else:
                raise PatchError(f"{where}: unexpected line {lines[i]!r}")
            i += 1
    out.extend(old[pos:])
    return "".join(out)


def materialise(case: Path, base: Path, dest: Path) -> Path:
    """Write the case's file to `dest`: the base with `case`'s patch applied (the base itself when
    the case has no patch). Returns dest."""
    text = base.read_text(encoding="utf-8")
    if case.suffix == ".patch" and case.is_file():
        text = apply(text, case.read_text(encoding="utf-8"), str(case))
    dest.parent.mkdir(parents=True, exist_ok=True)
    if not dest.exists() or dest.read_text(encoding="utf-8") != text:
        dest.write_text(text, encoding="utf-8")
    return dest
