"""Keep a chapter's pointers into code true.

A chapter (content/cN.md) points at code in one fixed form,

    `NAME`（`PATH` 第 A–B 行）      or      `NAME`（`PATH` 第 A 行）

and quotes code in fenced blocks preceded by a marker line,

    <!-- excerpt: PATH A-B -->

This module finds both and checks them against the files: the path exists, the lines exist, NAME
is defined in PATH and the lines lie inside its definition (from the line that names it to its
closing brace, or to the `;` of a constant), and an excerpt equals those lines of the file up to
leading and trailing whitespace. Every check returns None when it holds and otherwise one message
that names the chapter line, the reference and what the file holds now. Standard library only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# `NAME`（`PATH` 第 A–B 行） with full-width parentheses and an en dash.
REF_RE = re.compile(r"`([A-Za-z_][A-Za-z0-9_:]*)`（`([^`]+)` 第 (\d+)(?:–(\d+))? 行）")
# Anything that looks like an attempt at that form (for catching typos: ASCII dash, missing 行...).
LOOSE_REF_RE = re.compile(r"`[^`\n]+\.(?:cu|cuh|h|cpp|cc|py)` 第")
EXCERPT_RE = re.compile(r"^<!--\s*excerpt:\s*(\S+)\s+(\d+)-(\d+)\s*-->\s*$")
FENCE_RE = re.compile(r"^\s*```")


@dataclass(frozen=True)
class Ref:
    name: str
    path: str
    first: int
    last: int
    md_line: int
    text: str

    def __str__(self) -> str:
        return f"line {self.md_line}: {self.text}"


@dataclass(frozen=True)
class Excerpt:
    path: str
    first: int
    last: int
    md_line: int
    lang: str
    code: tuple

    def __str__(self) -> str:
        return f"line {self.md_line}: excerpt {self.path} {self.first}-{self.last}"


def find_refs(md: str) -> list[Ref]:
    refs = []
    for no, line in enumerate(md.splitlines(), 1):
        for m in REF_RE.finditer(line):
            first = int(m.group(3))
            last = int(m.group(4)) if m.group(4) else first
            refs.append(Ref(m.group(1), m.group(2), first, last, no, m.group(0)))
    return refs


def malformed_refs(md: str) -> list[str]:
    """Places that point at a file's lines but not in the exact form (so no check would see them)."""
    bad = []
    for no, line in enumerate(md.splitlines(), 1):
        strict = [m.span() for m in REF_RE.finditer(line)]
        for m in LOOSE_REF_RE.finditer(line):
            if not any(a <= m.start() < b for a, b in strict):
                bad.append(f"line {no}: {line.strip()}")
    return bad


def find_excerpts(md: str) -> tuple[list[Excerpt], list[str]]:
    """Excerpt markers and the fenced block right after each (blank lines between are allowed)."""
    lines = md.splitlines()
    found, errors = [], []
    for i, line in enumerate(lines):
        m = EXCERPT_RE.match(line.strip())
        if not m:
            if "excerpt:" in line and line.strip().startswith("<!--"):
                errors.append(f"line {i + 1}: malformed excerpt marker {line.strip()!r} "
                              "(expected '<!-- excerpt: PATH A-B -->')")
            continue
        k = i + 1
        while k < len(lines) and not lines[k].strip():
            k += 1
        if k >= len(lines) or not FENCE_RE.match(lines[k]):
            errors.append(f"line {i + 1}: excerpt marker not followed by a fenced code block")
            continue
        lang = lines[k].strip()[3:].strip()
        end = k + 1
        while end < len(lines) and not FENCE_RE.match(lines[end]):
            end += 1
        if end >= len(lines):
            errors.append(f"line {i + 1}: the excerpt's code block is never closed")
            continue
        found.append(Excerpt(m.group(1), int(m.group(2)), int(m.group(3)), i + 1, lang,
                             tuple(lines[k + 1:end])))
    return found, errors


def _blank_comments_and_strings(src: str) -> str:
    """Replace comments and string/char literals by spaces, keeping every newline in place."""
    out, i, n = [], 0, len(src)
    while i < n:
        ch = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif ch in "\"'":
            j = i + 1
            while j < n and src[j] != ch and src[j] != "\n":
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(" " * (j - i))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _match(code: str, start: int, open_ch: str, close_ch: str) -> int:
    """Index just past the bracket that closes the one at `start`, or -1."""
    depth = 0
    for k in range(start, len(code)):
        if code[k] == open_ch:
            depth += 1
        elif code[k] == close_ch:
            depth -= 1
            if depth == 0:
                return k + 1
    return -1


def definitions(src: str, name: str) -> list[tuple[int, int]]:
    """1-based inclusive line ranges of every definition of `name` in C/C++/CUDA source.

    Recognised: struct/class/union/enum NAME {...}; functions and kernels NAME(...) {...} (a
    qualifier such as const or noexcept may sit between the parameter list and the body; calls,
    declarations and launches are not definitions); and constants `... NAME = ...;` at the start
    of a declaration. A range runs from the line that names NAME to the closing brace or the `;`.
    """
    code = _blank_comments_and_strings(src)
    line_of = lambda pos: code.count("\n", 0, pos) + 1  # noqa: E731
    esc = re.escape(name)
    ranges = []

    for m in re.finditer(rf"\b(?:struct|class|union|enum(?:\s+class)?)\s+{esc}\b", code):
        brace = re.compile(r"[{;]").search(code, m.end())
        if brace and code[brace.start()] == "{":
            end = _match(code, brace.start(), "{", "}")
            if end > 0:
                ranges.append((line_of(m.start()), line_of(end - 1)))

    for m in re.finditer(rf"(?<![\w.]){esc}\s*\(", code):
        # A call, a declaration or a launch is never followed by a body; a definition is.
        close = _match(code, m.end() - 1, "(", ")")
        if close < 0:
            continue
        rest = re.match(r"(?:\s|\bconst\b|\bnoexcept\b|\boverride\b|\bfinal\b)*", code[close:])
        body = close + rest.end()
        if body < len(code) and code[body] == "{":
            end = _match(code, body, "{", "}")
            if end > 0:
                ranges.append((line_of(m.start()), line_of(end - 1)))

    for m in re.finditer(rf"(?:^|[;{{}}])\s*(?:[\w:<>,\s*&]*?\s)?{esc}\s*(?:\[[^\]]*\]\s*)*=", code,
                         re.M):
        semi = code.find(";", m.end())
        if semi > 0:
            start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip(";{} \t\n")))
            ranges.append((line_of(start), line_of(semi)))

    return sorted(set(ranges))


def _read(root: Path, path: str) -> tuple[Path, str | None]:
    p = (root / path).resolve()
    return p, (p.read_text(encoding="utf-8") if p.is_file() else None)


def check_ref(root: Path, ref: Ref) -> str | None:
    p, src = _read(root, ref.path)
    if src is None:
        return f"{ref}: {ref.path} does not exist"
    n = len(src.splitlines())
    if not (1 <= ref.first <= ref.last <= n):
        return f"{ref}: lines {ref.first}-{ref.last} are not within 1..{n} of {ref.path}"
    defs = definitions(src, ref.name)
    if not defs:
        return f"{ref}: {ref.path} no longer defines {ref.name}"
    if any(a <= ref.first and ref.last <= b for a, b in defs):
        return None
    where = ", ".join(f"{a}-{b}" for a, b in defs)
    return (f"{ref}: lines {ref.first}-{ref.last} are not inside the definition of {ref.name} "
            f"in {ref.path}, which is now at line(s) {where}")


def check_excerpt(root: Path, ex: Excerpt, langs: tuple = ("cuda", "cpp", "c++", "c")) -> str | None:
    if ex.lang not in langs:
        return f"{ex}: code block language is {ex.lang!r}, expected one of {langs}"
    p, src = _read(root, ex.path)
    if src is None:
        return f"{ex}: {ex.path} does not exist"
    lines = src.splitlines()
    if not (1 <= ex.first <= ex.last <= len(lines)):
        return f"{ex}: lines {ex.first}-{ex.last} are not within 1..{len(lines)} of {ex.path}"
    want = [s.strip() for s in lines[ex.first - 1:ex.last]]
    got = [s.strip() for s in ex.code]
    if want == got:
        return None
    for k in range(max(len(want), len(got))):
        w = want[k] if k < len(want) else "<end of range>"
        g = got[k] if k < len(got) else "<end of block>"
        if w != g:
            return (f"{ex}: differs from {ex.path} at file line {ex.first + k}:\n"
                    f"  file:    {w}\n  chapter: {g}")
    return f"{ex}: differs from {ex.path}"


def markdown_tables(md: str) -> list[list[list[str]]]:
    """Every pipe table as a list of rows of stripped cells (the |---| separator dropped)."""
    tables, cur = [], []
    for line in md.splitlines() + [""]:
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and len(s) > 1:
            cells = [c.strip() for c in s[1:-1].split("|")]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                cur.append(cells)
        elif cur:
            tables.append(cur)
            cur = []
    return tables


# ---- measured tables and the anchors they quote --------------------------------------------------
#
# A chapter's measured table quotes numbers from an anchors file (../shared/anchors/*.md) and adds
# columns measured in this project, headed OWN. These helpers find such tables and compare them.

OWN = "本项目实测"


def number(cell: str) -> float | None:
    """The first number in a table cell (thousands commas and a decimal part allowed), or None."""
    m = re.search(r"\d[\d,]*(?:\.\d+)?", cell)
    return float(m.group(0).replace(",", "")) if m else None


def find_table(tables: list, must_have=(), first: str | None = None) -> list | None:
    """The first table whose header row (cells joined by spaces) contains every word of
    must_have and, where `first` is given, whose first header cell is exactly `first`."""
    for t in tables:
        head = " ".join(t[0])
        if all(w in head for w in must_have) and (first is None or t[0][0] == first):
            return t
    return None


def anchors_tables(path: Path) -> list | None:
    """Every table of an anchors file, or None where the file is absent."""
    return markdown_tables(path.read_text(encoding="utf-8")) if path.is_file() else None


def anchors_absent(path: Path) -> str:
    """Why a comparison with the anchors was skipped (for pytest.skip)."""
    return (f"anchors file {path} is absent: cannot compare the chapter's measured numbers with it "
            "(the rest of the content checks still ran)")


def own_column_problems(table: list, not_measured: tuple) -> tuple[list[int], list[str]]:
    """The indices of the table's OWN columns, and every cell of them that is neither a number
    nor one of not_measured."""
    own = [i for i, h in enumerate(table[0]) if OWN in h]
    allowed = " or ".join(["a number", *not_measured])
    bad = [f"'{row[0]}', column '{table[0][i]}': expected {allowed}, got {row[i]!r}"
           for row in table[1:] for i in own if row[i] not in not_measured and number(row[i]) is None]
    return own, bad


def missing_rows(table: list, names) -> list[str]:
    """The names that no row's first cell contains."""
    firsts = " ".join(r[0] for r in table[1:])
    return [n for n in names if n not in firsts]


def anchored_mismatches(chapter: list, anchors: list, rows: dict, cols: dict, value=number) -> list[str]:
    """Where a chapter's table quotes an anchors table and the numbers differ.

    rows maps a substring of a chapter row's first cell (it must match exactly one row) to the
    anchors row's first cell (exactly); cols maps a chapter column header to the anchors column
    header; value reads the number compared out of a cell.
    """
    arow = {r[0]: r for r in anchors[1:]}
    acol = {h: i for i, h in enumerate(anchors[0])}
    ccol = {h: i for i, h in enumerate(chapter[0])}
    errors = [f"anchors table: no column {a!r}" for a in cols.values() if a not in acol]
    errors += [f"chapter table: no column {c!r}" for c in cols if c not in ccol]
    if errors:
        return errors
    for key, aname in rows.items():
        mine = [r for r in chapter[1:] if key in r[0]]
        if aname not in arow:
            errors.append(f"anchors table: no row {aname!r}")
        elif len(mine) != 1:
            errors.append(f"chapter table: {len(mine)} rows contain {key!r}; expected one")
        else:
            for c, a in cols.items():
                want, got = value(arow[aname][acol[a]]), value(mine[0][ccol[c]])
                if want != got:
                    errors.append(f"'{mine[0][0]}', column {c!r}: chapter {got}, anchors {want} "
                                  f"(row {aname!r}, column {a!r})")
    return errors

