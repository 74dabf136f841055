"""The pages in a real Chromium: the list, the chapter with its figures, the language toggle, and that
nothing is fetched from anywhere but this server."""

from __future__ import annotations

import pytest

from web_helpers import open_problem, shot

pytestmark = pytest.mark.browser


def test_list_shows_problem_78_with_its_progress(page, server):
    row = page.locator('tr.problem-row[data-number="78"]')
    assert row.locator("a").inner_text() == "Matrix transpose through shared memory"
    assert row.locator(".progress").inner_text() == "not started"
    server.workspace.joinpath("practice").mkdir()
    server.workspace.joinpath("practice", ".progress.json").write_text('{"78": {"status": "passed", "updated": "x"}}')
    page.reload()
    assert row.locator(".progress").inner_text() == "passed"


def test_problem_page_renders_the_chapter_and_three_figures_at_their_markers(page, server):
    page.click('tr.problem-row[data-number="78"] a')
    page.wait_for_selector(".CodeMirror")
    chapter = page.locator("#chapter")
    assert "C3" in chapter.locator("h1").first.inner_text()
    assert chapter.locator("table").count() > 3                       # Markdown tables
    assert chapter.locator("pre code .cm-keyword").count() > 0         # code coloured by CodeMirror's runmode
    names = chapter.locator(".figure").evaluate_all("els => els.map(e => e.dataset.figure)")
    assert names == ["tile-stages", "bank-map", "warp-lens"]           # the chapter's order, all placed by markers
    for name in names:
        fig = chapter.locator(f'.figure[data-figure="{name}"]')
        assert fig.locator(".fig-title").inner_text()
    # The bank map sits right after the 4-bank toy it illustrates.
    before = chapter.locator('.figure[data-figure="bank-map"]').evaluate(
        "el => el.previousElementSibling.textContent")
    assert before.strip()
    assert page.drills_errors == []


def test_math_is_typeset_when_katex_is_installed(page, server):
    open_problem(page, server)
    if page.evaluate("() => !window.katex"):
        pytest.fail("libjs-katex is not installed: run `bash practice/setup.sh --tests`", pytrace=False)
    # C3 has no formulas today; typeset one the way the chapter's would be (chapter.py's markup).
    html = page.evaluate("""() => {
        const box = document.createElement('div');
        box.innerHTML = '<span class="math" data-display="0">t_i &lt; \\\\frac{a}{b}</span>';
        document.body.appendChild(box);
        Drills.renderChapter(box);
        return box.innerHTML;
    }""")
    assert 'class="katex"' in html and "mfrac" in html


def test_everything_comes_from_this_server(page, server):
    open_problem(page, server)
    page.wait_for_load_state("networkidle")
    foreign = [u for u in page.drills_requests if not (u.startswith(server.origin + "/") or u.startswith("data:"))]
    assert foreign == []
    assert any("/vendor/codemirror/" in u for u in page.drills_requests)


def test_language_toggle_switches_without_reload_and_is_remembered(page, server):
    open_problem(page, server)
    assert page.locator("#run").inner_text() == "Run"
    page.evaluate("() => { window.__same_page = true; }")
    page.click("#lang-toggle")
    assert page.locator("#run").inner_text() == "运行评测"
    assert page.locator("#problem-title").inner_text() == "#78 共享内存矩阵转置"
    assert page.locator('[data-figure="tile-stages"] .fig-title').inner_text().startswith("转置的两个阶段")
    assert page.evaluate("() => window.__same_page") is True          # no reload: unsaved text survives
    page.reload()
    page.wait_for_selector(".CodeMirror")
    assert page.locator("#run").inner_text() == "运行评测"


def test_chinese_browser_gets_chinese_by_default(browser, server):
    context = browser.new_context(locale="zh-CN")
    pg = context.new_page()
    pg.goto(server.url)
    assert pg.locator('tr.problem-row[data-number="78"] a').inner_text() == "共享内存矩阵转置"
    assert pg.locator("#lang-toggle").inner_text() == "English"
    context.close()


def test_hints_come_one_at_a_time_and_are_remembered(page, server):
    open_problem(page, server)
    assert page.locator(".hint").count() == 0
    page.click("#next-hint")
    page.wait_for_selector(".hint")
    assert page.locator(".hint").count() == 1
    page.click("#next-hint")
    page.wait_for_function("() => document.querySelectorAll('.hint').length === 2")
    assert server.progress()["78"]["hints"] == 2
    page.reload()
    page.wait_for_selector(".hint")
    assert page.locator(".hint").count() == 2


def test_solution_stays_locked_until_a_pass(page, server):
    open_problem(page, server)
    page.click("#show-solution")
    page.wait_for_selector("#solution-note:not([hidden])")
    assert page.locator("#solution-text").is_hidden()


def test_narrow_window_shows_one_pane_at_a_time(browser, server):
    context = browser.new_context(viewport={"width": 420, "height": 900}, locale="en-US")
    pg = context.new_page()
    pg.goto(server.url)
    pg.goto(f"{server.origin}/p/78")
    assert pg.locator("#chapter-pane").is_visible() and pg.locator("#work-pane").is_hidden()
    width = pg.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 420, "the page scrolls sideways in a narrow window"
    pg.click('[data-tab="code"]')
    assert pg.locator("#work-pane").is_visible() and pg.locator("#chapter-pane").is_hidden()
    assert pg.locator(".CodeMirror").is_visible()
    shot(pg, "narrow-code-tab")
    context.close()


def test_every_problem_in_the_manifest_has_a_working_page(page, server):
    from drills import manifest
    for number in sorted(manifest.load()):
        page.goto(f"{server.origin}/p/{number}")
        page.wait_for_selector(".CodeMirror")
        assert page.locator("#chapter").inner_text().strip(), number   # the chapter, or a note that it is missing
    assert page.drills_errors == []
