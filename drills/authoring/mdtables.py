"""Pipe tables in Markdown and the numbers in their cells: what the content tests compare between a
chapter, its twin in the other language, and the measured tables under benchmarks/."""

from __future__ import annotations

import re

NUMBER_RE = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")


def tables(md: str) -> list[list[list[str]]]:
    """Every pipe table outside code blocks, as rows of stripped cells (the |---| row dropped)."""
    found, cur, fence = [], [], False
    for line in md.splitlines() + [""]:
        s = line.strip()
        if s.startswith(("```", "~~~")):
            fence = not fence
        if not fence and s.startswith("|") and s.endswith("|") and len(s) > 1:
            cells = [c.strip() for c in s[1:-1].split("|")]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                cur.append(cells)
        elif cur:
            found.append(cur)
            cur = []
    return found


def numbers(text: str) -> list[float]:
    """The numbers written in text, in order (thousands commas allowed; 2²⁸'s superscript is not a number)."""
    return [float(m.group(0).replace(",", "")) for m in NUMBER_RE.finditer(text)]


def number(cell: str) -> float | None:
    found = numbers(cell)
    return found[0] if found else None


def find(all_tables: list, must_have=(), first: str | None = None) -> list | None:
    """The first table whose header row contains every word of must_have (and, when given, whose
    first header cell is exactly `first`)."""
    for t in all_tables:
        head = " ".join(t[0])
        if all(w in head for w in must_have) and (first is None or t[0][0] == first):
            return t
    return None


def row(table: list, key: str) -> list[str] | None:
    """The row whose first cell is key, else the one row whose first cell contains key (None when
    none or several do)."""
    exact = [r for r in table[1:] if r[0] == key]
    rows = exact or [r for r in table[1:] if key in r[0]]
    return rows[0] if len(rows) == 1 else None
