"""Named code regions: how a chapter quotes the reference without line numbers.

A source file marks a region with two comment lines (names: lower-case words joined by `-`,
unique in the file; regions may nest):

    // region: stage-2
    ...code...
    // endregion: stage-2

A chapter quotes a region as a marker line followed by a fenced code block that holds the region's
text exactly (marker lines of nested regions removed, common indentation removed):

    <!-- region: solutions/c3_transpose.cu#stage-2 -->
    ```cuda
    ...
    ```

and names one in prose as `solutions/c3_transpose.cu#stage-2` (in backticks). A chapter never
points at a line number. `check_chapter(path)` returns every problem found (an empty list when the
chapter is sound): unbalanced, duplicate or badly named markers in the files it cites, citations of
files or regions that do not exist, quotes that differ from their region, line-number pointers, and
malformed figure blocks (drills/authoring/figures.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from drills import ROOT
from drills.authoring import figures

NAME_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
OPEN_RE = re.compile(r"^\s*//\s*region:\s*(.*?)\s*$")
CLOSE_RE = re.compile(r"^\s*//\s*endregion:\s*(.*?)\s*$")
# Anything that looks like a region marker, to catch a misspelt one (`//region`, `// end region:`).
LOOSE_MARKER_RE = re.compile(r"^\s*//\s*(?:end\s*)?region\b", re.I)

QUOTE_RE = re.compile(r"^<!--\s*region:\s*([^\s#]+)#([^\s]+)\s*-->$")
LOOSE_QUOTE_RE = re.compile(r"^<!--\s*(?:region|excerpt)\b")
FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,})")
CITE_RE = re.compile(r"`([A-Za-z0-9_./-]+\.(?:cu|cuh|h|hpp|cpp|cc|py))#([^`\s]*)`")
# Pointers at a file's lines: `x.cu` 第 12 行, `x.cu` 第 12–15 行, `x.cu` line 12, lines 12-15 of
# `x.cu`, x.cu:12. (Rows of a matrix, "第 3 行" alone, are prose, not pointers.)
_FILE = r"[\w./-]+\.(?:cu|cuh|h|hpp|cpp|cc|py)"
LINE_POINTER_RES = (
    re.compile(rf"{_FILE}`?\s*[（(]?\s*第\s*\d+"),
    re.compile(rf"{_FILE}`?,?\s*lines?\s+\d+", re.I),
    re.compile(rf"\blines?\s+\d+(?:\s*[–-]\s*\d+)?\s+(?:of|in)\s+`?{_FILE}", re.I),
    re.compile(rf"\b{_FILE}:\d+\b"),
)
CODE_LANGS = ("cuda", "cpp", "c++", "c")


@dataclass(frozen=True)
class Region:
    path: str
    name: str
    first: int  # 1-based line of the opening marker
    last: int   # 1-based line of the closing marker
    text: str   # the lines between, nested markers removed, dedented, no trailing blanks


@dataclass(frozen=True)
class Quote:
    path: str
    name: str
    md_line: int
    lang: str
    text: str


def _normalise(lines: list[str]) -> str:
    """Trailing spaces and the common indentation removed. Preprocessor lines (`#pragma unroll`
    sits in column 0 inside a function) do not count towards the common indentation."""
    lines = [line.rstrip() for line in lines]
    indents = [len(l) - len(l.lstrip()) for l in lines if l.strip() and not l.lstrip().startswith("#")]
    cut = min(indents, default=0)
    out = [l[min(cut, len(l) - len(l.lstrip())):] for l in lines]
    return "\n".join(out).strip("\n")


def parse_regions(source: str, path: str = "<source>") -> tuple[dict[str, Region], list[str]]:
    """The regions of a source file by name, and the problems with its markers."""
    regions: dict[str, Region] = {}
    problems: list[str] = []
    stack: list[tuple[str, int]] = []
    lines = source.splitlines()
    for no, line in enumerate(lines, 1):
        opened, closed = OPEN_RE.match(line), CLOSE_RE.match(line)
        if not (opened or closed):
            if LOOSE_MARKER_RE.match(line):
                problems.append(f"{path}:{no}: malformed region marker {line.strip()!r} "
                                "(expected '// region: NAME' or '// endregion: NAME')")
            continue
        name = (opened or closed).group(1)
        if not NAME_RE.match(name):
            problems.append(f"{path}:{no}: region name {name!r} is not lower-case words joined by '-'")
            continue
        if opened:
            if name in regions or any(n == name for n, _ in stack):
                problems.append(f"{path}:{no}: region {name!r} is defined twice")
            stack.append((name, no))
            continue
        if not stack or stack[-1][0] != name:
            expected = f"'// endregion: {stack[-1][0]}'" if stack else "no endregion (nothing is open)"
            problems.append(f"{path}:{no}: '// endregion: {name}' closes nothing; expected {expected}")
            continue
        _, first = stack.pop()
        body = [l for l in lines[first:no - 1] if not (OPEN_RE.match(l) or CLOSE_RE.match(l))]
        if name not in regions:
            regions[name] = Region(path, name, first, no, _normalise(body))
    for name, first in stack:
        problems.append(f"{path}:{first}: region {name!r} is never closed")
    return regions, problems


def read_regions(root: Path, path: str) -> tuple[dict[str, Region], list[str]]:
    file = root / path
    if not file.is_file():
        return {}, [f"{path} does not exist"]
    return parse_regions(file.read_text(encoding="utf-8"), path)


def _outside_code(md: str) -> list[tuple[int, str]]:
    """(line number, line) for every line of the chapter that is not inside a fenced code block."""
    out, fence = [], None
    for no, line in enumerate(md.splitlines(), 1):
        m = FENCE_RE.match(line)
        if fence is None and m:
            fence = m.group(1)[0]
            continue
        if fence is not None:
            if m and m.group(1)[0] == fence:
                fence = None
            continue
        out.append((no, line))
    return out


def find_quotes(md: str) -> tuple[list[Quote], list[str]]:
    """Region markers and the fenced block right after each (blank lines between are allowed)."""
    lines = md.splitlines()
    quotes, problems = [], []
    for no, line in _outside_code(md):
        s = line.strip()
        m = QUOTE_RE.match(s)
        if not m:
            if LOOSE_QUOTE_RE.match(s):
                problems.append(f"line {no}: malformed region marker {s!r} "
                                "(expected '<!-- region: PATH#NAME -->')")
            continue
        k = no  # index of the line after the marker
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines) or not FENCE_RE.match(lines[k]):
            problems.append(f"line {no}: region marker not followed by a fenced code block")
            continue
        fence = FENCE_RE.match(lines[k]).group(1)
        lang = lines[k].strip()[len(fence):].strip()
        end = k + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            end += 1
        if end >= len(lines):
            problems.append(f"line {no}: the quoted region's code block is never closed")
            continue
        quotes.append(Quote(m.group(1), m.group(2), no, lang, _normalise(lines[k + 1:end])))
    return quotes, problems


def find_citations(md: str) -> list[tuple[int, str, str]]:
    """(line, path, name) for every `PATH#NAME` named in the prose."""
    return [(no, m.group(1), m.group(2)) for no, line in _outside_code(md) for m in CITE_RE.finditer(line)]


def line_pointers(md: str) -> list[str]:
    """Places where the prose points at a line number instead of a region."""
    return [f"line {no}: points at a line number ({m.group(0)!r}); name a region instead"
            for no, line in _outside_code(md) for rx in LINE_POINTER_RES for m in rx.finditer(line)]


def _first_difference(want: str, got: str) -> str:
    w, g = want.splitlines(), got.splitlines()
    for k in range(max(len(w), len(g))):
        a = w[k] if k < len(w) else "<end of region>"
        b = g[k] if k < len(g) else "<end of quote>"
        if a != b:
            return f"line {k + 1} of the region:\n  region: {a}\n  quoted: {b}"
    return "they differ"


def check_text(md: str, root: Path = ROOT, where: str = "chapter") -> list[str]:
    """Every problem with the chapter text md (see the module docstring)."""
    problems = [f"{where}: {p}" for p in line_pointers(md)]
    quotes, bad = find_quotes(md)
    problems += [f"{where}: {p}" for p in bad]
    cache: dict[str, dict[str, Region]] = {}

    def region(path: str, name: str, no: int) -> Region | None:
        if path not in cache:
            found, file_problems = read_regions(root, path)
            cache[path] = found
            problems.extend(f"{where}: line {no}: {p}" if p.endswith("does not exist") else p
                            for p in file_problems)
        r = cache[path].get(name)
        if r is None and (root / path).is_file():
            known = ", ".join(sorted(cache[path])) or "none"
            problems.append(f"{where}: line {no}: {path} has no region {name!r} (its regions: {known})")
        return r

    for q in quotes:
        if q.lang not in CODE_LANGS:
            problems.append(f"{where}: line {q.md_line}: code block language is {q.lang!r}, "
                            f"expected one of {CODE_LANGS}")
        r = region(q.path, q.name, q.md_line)
        if r is not None and r.text != q.text:
            problems.append(f"{where}: line {q.md_line}: the quote of {q.path}#{q.name} differs from "
                            f"the region, {_first_difference(r.text, q.text)}")
    for no, path, name in find_citations(md):
        if not NAME_RE.match(name):
            problems.append(f"{where}: line {no}: `{path}#{name}`: {name!r} is not a region name")
        else:
            region(path, name, no)
    problems += [f"{where}: {p}" for p in figures.problems(md)]
    return problems


def check_chapter(path: Path | str, root: Path = ROOT) -> list[str]:
    """Problems found in the chapter at path (relative to root, or absolute); [] when it is sound."""
    file = Path(path)
    file = file if file.is_absolute() else root / file
    try:
        where = str(file.relative_to(root))
    except ValueError:
        where = str(file)
    if not file.is_file():
        return [f"{where} does not exist"]
    return check_text(file.read_text(encoding="utf-8"), root, where)


def twin_path(content: str) -> str:
    """The English twin of a chapter: content/cN.md -> content/en/cN.md."""
    p = Path(content)
    return str(p.parent / "en" / p.name)


def check_all_chapters(root: Path = ROOT) -> list[str]:
    """check_chapter on every chapter the manifest names and on its English twin (which must exist):
    what `judge.py check` reports for the chapters."""
    from drills import manifest  # imported here so that the checker alone needs no manifest

    problems: list[str] = []
    for content in sorted({p.content for p in manifest.load().values()}):
        for path in (content, twin_path(content)):
            problems += check_chapter(path, root)
    return problems
