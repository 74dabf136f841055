"""The two figures of C2 (problem 77), used the way a reader would: step the reduction tree in each
addressing mode and watch its counters; step the shuffles down and across the butterfly, with a toy
warp and with wrong member masks. Each test saves screenshots of its figure to test-results/web/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from web_helpers import ROOT, SHOTS, open_problem

pytestmark = pytest.mark.browser


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The learner's checkout in miniature, with C2's skeleton beside C3's."""
    (tmp_path / "mine").mkdir()
    for name in ("c3_transpose.cu", "c2_reduction.cu"):
        shutil.copy(ROOT / "mine" / name, tmp_path / "mine" / name)
    return tmp_path


@pytest.fixture
def context_options() -> dict:
    # Tall enough that a whole figure fits on screen for its screenshot; the width is the usual one.
    return {"viewport": {"width": 1280, "height": 1400}, "locale": "en-US"}


def figure_shot(fig, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    fig.screenshot(path=str(path))
    return path


def value(fig, testid: str) -> str:
    return fig.locator(f'[data-testid="{testid}"]').get_attribute("data-value")


def ints(locator, attr: str) -> list[int]:
    return [int(v) for v in locator.evaluate_all(f"els => els.map(e => e.getAttribute('{attr}'))")]


# ---- the reduction tree ----

def rt(fig) -> dict:
    keys = ("steps", "active", "adds", "warps", "divergent", "conflicts", "result")
    return {k: value(fig, "rt-" + k) for k in keys}


def test_problem_77_places_both_figures_at_their_markers(page, server):
    open_problem(page, server, 77)
    chapter = page.locator("#chapter")
    names = chapter.locator(".figure").evaluate_all("els => els.map(e => e.dataset.figure)")
    assert names == ["reduction-tree", "shuffle-butterfly"]
    assert chapter.locator(".figure .note").count() == 0                   # no "unknown figure"
    assert chapter.locator('[data-figure="reduction-tree"] .fig-title').inner_text().startswith("The reduction tree")
    assert chapter.locator('[data-figure="shuffle-butterfly"] .fig-title').inner_text() == "A warp's sum with shuffles"
    # Each sits in the section whose text it illustrates.
    assert "log₂n" in chapter.locator('[data-figure="reduction-tree"]').evaluate("el => el.previousElementSibling.textContent")
    assert "warp_sum" in chapter.locator('[data-figure="shuffle-butterfly"]').evaluate("el => el.previousElementSibling.textContent")
    assert page.drills_errors == []


def test_reduction_tree_counts_divergence_and_bank_conflicts_per_mode(page, server):
    open_problem(page, server, 77)
    fig = page.locator('.figure[data-figure="reduction-tree"]')
    fig.scroll_into_view_if_needed()
    step, run_all = fig.locator('[data-testid="rt-step"]'), fig.locator('[data-testid="rt-all"]')
    mode = fig.locator('[data-testid="rt-mode"]')
    # It opens on rung 1, interleaved addressing with t % (2d), before the first step.
    assert mode.input_value() == "divergent"
    assert rt(fig) == {"steps": "0 / 4", "active": "0", "adds": "0", "warps": "0", "divergent": "0", "conflicts": "0", "result": "3"}
    assert fig.locator(".rt-cell").count() == 16                           # one row: s[] at the start
    sum_ = int(fig.locator('[data-testid="rt-caption"]').get_attribute("data-sum"))
    assert sum_ == sum(ints(fig.locator('.rt-cell[data-row="0"]'), "data-value")) == 80

    step.click()                                                           # d = 1: the even threads, 2 of each warp's 4
    assert rt(fig) == {"steps": "1 / 4", "active": "8", "adds": "8", "warps": "4", "divergent": "4", "conflicts": "0", "result": "4"}
    assert ints(fig.locator(".rt-thread.active"), "data-thread") == [0, 2, 4, 6, 8, 10, 12, 14]
    assert fig.locator(".rt-warp.divergent").count() == 4
    assert ints(fig.locator('.rt-cell.written[data-row="1"]'), "data-index") == [0, 2, 4, 6, 8, 10, 12, 14]
    assert fig.locator(".rt-arrow.current").count() == 16                  # two reads into each written word
    run_all.click()
    assert rt(fig) == {"steps": "4 / 4", "active": "1", "adds": "15", "warps": "11", "divergent": "11", "conflicts": "0", "result": "80"}
    assert step.is_disabled()
    assert "11 warp issues" in fig.locator('[data-testid="rt-caption"]').inner_text()

    mode.select_option("strided")                                          # rung 2: k = 2*d*t
    assert rt(fig)["steps"] == "0 / 4" and not step.is_disabled()
    step.click()                                                           # threads 0..7, whole warps, words 0, 2, 4, ...
    assert rt(fig) == {"steps": "1 / 4", "active": "8", "adds": "8", "warps": "2", "divergent": "0", "conflicts": "6", "result": "4"}
    assert ints(fig.locator(".rt-thread.active"), "data-thread") == list(range(8))
    assert fig.locator(".rt-warp.divergent").count() == 0
    assert "2-way" in fig.locator("svg.reduction-tree").inner_html()
    step.click()                                                           # d = 2: words 0, 4, 8, 12, all in bank 0
    assert value(fig, "rt-conflicts") == "15"
    assert "4-way" in fig.locator("svg.reduction-tree").inner_html()
    figure_shot(fig, "figure-reduction-tree-strided")
    run_all.click()
    assert rt(fig) == {"steps": "4 / 4", "active": "1", "adds": "15", "warps": "5", "divergent": "2", "conflicts": "18", "result": "80"}
    assert fig.locator('[data-testid="rt-conflicts"]').get_attribute("class").split() == ["fig-counter", "bad"]

    mode.select_option("sequential")                                       # rung 3: t < d, d = 8, 4, 2, 1
    step.click()
    assert ints(fig.locator(".rt-thread.active"), "data-thread") == list(range(8))
    assert ints(fig.locator('.rt-cell.written[data-row="1"]'), "data-index") == list(range(8))
    assert value(fig, "rt-conflicts") == "0"
    run_all.click()
    assert rt(fig) == {"steps": "4 / 4", "active": "1", "adds": "15", "warps": "5", "divergent": "2", "conflicts": "0", "result": "80"}
    caption = fig.locator('[data-testid="rt-caption"]')
    assert caption.get_attribute("data-result") == caption.get_attribute("data-sum") == "80"
    assert "no bank conflict" in caption.inner_text()
    assert fig.locator('[data-testid="rt-table"] tbody tr').count() == 4
    figure_shot(fig, "figure-reduction-tree-sequential")

    # The language follows the page's toggle and the figure keeps its state.
    page.click("#lang-toggle")
    assert fig.locator(".fig-title").inner_text().startswith("归约树")
    assert fig.locator('[data-testid="rt-mode"] option:checked').inner_text().startswith("顺序寻址")
    assert "没有 bank 冲突" in caption.inner_text()
    assert rt(fig)["result"] == "80" and rt(fig)["steps"] == "4 / 4"
    figure_shot(fig, "figure-reduction-tree-sequential-zh")
    page.click("#lang-toggle")

    fig.locator('[data-testid="rt-reset"]').click()
    assert rt(fig) == {"steps": "0 / 4", "active": "0", "adds": "0", "warps": "0", "divergent": "0", "conflicts": "0", "result": "3"}
    assert fig.locator(".rt-cell").count() == 16
    assert page.drills_errors == []


# ---- the shuffle butterfly ----

def lane_values(fig, row: int) -> list[str]:
    return fig.locator(f'.sb-cell[data-row="{row}"]').evaluate_all("els => els.map(e => e.dataset.value)")


def sb(fig) -> dict:
    return {k: value(fig, "sb-" + k) for k in ("steps", "sum", "holding", "undefined")}


def test_shuffle_down_leaves_the_sum_in_lane_0_and_the_butterfly_in_every_lane(page, server):
    open_problem(page, server, 77)
    fig = page.locator('.figure[data-figure="shuffle-butterfly"]')
    fig.scroll_into_view_if_needed()
    step, run_all, reset = (fig.locator(f'[data-testid="sb-{b}"]') for b in ("step", "all", "reset"))
    code = fig.locator('[data-testid="sb-code"]')
    # Opens on __shfl_down_sync over a whole warp, lane i holding i + 1.
    assert fig.locator('[data-testid="sb-op"]').input_value() == "down"
    assert lane_values(fig, 0) == [str(i + 1) for i in range(32)]
    assert sb(fig) == {"steps": "0 / 5", "sum": "528", "holding": "0 / 32", "undefined": "0"}
    assert "__shfl_down_sync(0xffffffff, v, d)" in code.inner_text()

    step.click()                                                           # d = 16
    assert sb(fig)["steps"] == "1 / 5"
    row1 = [int(v) for v in lane_values(fig, 1)]
    assert row1[:16] == [(i + 1) + (i + 17) for i in range(16)]            # lane i adds lane i + 16
    assert row1[16:] == [2 * (i + 1) for i in range(16, 32)]               # no lane i + 16: its own value again
    arrows = fig.locator(".sb-arrow.current")
    assert arrows.count() == 32 and fig.locator(".sb-arrow.own.current").count() == 16
    assert arrows.evaluate_all("els => els.slice(0, 3).map(e => [+e.dataset.from, +e.dataset.to])") == [[16, 0], [17, 1], [18, 2]]
    run_all.click()
    final = [int(v) for v in lane_values(fig, 5)]
    assert final[0] == 528 and all(v != 528 for v in final[1:])
    assert sb(fig) == {"steps": "5 / 5", "sum": "528", "holding": "1 / 32", "undefined": "0"}
    assert fig.locator(".sb-cell.total").evaluate_all("els => els.map(e => e.dataset.lane)") == ["0"]
    assert "only lane 0 holds the sum 528" in fig.locator('[data-testid="sb-caption"]').inner_text()
    assert step.is_disabled() and run_all.is_disabled()

    fig.locator('[data-testid="sb-op"]').select_option("xor")            # the butterfly
    assert sb(fig)["steps"] == "0 / 5" and not step.is_disabled()
    step.click()
    assert fig.locator(".sb-arrow.current").evaluate_all("els => els.slice(0, 2).map(e => [+e.dataset.from, +e.dataset.to])") == [[16, 0], [17, 1]]
    assert lane_values(fig, 1)[16] == lane_values(fig, 1)[0] == "18"      # lanes 0 and 16 now hold the same sum
    run_all.click()
    assert lane_values(fig, 5) == ["528"] * 32
    assert sb(fig) == {"steps": "5 / 5", "sum": "528", "holding": "32 / 32", "undefined": "0"}
    assert fig.locator(".sb-cell.total").count() == 32
    assert "all 32 lanes hold the sum 528" in fig.locator('[data-testid="sb-caption"]').inner_text()
    figure_shot(fig, "figure-shuffle-butterfly-xor")

    fig.locator('[data-testid="sb-lanes"]').select_option("8")           # the toy view: offsets 4, 2, 1
    assert lane_values(fig, 0) == [str(i) for i in range(1, 9)]
    run_all.click()
    assert lane_values(fig, 3) == ["36"] * 8
    assert sb(fig) == {"steps": "3 / 3", "sum": "36", "holding": "8 / 8", "undefined": "0"}
    fig.locator('[data-testid="sb-op"]').select_option("down")
    run_all.click()
    assert lane_values(fig, 3)[0] == "36" and sb(fig)["holding"] == "1 / 8"
    reset.click()
    assert sb(fig)["steps"] == "0 / 3" and fig.locator(".sb-cell").count() == 8
    assert page.drills_errors == []


def test_shuffle_with_a_wrong_mask_is_undefined_or_a_sync_mask_error(page, server):
    open_problem(page, server, 77)
    fig = page.locator('.figure[data-figure="shuffle-butterfly"]')
    fig.scroll_into_view_if_needed()
    step, run_all = fig.locator('[data-testid="sb-step"]'), fig.locator('[data-testid="sb-all"]')
    error = fig.locator('[data-testid="sb-error"]')
    fig.locator('[data-testid="sb-op"]').select_option("xor")
    fig.locator('[data-testid="sb-lanes"]').select_option("8")

    # The mask leaves out lanes 4..7: they may not call, nor be read; every lane reads across halves.
    fig.locator('[data-testid="sb-mask"]').select_option("half")
    assert "__shfl_xor_sync(0x0f, v, d)" in fig.locator('[data-testid="sb-code"]').inner_text()
    assert fig.locator(".sb-head.outside").evaluate_all("els => els.map(e => e.dataset.lane)") == ["4", "5", "6", "7"]
    step.click()
    assert lane_values(fig, 1) == ["?"] * 8
    assert sb(fig)["undefined"] == "8"
    assert fig.locator(".sb-arrow.undefined").count() == 8
    run_all.click()
    assert sb(fig) == {"steps": "3 / 3", "sum": "36", "holding": "0 / 8", "undefined": "8"}
    assert "result is undefined" in fig.locator('[data-testid="sb-caption"]').inner_text()
    assert error.is_hidden()

    # The full mask, but only lanes 0 and 1 reach the call: the simulator stops with sync-mask.
    fig.locator('[data-testid="sb-mask"]').select_option("absent")
    assert "if (lane < 2) v += __shfl_xor_sync(0xff, v, d);" in fig.locator('[data-testid="sb-code"]').inner_text()
    assert error.is_hidden()
    step.click()
    assert error.is_visible()
    text = error.inner_text()
    assert text.startswith("sync-mask:") and "member mask 0xff names lanes that are not executing" in text
    assert "(0xfc)" in text and "active 0x03" in text
    assert "the judge names the diagnosis wrong-shuffle-mask" in text
    assert sb(fig)["steps"] == "0 / 3" and lane_values(fig, 0) == [str(i) for i in range(1, 9)]
    assert fig.locator('.sb-cell[data-row="1"]').count() == 0               # no lane got a result
    assert step.is_disabled() and run_all.is_disabled()
    fig.locator('[data-testid="sb-lanes"]').select_option("32")          # the golden case: lanes 0-7 of 32
    run_all.click()
    assert "(0xffffff00); active 0x000000ff" in error.inner_text()
    figure_shot(fig, "figure-shuffle-butterfly-sync-mask")

    fig.locator('[data-testid="sb-mask"]').select_option("full")         # and right again
    assert error.is_hidden()
    run_all.click()
    assert lane_values(fig, 5) == ["528"] * 32
    page.click("#lang-toggle")
    assert fig.locator(".fig-title").inner_text() == "warp 内的 shuffle 归约"
    assert "全部 32 个 lane 都持有总和 528" in fig.locator('[data-testid="sb-caption"]').inner_text()
    assert page.drills_errors == []


def test_both_figures_fit_a_narrow_window(browser, server):
    context = browser.new_context(viewport={"width": 420, "height": 900}, locale="en-US")
    pg = context.new_page()
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server.url)
    pg.goto(f"{server.origin}/p/77")                    # the chapter tab: the editor is hidden, so no open_problem
    pg.wait_for_selector('.figure[data-figure="shuffle-butterfly"] .fig-title')
    for name, run_all in (("reduction-tree", "rt-all"), ("shuffle-butterfly", "sb-all")):
        fig = pg.locator(f'.figure[data-figure="{name}"]')
        fig.scroll_into_view_if_needed()
        fig.locator(f'[data-testid="{run_all}"]').click()
        assert fig.locator("svg").bounding_box()["width"] <= 420
    width = pg.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 420, "the page scrolls sideways in a narrow window"
    figure_shot(pg.locator('.figure[data-figure="shuffle-butterfly"]'), "figure-shuffle-butterfly-420")
    assert errors == []
    context.close()
