"""C5's figure (problem 82), used the way a reader would: read the chapter's row one element at a time,
watch the running maximum and the sum rescaled when the maximum grows, beside the sum that forgets the
rescaling; then edit the row. Saves a screenshot of the figure to test-results/web/."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from web_helpers import ROOT, SHOTS, open_problem

pytestmark = pytest.mark.browser


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The learner's checkout in miniature, with C5's skeleton beside C3's."""
    (tmp_path / "mine").mkdir()
    for name in ("c3_transpose.cu", "c5_softmax.cu"):
        shutil.copy(ROOT / "mine" / name, tmp_path / "mine" / name)
    return tmp_path


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": 1280, "height": 1400}, "locale": "en-US"}


def value(fig, testid: str) -> str:
    return fig.locator(f'[data-testid="{testid}"]').get_attribute("data-value")


def test_problem_82_updates_the_maximum_and_rescales_the_sum(page, server):
    open_problem(page, server, 82)
    chapter = page.locator("#chapter")
    assert chapter.locator(".figure").evaluate_all("els => els.map(e => e.dataset.figure)") == ["online-softmax"]
    fig = chapter.locator('[data-figure="online-softmax"]')
    assert fig.locator(".note").count() == 0                       # no "unknown figure"
    assert value(fig, "os-k") == "0 / 6" and value(fig, "os-m") == "—"
    step = fig.locator('[data-testid="os-step"]')
    step.click()                                                   # x = 1: m = 1, d = e^0
    assert (value(fig, "os-m"), value(fig, "os-d"), value(fig, "os-bad")) == ("1.0000", "1.0000", "1.0000")
    step.click()                                                   # x = 3 raises the maximum: d = 1 * e^-2 + 1
    assert (value(fig, "os-m"), value(fig, "os-d"), value(fig, "os-bad")) == ("3.0000", "1.1353", "2.0000")
    assert "multiplied by 0.1353" in fig.inner_text()
    assert fig.locator(".os-bar.raised").count() == 1
    fig.locator('[data-testid="os-all"]').click()                  # the chapter's table: d = 1.8167, 4.1097 without
    assert (value(fig, "os-m"), value(fig, "os-d"), value(fig, "os-bad")) == ("6.0000", "1.8167", "4.1097")
    assert value(fig, "os-off") == "0.4420" and step.is_disabled()
    ys = fig.locator("text.os-y").evaluate_all("els => els.map(e => Number(e.textContent))")
    assert len(ys) == 6 and abs(sum(ys) - 1) < 1e-3 and ys[3] == 0.5504
    SHOTS.mkdir(parents=True, exist_ok=True)
    fig.screenshot(path=str(SHOTS / "c5-online-softmax.png"))
    # A row whose maximum comes first never rescales: both sums agree, the outputs are not off.
    fig.locator('[data-testid="os-input"]').fill("5, 1, 2")
    fig.locator('[data-testid="os-input"]').dispatch_event("change")
    fig.locator('[data-testid="os-all"]').click()
    assert value(fig, "os-k") == "3 / 3" and value(fig, "os-d") == value(fig, "os-bad")
    assert value(fig, "os-off") == "1.0000"
    fig.locator('[data-testid="os-reset"]').click()
    assert value(fig, "os-k") == "0 / 3"
