"""Fixtures for the browser app's end-to-end tests: a server in a subprocess on a free port, with the
learner's files in a temporary workspace, and a real headless Chromium (Debian's, driven by
Playwright from PyPI; never a browser that Playwright downloads).

UI tests use tests/web/fake_judge.py. Tests marked `real_judge` run the real judge (the simulator or
a GPU) and skip when this checkout cannot judge. Screenshots go to test-results/web/ (a failing
test's page to test-results/web/failures/).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from web_helpers import CHROMIUM, ROOT, SHOTS, Server, start_server, stop_server


def pytest_configure(config):
    config.addinivalue_line("markers", "real_judge: runs the real judge (simulator or GPU); skipped where this checkout cannot judge")
    config.addinivalue_line("markers", "browser: needs Playwright and Chromium")


@pytest.fixture(scope="session", autouse=True)
def fresh_failure_shots():
    # Failure screenshots describe this run only: drop the last run's.
    shutil.rmtree(SHOTS / "failures", ignore_errors=True)


def _missing_browser() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install playwright)"
    if not Path(CHROMIUM).exists():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    if not Path("/usr/share/javascript/codemirror/lib/codemirror.js").exists():
        return "the editor's CodeMirror is not installed (apt-get install libjs-codemirror)"
    return None


def _skip_or_fail(why: str):
    # A missing browser is a set-up that was not finished, never a reason to pass quietly.
    pytest.fail(f"{why}: run `bash practice/setup.sh --tests` (the README's test command)", pytrace=False)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A learner's checkout in miniature: the skeleton in mine/, no progress yet."""
    (tmp_path / "mine").mkdir()
    shutil.copy(ROOT / "mine" / "c3_transpose.cu", tmp_path / "mine" / "c3_transpose.cu")
    return tmp_path


@pytest.fixture
def server_env() -> dict:
    """Extra environment for the server; a test overrides this fixture to change it."""
    return {}


@pytest.fixture
def server(workspace: Path, server_env: dict):
    s = start_server(workspace, server_env)
    yield s
    stop_server(s)


@pytest.fixture(scope="session")
def browser():
    why = _missing_browser()
    if why:
        _skip_or_fail(why)
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    setattr(item, "rep_" + rep.when, rep)


@pytest.fixture
def context_options() -> dict:
    return {"viewport": {"width": 1280, "height": 800}, "locale": "en-US"}


@pytest.fixture
def page(browser, server: Server, context_options: dict, request):
    """A fresh browser profile on the server, logged in through the tokened URL; every request it
    makes is recorded (page.drills_requests), and its console errors too (page.drills_errors)."""
    context = browser.new_context(**context_options)
    pg = context.new_page()
    pg.drills_requests = []
    pg.drills_errors = []
    pg.on("request", lambda r: pg.drills_requests.append(r.url))
    pg.on("pageerror", lambda e: pg.drills_errors.append(str(e)))
    pg.on("console", lambda m: pg.drills_errors.append(m.text) if m.type == "error" else None)
    pg.set_default_timeout(15_000)
    pg.goto(server.url)
    yield pg
    failed = getattr(request.node, "rep_call", None)
    if failed is not None and failed.failed:
        (SHOTS / "failures").mkdir(parents=True, exist_ok=True)
        pg.screenshot(path=str(SHOTS / "failures" / f"{request.node.name}.png"), full_page=True)
    context.close()


