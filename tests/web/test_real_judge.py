"""The browser app with the real judge: `practice/judge.py serve` as the learner starts it, and Run
judging with the real judge (the simulator on a machine without a GPU).

Marked `real_judge`: skipped, with the reason, where this checkout cannot judge (the same rule as the
kernel tests in tests/conftest.py). A run builds and judges the file, so each takes tens of seconds.
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from web_helpers import ROOT, open_problem, set_code, shot, start_server, stop_server

KERNELS = Path(__file__).resolve().parent / "kernels"
JUDGE_SECONDS = 600


def test_judge_py_serve_prints_the_tokened_url_and_serves(workspace):
    # The learner's command, end to end (no browser needed): the URL line, then a page behind the token.
    server = start_server(workspace, argv=[sys.executable, str(ROOT / "practice" / "judge.py"), "serve",
                                           "--no-browser", "--port", "0"])
    try:
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(server.origin + "/", timeout=10)
        refused.value.close()
        assert refused.value.code == 401
        # The tokened URL sets a cookie and redirects to the bare path: a cookie jar follows it as a browser would.
        browser_like = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        with browser_like.open(server.url, timeout=10) as res:
            assert res.status == 200 and b'data-number="78"' in res.read()
    finally:
        stop_server(server)


@pytest.fixture
def real_server(workspace):
    from drills.pipeline.toolchain import backend_unavailable, pick_backend
    why = backend_unavailable(pick_backend("auto"))
    if why:
        pytest.skip(f"the real judge cannot run here: {why}")
    server = start_server(workspace, {"DRILLS_JUDGE_CMD": None, "DRILLS_JUDGE_TIMEOUT": str(JUDGE_SECONDS)})
    yield server
    stop_server(server)


@pytest.fixture
def real_page(browser, real_server):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    pg = context.new_page()
    pg.goto(real_server.url)
    open_problem(pg, real_server)
    yield pg
    context.close()


def run_and_wait(page) -> str:
    page.click("#run")
    page.wait_for_selector("#run:not([disabled])", timeout=JUDGE_SECONDS * 1000)
    return page.locator('[data-testid="verdict"]').get_attribute("data-status")


@pytest.mark.real_judge
@pytest.mark.browser
def test_real_judge_passes_a_correct_tiled_kernel(real_page, real_server):
    set_code(real_page, (KERNELS / "tiled_ok.cu").read_text())
    status = run_and_wait(real_page)
    shot(real_page, "real-judge-pass")
    assert status == "pass", real_page.locator("#result").inner_text()[:3000]
    assert real_server.progress()["78"]["status"] == "passed"


@pytest.mark.real_judge
@pytest.mark.browser
def test_real_judge_names_a_missing_barrier_and_marks_its_line(real_page, real_server):
    text = (KERNELS / "tiled_no_barrier.cu").read_text()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "= tile[" in ln)
    set_code(real_page, text)
    status = run_and_wait(real_page)
    shot(real_page, "real-judge-missing-barrier")
    assert status == "fail", real_page.locator("#result").inner_text()[:3000]
    diag = real_page.locator('.diagnosis[data-id="missing-barrier"]')
    assert diag.count() == 1
    assert diag.locator(".line-link").first.get_attribute("data-line") == str(line)
    assert real_page.locator(f'.gutter-mark.mark-diag[data-line="{line}"]').count() == 1
