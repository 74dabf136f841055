"""content/c3.md stays true to the code and to the measurements it quotes.

Run: python -m pytest -q tests/test_content_c3.py

- every `NAME`（`PATH` 第 A–B 行） points at lines inside NAME's definition in PATH (one test per
  reference, named after it, so a moved function shows exactly which sentence to fix);
- every block marked <!-- excerpt: PATH A-B --> equals those lines of PATH (indentation aside);
- the three figure markers appear once each, on their own lines;
- the self-test has five questions and their five answers behind a <details> fold;
- every number the measured table and the counter tables take from the H200 anchors equals the
  anchors file (../shared/anchors/h200-transpose.md; skipped, saying so, where that file is absent).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drills import content_refs as cr  # noqa: E402

CHAPTER = ROOT / "content" / "c3.md"
ANCHORS = ROOT.parent / "shared" / "anchors" / "h200-transpose.md"
MD = CHAPTER.read_text(encoding="utf-8")

REFS = cr.find_refs(MD)
EXCERPTS, EXCERPT_ERRORS = cr.find_excerpts(MD)

FIGURES = ["bank-map", "tile-stages", "warp-lens"]

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
OWN = "本项目实测"
# Counter-table columns in the chapter -> anchors' column names.
COUNTER_COLS = {"朴素": "naive", "[32][32] tile": "[32][32]", "[32][33] tile": "[32][33]",
                "[32][32]": "[32][32]", "[32][33]": "[32][33]"}


def first_int(cell: str) -> int | None:
    m = re.search(r"\d[\d,]*", cell)
    return int(m.group(0).replace(",", "")) if m else None


# ---- references into code ------------------------------------------------------------------------

def test_chapter_has_code_references():
    assert len(REFS) >= 10, "content/c3.md should point at the reference's code by function and line"
    assert any(r.path == "solutions/c3_transpose.cu" for r in REFS)


def test_no_malformed_references():
    bad = cr.malformed_refs(MD)
    assert not bad, ("these point at a file's lines but not in the form "
                     "`NAME`（`PATH` 第 A–B 行）, so nothing checks them:\n" + "\n".join(bad))


@pytest.mark.parametrize("ref", REFS, ids=[f"L{r.md_line}:{r.name}:{r.first}-{r.last}" for r in REFS])
def test_code_reference(ref):
    problem = cr.check_ref(ROOT, ref)
    assert problem is None, problem


# ---- excerpts ------------------------------------------------------------------------------------

def test_excerpt_markers_well_formed():
    assert not EXCERPT_ERRORS, "\n".join(EXCERPT_ERRORS)
    assert EXCERPTS, "content/c3.md should quote at least one excerpt of the reference"


@pytest.mark.parametrize("ex", EXCERPTS, ids=[f"L{e.md_line}:{e.path}:{e.first}-{e.last}" for e in EXCERPTS])
def test_excerpt_matches_file(ex):
    problem = cr.check_excerpt(ROOT, ex)
    assert problem is None, problem


# ---- figure markers ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", FIGURES)
def test_figure_marker_once_on_its_own_line(name):
    marker = f"<!-- figure: {name} -->"
    own_line = [i + 1 for i, line in enumerate(MD.splitlines()) if line.strip() == marker]
    anywhere = MD.count(marker)
    assert anywhere == 1, f"{marker} appears {anywhere} times; expected exactly once"
    assert len(own_line) == 1, f"{marker} must stand alone on its line"


def test_no_unknown_figure_markers():
    names = re.findall(r"<!--\s*figure:\s*([\w-]+)\s*-->", MD)
    assert sorted(names) == sorted(FIGURES), f"figure markers found: {names}"


# ---- self-test -----------------------------------------------------------------------------------

def section(md: str, heading_word: str) -> str:
    lines = md.splitlines()
    start = next((i for i, l in enumerate(lines) if re.match(r"^##\s", l) and heading_word in l), None)
    assert start is not None, f"no '## … {heading_word}' section"
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^##\s", lines[i])), len(lines))
    return "\n".join(lines[start + 1:end])


def numbered(text: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\.\s+\S", text, re.M)]


def test_self_test_has_five_questions_and_folded_answers():
    body = section(MD, "自测")
    m = re.search(r"<details>\s*<summary>([^<]*)</summary>(.*?)</details>", body, re.S)
    assert m, "the self-test's answers must sit inside <details><summary>…</summary> … </details>"
    questions, answers = body[:m.start()], m.group(2)
    assert numbered(questions) == [1, 2, 3, 4, 5], f"questions numbered {numbered(questions)}"
    assert numbered(answers) == [1, 2, 3, 4, 5], f"answers numbered {numbered(answers)}"
    assert all(q.strip().endswith(("？", "?")) for q in re.findall(r"^\d+\.\s+(.*(?:\n   .*)*)", questions, re.M)), \
        "each of the five questions should end with a question mark"


def test_exercises_have_folded_worked_answers():
    for word in ("练习一", "练习二"):
        body = section(MD, word)
        assert re.search(r"<details>\s*<summary>.*?</summary>.*?</details>", body, re.S), \
            f"{word}: the worked answer should be behind a <details> fold"


# ---- measured numbers ----------------------------------------------------------------------------

def find_table(tables, must_have):
    for t in tables:
        head = " ".join(t[0])
        if all(w in head for w in must_have):
            return t
    return None


def anchors_text() -> str:
    if not ANCHORS.is_file():
        pytest.skip(f"anchors file {ANCHORS} is absent: cannot compare the chapter's measured "
                    "numbers with it (the rest of the content checks still ran)")
    return ANCHORS.read_text(encoding="utf-8")


def chapter_measured_table():
    t = find_table(cr.markdown_tables(MD), SHAPES + [OWN])
    assert t, f"content/c3.md needs the measured table: columns {SHAPES} and '{OWN} …'"
    return t


def test_measured_table_has_own_columns():
    t = chapter_measured_table()
    own = [i for i, h in enumerate(t[0]) if OWN in h]
    assert own, f"the measured table needs a '{OWN}' column for numbers measured in this project"
    for row in t[1:]:
        for i in own:
            assert row[i] == "待测" or first_int(row[i]) is not None, \
                f"'{row[0]}', column '{t[0][i]}': expected a number or 待测, got {row[i]!r}"


def test_measured_table_matches_anchors():
    anchors = find_table(cr.markdown_tables(anchors_text()), ["kernel"] + SHAPES)
    assert anchors, f"{ANCHORS}: no table with columns kernel, {', '.join(SHAPES)}"
    arow = {r[0]: r for r in anchors[1:]}
    acol = {h: i for i, h in enumerate(anchors[0])}
    ours = chapter_measured_table()
    ocol = {h: i for i, h in enumerate(ours[0]) if OWN not in h}
    errors = []
    for key, aname in MEASURED_ROWS.items():
        assert aname in arow, f"{ANCHORS}: no row {aname!r}"
        mine = [r for r in ours[1:] if key in r[0]]
        if len(mine) != 1:
            errors.append(f"chapter table: {len(mine)} rows contain {key!r}; expected one")
            continue
        for shape in SHAPES:
            a, c = first_int(arow[aname][acol[shape]]), first_int(mine[0][ocol[shape]])
            if a != c:
                errors.append(f"'{mine[0][0]}' at {shape}: chapter {c}, anchors {a} ({aname})")
    assert not errors, "\n".join(errors)


def test_counter_tables_match_anchors():
    anchors = find_table(cr.markdown_tables(anchors_text()), ["metric", "naive"])
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


def test_measured_credit():
    assert "2026-11-29" in MD and "H200" in MD, "credit the anchor numbers: measured on an H200, 2026-11-29"
