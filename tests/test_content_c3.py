"""content/c3.md's measured tables: its own columns, and the numbers it quotes from the H200 anchors.

Run: python -m pytest -q tests/test_content_c3.py   (the checks every chapter shares: test_content.py)

- the measured table has a column of the project's own measurements (a number or 待测);
- every number the measured table and the counter tables take from the H200 anchors equals the
  anchors file (../shared/anchors/h200-transpose.md; skipped, saying so, where that file is absent).
"""

from __future__ import annotations

import re

import pytest

from drills import ROOT
from drills import content_refs as cr

MD = (ROOT / "content" / "c3.md").read_text(encoding="utf-8")
ANCHORS = ROOT.parent / "shared" / "anchors" / "h200-transpose.md"

# Rows of the chapter's measured table (matched by a substring of the first cell) and the rows of
# the anchors' table they quote (matched by the anchors' first cell, exactly).
MEASURED_ROWS = {
    "cudaMemcpy": "cudaMemcpy device to device",
    "`copy_tiled`": "copy kernel, same shape and tiling (the chapter's upper bound)",
    "`transpose_naive`": "naive",
    "`transpose_tiled_unpadded`": "shared tile [32][32]",
    "`transpose_tiled`：": "shared tile [32][33]",
    "`transpose_tiled_swizzled`": "shared tile [32][32], XOR swizzle",
    "`transpose_fast`": "64×64 tile, float4 global access where aligned",
    "`x.t().contiguous()`": "PyTorch `x.t().contiguous()`",
    "`x.clone()`": "PyTorch `x.clone()`",
}
SHAPES = ["8192×8192", "4113×8197", "16384×16384"]
# Counter-table columns in the chapter -> anchors' column names.
COUNTER_COLS = {"朴素": "naive", "[32][32] tile": "[32][32]", "[32][33] tile": "[32][33]",
                "[32][32]": "[32][32]", "[32][33]": "[32][33]"}


def first_int(cell: str) -> int | None:
    m = re.search(r"\d[\d,]*", cell)
    return int(m.group(0).replace(",", "")) if m else None


def anchors_tables() -> list:
    tables = cr.anchors_tables(ANCHORS)
    if tables is None:
        pytest.skip(cr.anchors_absent(ANCHORS))
    return tables


def chapter_measured_table():
    t = cr.find_table(cr.markdown_tables(MD), SHAPES + [cr.OWN])
    assert t, f"content/c3.md needs the measured table: columns {SHAPES} and '{cr.OWN} …'"
    return t


def test_measured_table_has_own_columns():
    own, bad = cr.own_column_problems(chapter_measured_table(), ("待测",))
    assert own, f"the measured table needs a '{cr.OWN}' column for numbers measured in this project"
    assert not bad, "\n".join(bad)


def test_measured_table_matches_anchors():
    anchors = cr.find_table(anchors_tables(), ["kernel"] + SHAPES)
    assert anchors, f"{ANCHORS}: no table with columns kernel, {', '.join(SHAPES)}"
    errors = cr.anchored_mismatches(chapter_measured_table(), anchors, MEASURED_ROWS,
                                    {shape: shape for shape in SHAPES}, first_int)
    assert not errors, "\n".join(errors)


def test_counter_tables_match_anchors():
    anchors = cr.find_table(anchors_tables(), ["metric", "naive"])
    assert anchors, f"{ANCHORS}: no counter table (columns metric, naive, …)"
    acol = {h: i for i, h in enumerate(anchors[0])}
    arow = {r[0].strip("`"): r for r in anchors[1:]}
    checked, errors = 0, []
    for t in cr.markdown_tables(MD):
        if "计数器" not in t[0][0]:
            continue
        for row in t[1:]:
            metric = re.search(r"`([a-z0-9_.]+)`", row[0])
            if not metric:
                continue
            if metric.group(1) not in arow:
                errors.append(f"chapter quotes {metric.group(1)}, which the anchors do not list")
                continue
            for i, head in enumerate(t[0][1:], 1):
                col = COUNTER_COLS.get(head)
                if col is None:
                    errors.append(f"counter table column {head!r} has no anchors counterpart")
                    continue
                a, c = first_int(arow[metric.group(1)][acol[col]]), first_int(row[i])
                checked += 1
                if a != c:
                    errors.append(f"{metric.group(1)} / {head}: chapter {c}, anchors {a}")
    assert not errors, "\n".join(errors)
    assert checked >= 12, f"only {checked} counter values were compared"
