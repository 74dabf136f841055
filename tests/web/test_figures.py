"""The three interactive figures, used the way a reader would: pick layouts and columns, step the stages,
pick a line of one's own kernel."""

from __future__ import annotations

from pathlib import Path

import pytest

from web_helpers import open_problem, set_code

pytestmark = pytest.mark.browser

KERNELS = Path(__file__).resolve().parent / "kernels"


def cycles(page) -> int:
    return int(page.locator('[data-testid="bm-summary"]').get_attribute("data-cycles"))


def test_bank_map_shows_conflicts_and_how_padding_removes_them(page, server):
    open_problem(page, server)
    fig = page.locator('.figure[data-figure="bank-map"]')
    fig.scroll_into_view_if_needed()
    # It opens on the chapter's toy: 4 banks, rows of 4, column 2 -> all four lanes in bank 2.
    assert cycles(page) == 4
    assert fig.locator(".bm-cell.picked").evaluate_all("els => els.map(e => e.dataset.bank)") == ["2"] * 4
    fig.locator('[data-testid="bm-layout"]').select_option("4x5")
    assert cycles(page) == 1
    assert fig.locator(".bm-cell.picked").evaluate_all("els => els.map(e => e.dataset.bank)") == ["2", "3", "0", "1"]
    fig.locator('[data-testid="bm-layout"]').select_option("32x32")
    fig.locator('.bm-cell[data-row="5"][data-col="7"]').click()        # picks column 7
    assert fig.locator('[data-testid="bm-index"]').input_value() == "7"
    assert cycles(page) == 32
    assert "32-way bank conflict" in fig.locator('[data-testid="bm-summary"]').inner_text()
    fig.locator('[data-testid="bm-layout"]').select_option("32x33")
    assert cycles(page) == 1
    assert len(set(fig.locator(".bm-cell.picked").evaluate_all("els => els.map(e => e.dataset.bank)"))) == 32
    fig.locator('[data-testid="bm-layout"]').select_option("32x32")
    fig.locator('[data-testid="bm-mode"]').select_option("row")         # a row is always conflict-free
    assert cycles(page) == 1


def stage_counts(fig) -> dict:
    return fig.locator("[data-testid^=ts-count-]").evaluate_all(
        "els => Object.fromEntries(els.map(e => [e.dataset.testid.slice(9), +e.dataset.count]))")


def test_tile_stages_count_the_transactions_of_each_stage(page, server):
    open_problem(page, server)
    fig = page.locator('.figure[data-figure="tile-stages"]')
    fig.scroll_into_view_if_needed()
    step = fig.locator('[data-testid="ts-step"]')
    step.click()
    assert stage_counts(fig) == {"read_x": 1, "write_y_cols": 0}
    assert fig.locator('.ts-cell.ts-read[data-grid="x"]').count() == 8
    fig.locator('[data-testid="ts-stage"]').click()                     # the rest of stage 1
    fig.locator('[data-testid="ts-step"]').click()                      # first warp of stage 2
    assert stage_counts(fig) == {"read_x": 8, "write_y_cols": 8}      # one warp's column write: 8 sectors
    assert fig.locator('.ts-cell.ts-write[data-grid="y"]').evaluate_all("els => els.map(e => e.dataset.col)") == ["0"] * 8
    fig.locator('[data-testid="ts-all"]').click()
    assert stage_counts(fig) == {"read_x": 8, "write_y_cols": 64}
    assert "64 global write sectors" in fig.locator('[data-testid="ts-caption"]').inner_text()

    fig.locator('[data-testid="ts-variant"]').select_option("tiled")
    fig.locator('[data-testid="ts-all"]').click()
    assert stage_counts(fig) == {"read_x": 8, "write_tile": 8, "barrier": 0, "read_tile": 64, "write_y_rows": 8}
    fig.locator('[data-testid="ts-variant"]').select_option("padded")
    for _ in range(5):
        fig.locator('[data-testid="ts-stage"]').click()
    assert stage_counts(fig) == {"read_x": 8, "write_tile": 8, "barrier": 0, "read_tile": 8, "write_y_rows": 8}
    assert fig.locator('[data-testid="ts-total"]').inner_text() == "32"
    fig.locator('[data-testid="ts-reset"]').click()
    assert fig.locator('[data-testid="ts-total"]').inner_text() == "0"


def test_warp_lens_asks_for_a_run_then_shows_the_learners_own_warp(page, server):
    open_problem(page, server)
    fig = page.locator('.figure[data-figure="warp-lens"]')
    assert "Run the judge first" in fig.locator('[data-testid="wl-empty"]').inner_text()
    set_code(page, (KERNELS / "tiled_ok.cu").read_text())
    page.click("#run")
    page.wait_for_selector('[data-testid="verdict"][data-status="pass"]')
    options = fig.locator('[data-testid="wl-line"] option').all_inner_texts()
    assert len(options) == 2 and "global ld" in options[0] and "shared ld" in options[1]
    svg = fig.locator("svg.warp-lens")
    assert svg.get_attribute("data-sectors") == "4"                   # 32 lanes x 4 bytes, coalesced
    assert fig.locator(".wl-lane").count() == 32
    assert "4 32-byte sectors touched (4 ideal)" in fig.locator('[data-testid="wl-summary"]').inner_text()
    fig.locator('[data-testid="wl-line"]').select_option(index=1)
    assert svg.get_attribute("data-wavefronts") == "1"                # tile[32][33]: a column is conflict-free
    assert fig.locator(".wl-target").count() == 32                     # the 32 banks
    # A gutter mark in the editor opens its line in the lens.
    fig.locator('[data-testid="wl-line"]').select_option(index=0)
    line = int(page.locator('.gutter-mark').nth(1).get_attribute("data-line"))
    page.locator('.gutter-mark').nth(1).click()
    assert f"line {line}" in fig.locator('[data-testid="wl-line"] option:checked').inner_text()


def test_warp_lens_shows_a_bank_conflict(page, server):
    open_problem(page, server)
    set_code(page, (KERNELS / "tiled_ok.cu").read_text().replace("tile[TILE][TILE + 1]", "tile[TILE][TILE]"))
    page.click("#run")
    page.wait_for_selector('[data-testid="verdict"]')
    fig = page.locator('.figure[data-figure="warp-lens"]')
    fig.locator('[data-testid="wl-line"]').select_option(index=1)
    assert fig.locator("svg.warp-lens").get_attribute("data-wavefronts") == "32"
    assert "32 wavefront(s)" in fig.locator('[data-testid="wl-summary"]').inner_text()
    # The same line is flagged in the result's counter table and in the gutter.
    assert page.locator(".counters tr.worse").count() >= 1
    assert page.locator(".gutter-mark.mark-bad").count() == 1
