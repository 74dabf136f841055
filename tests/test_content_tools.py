"""The tools behind the content tests: the region checker (drills/authoring/regions.py), figure
blocks (figures.py), and how the browser app renders both (drills/web/chapter.py).

Run: python -m pytest -q tests/test_content_tools.py
"""

from __future__ import annotations

from pathlib import Path

import pytest

from drills import ROOT, manifest
from drills.authoring import figures, regions
from drills.web import chapter

SOURCE = """\
// region: outer
int a;
  // region: inner
  int b;
  // endregion: inner
// endregion: outer
"""


def tree(tmp_path: Path, source: str = SOURCE, md: str = "") -> Path:
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "k.cu").write_text(source)
    (tmp_path / "c.md").write_text(md)
    return tmp_path / "c.md"


def quote(name: str, body: str) -> str:
    return f"<!-- region: solutions/k.cu#{name} -->\n```cuda\n{body}\n```\n"


# ---- regions in a source file --------------------------------------------------------------------

def test_regions_nest_and_drop_inner_markers():
    found, problems = regions.parse_regions(SOURCE)
    assert problems == []
    assert found["outer"].text == "int a;\n  int b;"
    assert found["inner"].text == "int b;"          # dedented


@pytest.mark.parametrize("source,message", [
    ("// region: a\n", "never closed"),
    ("// endregion: a\n", "closes nothing"),
    ("// region: a\n// region: b\n// endregion: a\n// endregion: b\n", "expected '// endregion: b'"),
    ("// region: a\n// endregion: a\n// region: a\n// endregion: a\n", "defined twice"),
    ("// region: Stage_2\n// endregion: Stage_2\n", "not lower-case words"),
    ("//region a\n", "malformed region marker"),
])
def test_bad_markers_are_named(source, message):
    _, problems = regions.parse_regions(source, "k.cu")
    assert any(message in p for p in problems), problems


# ---- a chapter's quotes and citations ------------------------------------------------------------

def test_a_sound_chapter_has_no_problems(tmp_path):
    md = quote("inner", "int b;") + "\nSee `solutions/k.cu#outer`.\n"
    assert regions.check_chapter(tree(tmp_path, md=md), root=tmp_path) == []


@pytest.mark.parametrize("md,message", [
    (quote("inner", "int c;"), "differs from the region"),
    (quote("nowhere", "int b;"), "has no region 'nowhere'"),
    ("<!-- region: solutions/gone.cu#a -->\n```cuda\nx\n```\n", "gone.cu does not exist"),
    ("<!-- region: solutions/k.cu#inner -->\n\ntext\n", "not followed by a fenced code block"),
    ("<!-- excerpt: solutions/k.cu 1-2 -->\n```cuda\nx\n```\n", "malformed region marker"),
    ("<!-- region: solutions/k.cu#inner -->\n```python\nint b;\n```\n", "language is 'python'"),
    ("Named as `solutions/k.cu#missing`.\n", "has no region 'missing'"),
    ("`add`（`solutions/k.cu` 第 3–5 行）\n", "points at a line number"),
    ("see lines 3-5 of `solutions/k.cu`\n", "points at a line number"),
    ("see solutions/k.cu:12\n", "points at a line number"),
    ("<!-- figure: bank-map -->\n\ntext without caption\n\n<!-- endfigure -->\n", "one-line caption"),
    ("<!-- figure: bank-map -->\n**图 1** caption\n\n<!-- endfigure -->\n", "static fallback"),
    ("<!-- figure: bank-map -->\n**图 1** caption\n\nfallback\n", "never closed"),
])
def test_chapter_problems_are_found(tmp_path, md, message):
    problems = regions.check_chapter(tree(tmp_path, md=md), root=tmp_path)
    assert any(message in p for p in problems), problems


def test_rows_of_a_matrix_are_not_line_pointers(tmp_path):
    md = "x 的第 3 行、第 64…69 行；row 3 of x.\n"
    assert regions.check_chapter(tree(tmp_path, md=md), root=tmp_path) == []


def test_a_marker_inside_a_code_block_is_text(tmp_path):
    md = "````markdown\n<!-- region: solutions/k.cu#nowhere -->\n```cuda\nx\n```\n````\n"
    assert regions.check_chapter(tree(tmp_path, md=md), root=tmp_path) == []


def test_every_reference_region_is_well_formed():
    for p in manifest.load().values():
        _, problems = regions.read_regions(ROOT, p.solution)
        assert problems == [], problems


# ---- figure blocks -------------------------------------------------------------------------------

FIGURE = "before\n\n<!-- figure: bank-map -->\n**图 4**　看一列落在哪些 bank。\n\n| lane | bank |\n|---|---|\n| 0 | 0 |\n\n<!-- endfigure -->\n\nafter\n"


def test_figure_block_parts():
    found, problems = figures.parse(FIGURE)
    assert problems == []
    assert [(f.name, f.caption) for f in found] == [("bank-map", "**图 4**　看一列落在哪些 bank。")]
    assert found[0].fallback.startswith("| lane | bank |")


# ---- rendering in the browser app ----------------------------------------------------------------

def test_app_draws_the_figure_keeps_the_caption_and_drops_the_fallback():
    html, placed = chapter.render(FIGURE)
    assert placed == ["bank-map"]
    assert html.index("before") < html.index('data-figure="bank-map"') < html.index("figure-caption") < html.index("after")
    assert "看一列落在哪些 bank" in html and "<table>" not in html


def test_a_quoted_region_is_captioned_with_its_file_and_name():
    html, _ = chapter.render("<!-- region: solutions/c3_transpose.cu#stage-2 -->\n```cuda\nint x;\n```\n")
    assert '<code class="region-file">solutions/c3_transpose.cu</code>' in html
    assert '<span class="region-name">#stage-2</span>' in html
    assert html.index("region-file") < html.index("<pre>")


@pytest.mark.parametrize("lang,folder", [("zh", "content"), ("en", "content/en")])
def test_the_chapter_follows_the_language(lang, folder):
    p = manifest.load()[78]
    assert chapter.chapter_path(p.content, lang) == ROOT / folder / "c3.md"


def test_the_chapter_api_serves_the_chosen_language():
    from drills.web.server import create_app
    client = create_app("tok", 5000).test_client()
    headers = {"Host": "127.0.0.1:5000", "X-Drills-Token": "tok"}
    zh = client.get("/api/chapter/78?lang=zh", headers=headers).get_json()
    en = client.get("/api/chapter/78?lang=en", headers=headers).get_json()
    assert zh["lang"] == "zh" and en["lang"] == "en"
    assert "矩阵转置" in zh["html"] and "Matrix transpose" in en["html"]
    assert zh["figures"] == en["figures"] == ["tile-stages", "bank-map", "warp-lens"]
    assert client.get("/api/chapter/78?lang=en", headers={"Host": "127.0.0.1:5000"}).status_code == 401


def test_preprocessor_lines_do_not_stop_the_dedent():
    found, _ = regions.parse_regions("  // region: body\n  int a;\n#pragma unroll\n  for (;;) {}\n  // endregion: body\n")
    assert found["body"].text == "int a;\n#pragma unroll\nfor (;;) {}"


def test_every_manifest_chapter_and_its_twin_pass_the_checker():
    assert regions.check_all_chapters() == []


def test_a_missing_twin_is_reported(tmp_path):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "c9.md").write_text("# C9\n")
    assert regions.check_chapter(regions.twin_path("content/c9.md"), root=tmp_path) == ["content/en/c9.md does not exist"]
