"""The two figures of G1 (problem 84), used the way a reader would: pick lanes of the mma.m16n8k16
fragments and read off what each holds; switch a tile between the plain and the XOR-swizzled layout
and watch ldmatrix's wavefronts. Each test saves a screenshot of its figure to test-results/web/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from web_helpers import ROOT, SHOTS, open_problem

pytestmark = pytest.mark.browser


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The learner's checkout in miniature, with G1's skeleton beside C3's."""
    (tmp_path / "mine").mkdir()
    for name in ("c3_transpose.cu", "g1_hgemm.cu"):
        shutil.copy(ROOT / "mine" / name, tmp_path / "mine" / name)
    return tmp_path


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": 1280, "height": 1400}, "locale": "en-US"}


def figure_shot(fig, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    fig.screenshot(path=str(path))
    return path


def test_problem_84_places_both_figures_at_their_markers(page, server):
    open_problem(page, server, 84)
    chapter = page.locator("#chapter")
    names = chapter.locator(".figure").evaluate_all("els => els.map(e => e.dataset.figure)")
    assert names == ["fragment-layout", "swizzle-bank-map"]
    assert chapter.locator(".figure .note").count() == 0                   # no "unknown figure"
    assert chapter.locator('[data-figure="fragment-layout"] .fig-title').inner_text().startswith("The mma.m16n8k16 fragments")
    assert chapter.locator('[data-figure="swizzle-bank-map"] .fig-title').inner_text().startswith("Which bank group")
    assert page.drills_errors == []


def test_fragment_layout_names_each_lanes_elements(page, server):
    open_problem(page, server, 84)
    fig = page.locator('.figure[data-figure="fragment-layout"]')
    fig.scroll_into_view_if_needed()
    summary = fig.locator('[data-testid="fl-summary"]')
    # It opens on the chapter's example, lane 5 (g = 1, t = 1).
    assert summary.get_attribute("data-lane") == "5"
    text = summary.inner_text()
    for held in ("A[1][2] → a0.lo", "A[9][3] → a1.hi", "A[1][10] → a2.lo", "B[2][1] → b0.lo", "B[11][1] → b1.hi",
                 "C[1][2] → c0", "C[9][3] → c3"):
        assert held in text, held
    # A lane holds 8 halves of A, 4 of B and 4 floats of C: 16 cells lit.
    assert fig.locator(".fl-cell.picked").count() == 16
    # The self-test's lane 13: g = 3, t = 1.
    fig.locator('[data-testid="fl-lane"]').fill("13")
    text = summary.inner_text()
    assert summary.get_attribute("data-lane") == "13"
    for held in ("A[3][2] → a0.lo", "A[11][11] → a3.hi", "B[10][3] → b1.lo", "C[11][3] → c3"):
        assert held in text, held
    # Clicking an element selects the lane that holds it: B[15][7] belongs to lane 4·7 + 3 = 31.
    fig.locator('.fl-cell[data-op="B"][data-row="15"][data-col="7"]').click()
    assert summary.get_attribute("data-lane") == "31"
    figure_shot(fig, "g1-fragment-layout-lane31")
    assert page.drills_errors == []


def test_swizzle_bank_map_counts_ldmatrix_wavefronts(page, server):
    open_problem(page, server, 84)
    fig = page.locator('.figure[data-figure="swizzle-bank-map"]')
    fig.scroll_into_view_if_needed()
    summary = fig.locator('[data-testid="sw-summary"]')
    tile, layout = fig.locator('[data-testid="sw-tile"]'), fig.locator('[data-testid="sw-layout"]')
    # A's tile, 64-byte rows, plain: the same chunk of 8 rows in 2 bank groups, 4 wavefronts.
    assert tile.input_value() == "4" and layout.input_value() == "plain"
    assert summary.get_attribute("data-wavefronts") == "4"
    figure_shot(fig, "g1-swizzle-a-plain")
    layout.select_option("xor")
    assert summary.get_attribute("data-wavefronts") == "1"
    # Under the swizzle logical chunk 0 of rows 0..7 sits in 8 different bank groups.
    groups = fig.locator('.sw-cell[data-logical="0"]').evaluate_all("els => els.map(e => e.dataset.group)")
    assert sorted(groups) == [str(g) for g in range(8)]
    figure_shot(fig, "g1-swizzle-a-xor")
    # B's tile, 256-byte rows: 8-way plain, none swizzled.
    tile.select_option("16")
    layout.select_option("plain")
    assert summary.get_attribute("data-wavefronts") == "8"
    layout.select_option("xor")
    assert summary.get_attribute("data-wavefronts") == "1"
    assert page.drills_errors == []
