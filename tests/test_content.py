"""Every chapter the manifest lists stays true to the code and keeps its teaching frame.

Run: python -m pytest -q tests/test_content.py

For each distinct `content` path in practice/problems.toml (several problems may share one):

- every `NAME`（`PATH` 第 A–B 行） points at lines inside NAME's definition in PATH (one test per
  reference, named after chapter and reference, e.g. c3.md:L147:transpose_tiled:167-170, so a
  moved function shows exactly which sentence to fix), and nothing points at lines in another form;
- every block marked <!-- excerpt: PATH A-B --> equals those lines of PATH (indentation aside);
- the chapter's figure markers appear once each, on their own lines, and no others appear;
- the self-test has five questions and their five answers behind a <details> fold, and both
  exercises have folded worked answers;
- the anchor numbers are credited (H200, the date they were measured);
- a chapter whose measured table quotes ../shared/anchors/h200-other-ops.md (OPS_TABLES) has the
  project's own columns (a number, 待测 or —) and a row for every variant, and every number it takes
  from the anchors equals that file (skipped, saying so, where it is absent).

What differs between chapters is in EXPECT and OPS_TABLES below. Measured tables of another form
are compared with their anchors in tests/test_content_cN.py (C3: the transpose tables).
"""

from __future__ import annotations

import re
from typing import NamedTuple

import pytest

from drills import ROOT, catalog
from drills import content_refs as cr


class Expect(NamedTuple):
    figures: tuple        # names of the <!-- figure: NAME --> markers it must have (and no others)
    min_refs: int         # at least this many `NAME`（`PATH` 第 A–B 行） references
    min_excerpts: int     # at least this many <!-- excerpt: PATH A-B --> blocks
    referenced: tuple     # files that some reference must point into
    mistakes_rows: int    # the 常见错误 section's table has at least this many rows, header included (0: not checked)


# Chapter (its path under content/) -> what it must have.
EXPECT = {
    "c1.md": Expect((), 10, 3, ("solutions/c1_vector_add.cu", "mine/c1_vector_add.cu"), 6),
    "c2.md": Expect(("reduction-tree", "shuffle-butterfly"), 10, 3,
                    ("solutions/c2_reduction.cu", "mine/c2_reduction.cu"), 6),
    "c3.md": Expect(("bank-map", "tile-stages", "warp-lens"), 10, 1, ("solutions/c3_transpose.cu",), 0),
    # C5 quotes code by named region (// region: NAME), not by line: no line references to count.
    "c5.md": Expect(("online-softmax",), 0, 0, (), 6),
}

CREDIT = ("2026-11-29", "H200")

# Chapters whose measured table quotes h200-other-ops.md -> (rows it must have, as substrings of the
# first cell; its rows that quote the anchors, as a substring of the first cell -> the operation).
OPS_TABLES = {
    "c1.md": (("vector_add`", "vector_add_grid_stride", "vector_add_vec4", "vector_add_fast", "copy_vec4",
               "cudaMemcpy"),
              {"`out.copy_(x)`": "copy (`out.copy_(x)`)", "PyTorch 向量加法": "vector add"}),
    "c2.md": (("reduce_interleaved_divergent", "reduce_interleaved_strided", "reduce_sequential",
               "reduce_first_add", "reduce_warp_shuffle", "reduce_grid_stride", "reduce_atomic", "reduce_sum`",
               "copy_vec4", "cudaMemcpy"),
              {"`out.copy_(x)`": "copy (`out.copy_(x)`)", "`torch.sum`": "`torch.sum`"}),
}
OPS_ANCHORS = ROOT.parent / "shared" / "anchors" / "h200-other-ops.md"
OPS_COLS = {"锚点 ms": "time", "锚点 GB/s": "rate"}  # chapter column -> anchors column

CHAPTERS = sorted({p.content for p in catalog.load().values()})
NAME = {c: c.removeprefix("content/") for c in CHAPTERS}
MD = {c: (ROOT / c).read_text(encoding="utf-8") for c in CHAPTERS}
REFS = {c: cr.find_refs(MD[c]) for c in CHAPTERS}
EXCERPTS = {c: cr.find_excerpts(MD[c]) for c in CHAPTERS}  # (excerpts, errors)


def expect(chapter: str) -> Expect:
    exp = EXPECT.get(NAME[chapter])
    assert exp, f"{chapter} is in the manifest but has no row in EXPECT (tests/test_content.py)"
    return exp


def chapters(*, where=lambda e: True):
    return [pytest.param(c, id=NAME[c]) for c in CHAPTERS if NAME[c] not in EXPECT or where(EXPECT[NAME[c]])]


def section(md: str, heading_word: str) -> str:
    lines = md.splitlines()
    start = next((i for i, l in enumerate(lines) if re.match(r"^##\s", l) and heading_word in l), None)
    assert start is not None, f"no '## … {heading_word}' section"
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^##\s", lines[i])), len(lines))
    return "\n".join(lines[start + 1:end])


def numbered(text: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\.\s+\S", text, re.M)]


def test_expectations_match_the_manifest():
    assert sorted(EXPECT) == sorted(NAME.values()), \
        f"EXPECT lists {sorted(EXPECT)}, the manifest's chapters are {sorted(NAME.values())}"
    assert set(OPS_TABLES) <= set(EXPECT), f"OPS_TABLES names chapters not in EXPECT: {set(OPS_TABLES) - set(EXPECT)}"


# ---- references into code ------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", chapters())
def test_chapter_has_code_references(chapter):
    exp, refs = expect(chapter), REFS[chapter]
    assert len(refs) >= exp.min_refs, f"{chapter} should point at the reference's code by function and line"
    for path in exp.referenced:
        assert any(r.path == path for r in refs), f"{chapter} has no reference into {path}"


@pytest.mark.parametrize("chapter", chapters())
def test_no_malformed_references(chapter):
    bad = cr.malformed_refs(MD[chapter])
    assert not bad, (f"{chapter}: these point at a file's lines but not in the form "
                     "`NAME`（`PATH` 第 A–B 行）, so nothing checks them:\n" + "\n".join(bad))


@pytest.mark.parametrize("ref", [pytest.param(r, id=f"{NAME[c]}:L{r.md_line}:{r.name}:{r.first}-{r.last}")
                                 for c in CHAPTERS for r in REFS[c]])
def test_code_reference(ref):
    problem = cr.check_ref(ROOT, ref)
    assert problem is None, problem


# ---- excerpts ------------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", chapters())
def test_excerpt_markers_well_formed(chapter):
    excerpts, errors = EXCERPTS[chapter]
    assert not errors, "\n".join(errors)
    assert len(excerpts) >= expect(chapter).min_excerpts, f"{chapter} should quote the reference's kernels"


@pytest.mark.parametrize("ex", [pytest.param(e, id=f"{NAME[c]}:L{e.md_line}:{e.path}:{e.first}-{e.last}")
                                for c in CHAPTERS for e in EXCERPTS[c][0]])
def test_excerpt_matches_file(ex):
    problem = cr.check_excerpt(ROOT, ex)
    assert problem is None, problem


# ---- figure markers ------------------------------------------------------------------------------

@pytest.mark.parametrize("chapter,name", [pytest.param(c, f, id=f"{NAME[c]}:{f}") for c in CHAPTERS
                                          for f in (EXPECT[NAME[c]].figures if NAME[c] in EXPECT else ())])
def test_figure_marker_once_on_its_own_line(chapter, name):
    md, marker = MD[chapter], f"<!-- figure: {name} -->"
    own_line = [i + 1 for i, line in enumerate(md.splitlines()) if line.strip() == marker]
    assert md.count(marker) == 1, f"{chapter}: {marker} appears {md.count(marker)} times; expected exactly once"
    assert len(own_line) == 1, f"{chapter}: {marker} must stand alone on its line"


@pytest.mark.parametrize("chapter", chapters())
def test_no_unknown_figure_markers(chapter):
    names = re.findall(r"<!--\s*figure:\s*([\w-]+)\s*-->", MD[chapter])
    want = expect(chapter).figures
    assert sorted(names) == sorted(want), f"{chapter}: figure markers found: {names}; expected {list(want)}"


# ---- self-test, exercises, common mistakes -------------------------------------------------------

@pytest.mark.parametrize("chapter", chapters())
def test_self_test_has_five_questions_and_folded_answers(chapter):
    body = section(MD[chapter], "自测")
    m = re.search(r"<details>\s*<summary>([^<]*)</summary>(.*?)</details>", body, re.S)
    assert m, "the self-test's answers must sit inside <details><summary>…</summary> … </details>"
    questions, answers = body[:m.start()], m.group(2)
    assert numbered(questions) == [1, 2, 3, 4, 5], f"questions numbered {numbered(questions)}"
    assert numbered(answers) == [1, 2, 3, 4, 5], f"answers numbered {numbered(answers)}"
    assert all(q.strip().endswith(("？", "?")) for q in re.findall(r"^\d+\.\s+(.*(?:\n   .*)*)", questions, re.M)), \
        "each of the five questions should end with a question mark"


@pytest.mark.parametrize("chapter", chapters())
def test_exercises_have_folded_worked_answers(chapter):
    for word in ("练习一", "练习二"):
        body = section(MD[chapter], word)
        assert re.search(r"<details>\s*<summary>.*?</summary>.*?</details>", body, re.S), \
            f"{word}: the worked answer should be behind a <details> fold"


@pytest.mark.parametrize("chapter", chapters(where=lambda e: e.mistakes_rows > 0))
def test_common_mistakes_table(chapter):
    rows = expect(chapter).mistakes_rows
    tables = cr.markdown_tables(section(MD[chapter], "常见错误"))
    assert tables and len(tables[0]) >= rows, \
        f"the common mistakes section should be a table of at least {rows - 1} rows"


# ---- measured numbers ----------------------------------------------------------------------------

@pytest.mark.parametrize("chapter", chapters())
def test_measured_credit(chapter):
    assert all(w in MD[chapter] for w in CREDIT), \
        f"{chapter}: credit the anchor numbers: measured on an {CREDIT[1]}, {CREDIT[0]}"


def ops_measured_table(chapter: str) -> list:
    t = cr.find_table(cr.markdown_tables(MD[chapter]), [cr.OWN, "锚点"])
    assert t, f"{chapter} needs the measured table: anchors' columns and '{cr.OWN} …' columns"
    return t


OPS_CHAPTERS = [pytest.param(c, id=NAME[c]) for c in CHAPTERS if NAME[c] in OPS_TABLES]


@pytest.mark.parametrize("chapter", OPS_CHAPTERS)
def test_measured_table_has_own_columns(chapter):
    t = ops_measured_table(chapter)
    own, bad = cr.own_column_problems(t, ("待测", "—"))
    assert len(own) >= 2, f"{chapter}: the measured table needs two or more '{cr.OWN}' columns"
    assert not bad, f"{chapter}:\n" + "\n".join(bad)
    missing = cr.missing_rows(t, OPS_TABLES[NAME[chapter]][0])
    assert not missing, f"{chapter}: the measured table has no row for {', '.join(missing)}"


@pytest.mark.parametrize("chapter", OPS_CHAPTERS)
def test_measured_table_matches_anchors(chapter):
    tables = cr.anchors_tables(OPS_ANCHORS)
    if tables is None:
        pytest.skip(cr.anchors_absent(OPS_ANCHORS))
    anchors = cr.find_table(tables, first="operation")
    assert anchors, f"{OPS_ANCHORS}: no table headed 'operation | …'"
    errors = cr.anchored_mismatches(ops_measured_table(chapter), anchors, OPS_TABLES[NAME[chapter]][1], OPS_COLS)
    assert not errors, f"{chapter}:\n" + "\n".join(errors)
