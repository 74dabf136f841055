"""C4's figure (problem 81), used the way a reader would: pick a tile of C, walk along K, and watch
which tiles are read, the zero-filled part of the last tile, and the reuse counts against the naive
kernel. Saves a screenshot of the figure to test-results/web/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from web_helpers import ROOT, SHOTS, open_problem

pytestmark = pytest.mark.browser


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The learner's checkout in miniature, with C4's skeleton beside C3's."""
    (tmp_path / "mine").mkdir()
    for name in ("c3_transpose.cu", "c4_sgemm.cu"):
        shutil.copy(ROOT / "mine" / name, tmp_path / "mine" / name)
    return tmp_path


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": 1280, "height": 1400}, "locale": "en-US"}


def test_problem_81_walks_the_tiles_along_k(page, server):
    open_problem(page, server, 81)
    chapter = page.locator("#chapter")
    assert chapter.locator(".figure").evaluate_all("els => els.map(e => e.dataset.figure)") == ["tile-walk"]
    fig = chapter.locator('[data-figure="tile-walk"]')
    assert fig.locator(".note").count() == 0                       # no "unknown figure"
    # M = 96, N = 130, K = 70, tiles of 32: C has 3 x 5 tiles, the walk 3 steps, the last one partial.
    caption = fig.locator(".fig-caption")
    assert "Step 1 of 3" in caption.inner_text()
    assert fig.locator('[data-testid="tw-a-readers"]').inner_text() == "5"     # ceil(130 / 32) blocks
    fig.locator('[data-testid="tw-step"]').click()
    fig.locator('[data-testid="tw-step"]').click()
    assert "Step 3 of 3" in caption.inner_text() and "26 values of k outside" in caption.inner_text()
    assert fig.locator(".tw-zero-pad").count() >= 1                    # the last tile sticks out of A
    fig.locator('[data-testid="tw-reset"]').click()
    assert "Step 1 of 3" in caption.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    fig.screenshot(path=str(SHOTS / "c4-tile-walk.png"))
