"""Which entries of SUBMISSIONS_DIR are submissions, what each is called, and which .cu is judged.

Each immediate subfolder is one submission, named after the folder; each .cu file directly in the
folder is one submission, named after the file without `.cu`. Names starting with a dot are
ignored (.git, .DS_Store), as are other files. Inside a folder the judged file is the one .cu
(searched recursively) that defines every entry point of the problem's contract.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from ..manifest import Problem
from ..messages import say

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


@dataclass
class Submission:
    name: str                     # the gradebook key; also the stem of its files in OUT_DIR
    source: Path                  # the folder or the .cu file, as found in SUBMISSIONS_DIR
    file: Path | None = None      # the .cu to judge; None when none can be chosen
    why: dict = field(default_factory=dict)   # when file is None: why, a catalogue reference (say)
    why_id: str = ""              # ... and its diagnosis id

    def size(self) -> int:
        if self.source.is_file():
            return self.source.stat().st_size
        return sum(p.lstat().st_size for p in self.source.rglob("*") if p.is_file() and not p.is_symlink())

    def newest_mtime(self) -> float:
        if self.source.is_file():
            return self.source.stat().st_mtime
        times = [self.source.stat().st_mtime]
        times += [p.stat().st_mtime for p in self.source.rglob("*") if p.is_file() and not p.is_symlink()]
        return max(times)


def defines(source: str, name: str) -> bool:
    """Whether C++ source text defines function `name` (a parameter list followed by a body)."""
    text = _STRING.sub('""', _COMMENT.sub(" ", source))
    for m in re.finditer(rf"\b{re.escape(name)}\s*\(", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            if text[i] == "(":
                depth += 1
            elif text[i] == ")":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        rest = text[i + 1:i + 200].lstrip()
        rest = re.sub(r"^(const|noexcept|override)\b\s*", "", rest)
        if rest.startswith("{"):
            return True
    return False


def contract_files(folder: Path, entry_points) -> tuple[list[Path], list[Path]]:
    """(.cu files in `folder` that define every entry point, all .cu files), sorted."""
    all_cu = sorted(p for p in folder.rglob("*.cu")
                    if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts))
    good = []
    for p in all_cu:
        try:
            text = p.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if all(defines(text, name) for name in entry_points):
            good.append(p)
    return good, all_cu


def choose(sub: Submission, problem: Problem) -> None:
    """Set sub.file, or sub.why when no single file can be judged."""
    if sub.source.is_file():
        sub.file = sub.source
        return
    names = ", ".join(problem.entry_points)
    good, all_cu = contract_files(sub.source, problem.entry_points)
    rel = lambda ps: ", ".join(str(p.relative_to(sub.source)) for p in ps)  # noqa: E731
    if len(good) == 1:
        sub.file = good[0]
    elif len(good) > 1:
        sub.why_id = "several-contract-files"
        sub.why = say("grading.several-contract-files", names=names, files=rel(good))
    elif len(all_cu) == 1:
        sub.file = all_cu[0]  # the judge names what it lacks more precisely than a text search
    elif not all_cu:
        sub.why_id = "no-cu-file"
        sub.why = say("grading.no-cu-file")
    else:
        sub.why_id = "no-contract-file"
        sub.why = say("grading.no-contract-file", names=names, files=rel(all_cu))


def discover(folder: Path, problem: Problem) -> list[Submission]:
    subs = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(".") or entry.name == "__MACOSX":
            continue
        if entry.is_dir():
            subs.append(Submission(entry.name, entry))
        elif entry.is_file() and entry.suffix == ".cu":
            subs.append(Submission(entry.stem, entry))
    used: set[str] = set()
    for sub in subs:
        base = _SAFE.sub("_", sub.name).strip("._-") or "submission"  # no name that reads as an option
        name, k = base, 2
        while name.lower() in used:  # case-insensitive file systems
            name, k = f"{base}-{k}", k + 1
        used.add(name.lower())
        sub.name = name
        choose(sub, problem)
    return subs
