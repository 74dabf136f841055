"""content/c1.md stays true to the code and to the measurements it quotes.

Run: python -m pytest -q tests/test_content_c1.py

- every `NAME`（`PATH` 第 A–B 行） points at lines inside NAME's definition in PATH (one test per
  reference, named after it, so a moved function shows exactly which sentence to fix);
- every block marked <!-- excerpt: PATH A-B --> equals those lines of PATH (indentation aside);
- the chapter has no figure markers (C1 has no interactive figure);
- the self-test has five questions and their five answers behind a <details> fold, and both
  exercises have folded worked answers;
- the measured table has the project's own columns (a number or 待测), and every number it takes
  from the H200 anchors equals the anchors file (../shared/anchors/h200-other-ops.md; skipped,
  saying so, where that file is absent).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from drills import content_refs as cr  # noqa: E402

CHAPTER = ROOT / "content" / "c1.md"
ANCHORS = ROOT.parent / "shared" / "anchors" / "h200-other-ops.md"
MD = CHAPTER.read_text(encoding="utf-8")

REFS = cr.find_refs(MD)
EXCERPTS, EXCERPT_ERRORS = cr.find_excerpts(MD)

# Rows of the chapter's measured table (a substring of the first cell) -> the anchors' operation.
ANCHORED_ROWS = {"`out.copy_(x)`": "copy (`out.copy_(x)`)", "PyTorch 向量加法": "vector add"}
OWN = "本项目实测"
NOT_MEASURED = ("待测", "—")


def number(cell: str) -> float | None:
    m = re.search(r"\d[\d,]*(?:\.\d+)?", cell)
    return float(m.group(0).replace(",", "")) if m else None


def section(md: str, heading_word: str) -> str:
    lines = md.splitlines()
    start = next((i for i, l in enumerate(lines) if re.match(r"^##\s", l) and heading_word in l), None)
    assert start is not None, f"no '## … {heading_word}' section"
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"^##\s", lines[i])), len(lines))
    return "\n".join(lines[start + 1:end])


def numbered(text: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^(\d+)\.\s+\S", text, re.M)]


# ---- references into code ------------------------------------------------------------------------

def test_chapter_has_code_references():
    assert len(REFS) >= 10, "content/c1.md should point at the reference's code by function and line"
    assert any(r.path == "solutions/c1_vector_add.cu" for r in REFS)
    assert any(r.path == "mine/c1_vector_add.cu" for r in REFS)


def test_no_malformed_references():
    bad = cr.malformed_refs(MD)
    assert not bad, ("these point at a file's lines but not in the form "
                     "`NAME`（`PATH` 第 A–B 行）, so nothing checks them:\n" + "\n".join(bad))


@pytest.mark.parametrize("ref", REFS, ids=[f"L{r.md_line}:{r.name}:{r.first}-{r.last}" for r in REFS])
def test_code_reference(ref):
    problem = cr.check_ref(ROOT, ref)
    assert problem is None, problem


def test_excerpt_markers_well_formed():
    assert not EXCERPT_ERRORS, "\n".join(EXCERPT_ERRORS)
    assert len(EXCERPTS) >= 3, "content/c1.md should quote the reference's kernels"


@pytest.mark.parametrize("ex", EXCERPTS, ids=[f"L{e.md_line}:{e.path}:{e.first}-{e.last}" for e in EXCERPTS])
def test_excerpt_matches_file(ex):
    problem = cr.check_excerpt(ROOT, ex)
    assert problem is None, problem


def test_no_figure_markers():
    names = re.findall(r"<!--\s*figure:\s*([\w-]+)\s*-->", MD)
    assert names == [], f"C1 has no interactive figure, but the chapter marks {names}"


# ---- self-test and exercises ---------------------------------------------------------------------

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


def test_common_mistakes_table():
    tables = cr.markdown_tables(section(MD, "常见错误"))
    assert tables and len(tables[0]) >= 6, "the common mistakes section should be a table of at least five rows"


# ---- measured numbers ----------------------------------------------------------------------------

def measured_table():
    t = next((t for t in cr.markdown_tables(MD) if any(OWN in h for h in t[0]) and "锚点" in " ".join(t[0])), None)
    assert t, f"content/c1.md needs the measured table: anchors' columns and '{OWN} …' columns"
    return t


def test_measured_table_has_own_columns():
    t = measured_table()
    own = [i for i, h in enumerate(t[0]) if OWN in h]
    assert len(own) >= 2
    for row in t[1:]:
        for i in own:
            assert row[i] in NOT_MEASURED or number(row[i]) is not None, \
                f"'{row[0]}', column '{t[0][i]}': expected a number, 待测 or —, got {row[i]!r}"
    names = " ".join(r[0] for r in t[1:])
    for variant in ("vector_add`", "vector_add_grid_stride", "vector_add_vec4", "vector_add_fast", "copy_vec4",
                    "cudaMemcpy"):
        assert variant in names, f"the measured table has no row for {variant}"


def test_measured_table_matches_anchors():
    if not ANCHORS.is_file():
        pytest.skip(f"anchors file {ANCHORS} is absent: cannot compare the chapter's numbers with it")
    anchors = next(t for t in cr.markdown_tables(ANCHORS.read_text(encoding="utf-8")) if t[0][0] == "operation")
    arow = {r[0]: r for r in anchors[1:]}
    t = measured_table()
    col = {h: i for i, h in enumerate(t[0])}
    errors = []
    for key, op in ANCHORED_ROWS.items():
        rows = [r for r in t[1:] if key in r[0]]
        assert len(rows) == 1, f"{len(rows)} rows of the measured table contain {key!r}"
        a_ms, a_gbps = number(arow[op][2]), number(arow[op][3])
        c_ms, c_gbps = number(rows[0][col["锚点 ms"]]), number(rows[0][col["锚点 GB/s"]])
        if (a_ms, a_gbps) != (c_ms, c_gbps):
            errors.append(f"{key}: chapter {c_ms} ms / {c_gbps} GB/s, anchors {a_ms} ms / {a_gbps} GB/s ({op})")
    assert not errors, "\n".join(errors)


def test_measured_credit():
    assert "2026-11-29" in MD and "H200" in MD, "credit the anchor numbers: measured on an H200, 2026-11-29"
