"""The chapter follows the language toggle (content/cN.md in Chinese, content/en/cN.md in English), and
quoted code regions are captioned with their file and region name."""

from __future__ import annotations

from web_helpers import open_problem


def figures(page) -> list[str]:
    return page.locator("#chapter .figure").evaluate_all("els => els.map(e => e.dataset.figure)")


def test_the_toggle_swaps_the_chapter_and_redraws_its_figures(page, server):
    open_problem(page, server)
    chapter = page.locator("#chapter")
    assert "Matrix transpose" in chapter.locator("h1").first.inner_text()
    assert figures(page) == ["tile-stages", "bank-map", "warp-lens"]
    page.evaluate("() => { window.__same_page = true; }")
    page.click("#lang-toggle")
    page.wait_for_function("() => document.querySelector('#chapter h1').textContent.includes('矩阵转置')")
    assert chapter.get_attribute("data-lang") == "zh"
    assert figures(page) == ["tile-stages", "bank-map", "warp-lens"]
    assert chapter.locator('[data-figure="bank-map"] .fig-title').inner_text().startswith("共享内存 bank 图")  # kept, retranslated
    assert chapter.locator(".figure-caption").first.inner_text().startswith("图 1")
    page.click("#lang-toggle")
    page.wait_for_function("() => document.querySelector('#chapter h1').textContent.includes('Matrix transpose')")
    assert page.evaluate("() => window.__same_page") is True        # swapped in place: the editor kept its text
    assert page.drills_errors == []


def test_a_quoted_region_shows_its_file_and_name(page, server):
    open_problem(page, server)
    caption = page.locator("#chapter .region-ref").first
    assert caption.locator(".region-file").inner_text() == "solutions/c3_transpose.cu"
    assert caption.locator(".region-name").inner_text() == "#naive-kernel"
    # The caption sits right above the quoted code block.
    assert page.evaluate("() => document.querySelector('#chapter .region-ref').nextElementSibling.tagName") == "PRE"
