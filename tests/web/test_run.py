"""Edit, save, Run and read the result, with the fake judge (tests/web/fake_judge.py)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from web_helpers import open_problem, set_code, shot

pytestmark = pytest.mark.browser
KERNELS = Path(__file__).resolve().parent / "kernels"


def run_and_wait(page) -> str:
    page.click("#run")
    page.wait_for_selector("#run:not([disabled])")
    return page.locator('[data-testid="verdict"]').get_attribute("data-status")


def test_edit_run_pass_with_screenshots_wide_and_narrow(page, server, browser):
    narrow = browser.new_context(viewport={"width": 420, "height": 900}, locale="en-US")
    small = narrow.new_page()
    small.goto(server.url)
    small.goto(f"{server.origin}/p/78")
    small.click('[data-tab="code"]')
    small.wait_for_selector(".CodeMirror")
    shot(small, "problem-420x900-before-run")

    open_problem(page, server)
    skeleton = server.mine().read_text()
    assert page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getValue()") == skeleton
    assert page.locator('[data-testid="no-result"]').is_visible()
    shot(page, "problem-1280x800-before-run")
    set_code(page, (KERNELS / "tiled_ok.cu").read_text())
    assert page.locator("#save-state").inner_text() == "Unsaved"
    assert run_and_wait(page) == "pass"
    page.locator('[data-testid="verdict"]').scroll_into_view_if_needed()
    shot(page, "problem-1280x800-after-run")
    # Run saved the file, keeping the previous version.
    assert server.mine().read_text() == (KERNELS / "tiled_ok.cu").read_text()
    assert server.mine().with_name("c3_transpose.cu.bak").read_text() == skeleton
    assert server.progress()["78"]["status"] == "passed"
    assert page.locator('[data-testid="tests-summary"] [data-status="pass"]').get_attribute("data-count") == "4"
    assert page.locator(".check.check-pass").count() == 2
    assert page.locator(".counters tbody tr").count() >= 2
    assert page.locator(".gutter-mark.mark-ok").count() == 2
    # After a pass the reference solution opens.
    page.click("#show-solution")
    page.wait_for_selector("#solution-text:not([hidden])")
    assert "transpose_tiled" in page.locator("#solution-text").inner_text()
    # The list now says passed.
    page.goto(server.origin + "/")
    assert page.locator('tr.problem-row[data-number="78"] .progress').inner_text() == "passed"

    # The narrow tab still holds the skeleton it loaded; reload it to get the saved file, then Run there.
    small.reload()
    small.click('[data-tab="code"]')
    assert run_and_wait(small) == "pass"
    small.locator('[data-testid="verdict"]').scroll_into_view_if_needed()
    shot(small, "problem-420x900-after-run")
    assert small.evaluate("() => document.documentElement.scrollWidth") <= 420
    narrow.close()


def test_a_missing_barrier_is_named_and_its_line_marked(page, server):
    open_problem(page, server)
    text = (KERNELS / "tiled_no_barrier.cu").read_text()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "= tile[" in ln)
    set_code(page, text)
    assert run_and_wait(page) == "fail"
    diag = page.locator('.diagnosis[data-id="missing-barrier"]')
    assert "Shared-memory race" in diag.inner_text()
    link = diag.locator(".line-link").first
    assert link.get_attribute("data-line") == str(line)
    assert page.locator(f'.gutter-mark.mark-diag[data-line="{line}"]').count() == 1
    assert page.locator(".CodeMirror .diag-line").count() == 1
    link.click()
    assert page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getCursor().line") == line - 1
    assert server.progress()["78"]["status"] == "tried"
    shot(page, "problem-1280x800-diagnosis")
    # The last result is kept on disk: a reload (or a restarted server) shows it again, marks included.
    page.reload()
    page.wait_for_selector(f'.gutter-mark.mark-diag[data-line="{line}"]')
    # The diagnosis follows the language toggle.
    page.click("#lang-toggle")
    assert "共享内存竞争" in diag.inner_text()


def test_ctrl_s_saves_the_learners_file(page, server):
    open_problem(page, server)
    page.locator(".CodeMirror").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\n// my note\n")
    # CodeMirror reads typed text from its hidden textarea a moment later: save once it has it.
    page.wait_for_function("() => document.querySelector('.CodeMirror').CodeMirror.getValue().endsWith('// my note\\n')")
    page.keyboard.press("Control+s")
    page.wait_for_function("() => document.getElementById('save-state').textContent === 'Saved'", timeout=30_000)
    assert server.mine().read_text().endswith("// my note\n")


def test_a_second_run_of_the_same_problem_waits_its_turn(page, server):
    open_problem(page, server)
    set_code(page, "// fake-judge: sleep 3\n")
    page.click("#run")
    page.wait_for_function("() => document.getElementById('run').disabled")
    # The server saves, then starts the judge: once the file is saved the first run is (all but) under way.
    deadline = time.monotonic() + 10
    while "sleep 3" not in server.mine().read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    time.sleep(0.3)
    status = page.evaluate("""() => fetch('/api/run', {method: 'POST', headers: {'Content-Type': 'application/json',
        'X-Drills-Token': Drills.boot.token}, body: JSON.stringify({problem: 78})}).then(r => r.status)""")
    assert status == 409
    page.wait_for_selector("#run:not([disabled])", timeout=20_000)


def test_a_judge_that_answers_nonsense_shows_an_error_with_the_log(page, server):
    open_problem(page, server)
    set_code(page, "// fake-judge: garbage\n")
    assert run_and_wait(page) == "error"
    assert page.locator("details.log[open] pre").inner_text().startswith("this is not JSON")


@pytest.mark.parametrize("server_env", [{"DRILLS_JUDGE_TIMEOUT": "2"}])
def test_a_judge_past_its_time_limit_is_stopped(page, server):
    open_problem(page, server)
    set_code(page, "// fake-judge: sleep 60\n")
    assert run_and_wait(page) == "error"
    assert "time limit" in page.locator('[data-testid="verdict"]').inner_text()


def test_a_file_changed_on_disk_is_never_overwritten_silently(page, server):
    open_problem(page, server)
    server.mine().write_text("// edited in another editor\n")
    set_code(page, "// edited in the browser\n")
    page.click("#save")
    page.wait_for_selector("#conflict:not([hidden])")
    assert server.mine().read_text() == "// edited in another editor\n"
    page.click('[data-testid="conflict-load"]')
    assert page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getValue()") == "// edited in another editor\n"

    set_code(page, "// edited in the browser again\n")
    server.mine().write_text("// and on disk again\n")
    page.click("#run")
    page.wait_for_selector("#conflict:not([hidden])")
    page.click('[data-testid="conflict-keep"]')
    page.wait_for_selector('[data-testid="verdict"]')
    assert server.mine().read_text() == "// edited in the browser again\n"
    assert server.mine().with_name("c3_transpose.cu.bak").read_text() == "// and on disk again\n"


def test_a_gpu_result_shows_its_timings_and_the_lens_says_why_it_is_empty(page, server):
    open_problem(page, server)
    set_code(page, (KERNELS / "tiled_ok.cu").read_text() + "// fake-judge: gpu\n")
    assert run_and_wait(page) == "pass"
    assert "NVIDIA H200" in page.locator('[data-testid="verdict"]').inner_text()
    rows = page.locator("table.perf tbody tr")
    assert rows.count() == 2 and "88.5%" in rows.nth(1).inner_text()
    assert page.locator("table.counters").count() == 0
    lens = page.locator('.figure[data-figure="warp-lens"] [data-testid="wl-empty"]')
    assert "no per-line samples" in lens.inner_text()
