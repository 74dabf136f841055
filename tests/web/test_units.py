"""The server's small parts, without a browser: chapter rendering, saving, progress, running the judge."""

from __future__ import annotations

import json
import re
import sys
import threading
import time
from pathlib import Path

import pytest

from drills import ROOT, manifest

from drills.learner import progress
from drills.web import chapter, learner_file
from drills.web import judge_runner
from drills.web.judge_runner import Busy, JudgeRunner

HERE = Path(__file__).resolve().parent


def test_figures_go_where_the_markers_are():
    text = "# T\n\nbefore\n\n<!-- figure: bank-map -->\n\nmiddle\n<!-- figure: tile-stages -->\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    html, placed = chapter.render(text)
    assert placed == ["bank-map", "tile-stages"]
    assert html.index("before") < html.index('data-figure="bank-map"') < html.index("middle") < html.index('data-figure="tile-stages"')
    assert "<table>" in html


def test_a_marker_inside_a_code_block_is_text():
    html, placed = chapter.render("```html\n<!-- figure: bank-map -->\n```\n")
    assert placed == [] and "&lt;!-- figure: bank-map --&gt;" in html


def test_math_is_kept_for_katex_and_not_mangled_by_markdown():
    html, _ = chapter.render("time $t_i * s_j$ and\n\n$$\na < b\n$$\n")
    assert '<span class="math" data-display="0">t_i * s_j</span>' in html
    assert '<div class="math" data-display="1">\na &lt; b\n</div>' in html


@pytest.mark.parametrize("number", sorted(manifest.load()))
def test_each_chapter_places_the_figures_its_manifest_entry_declares(number):
    p = manifest.load()[number]
    _, placed = chapter.render_file(ROOT / p.content)
    assert sorted(placed) == sorted(p.figures), f"{p.content} places {placed}, the manifest declares {p.figures}"


def test_every_declared_figure_is_registered_by_a_script_the_page_loads():
    static = ROOT / "drills" / "web" / "static"
    template = (ROOT / "drills" / "web" / "templates" / "problem.html").read_text()
    scripts = [static / m for m in re.findall(r"filename='(figures/[a-z_]+\.js)'", template)]
    registered = {m for f in scripts for m in re.findall(r'D\.figures\["([a-z-]+)"\]', f.read_text())}
    declared = {f for p in manifest.load().values() for f in p.figures}
    assert declared <= registered, f"figures without a drawing script: {declared - registered}"


def test_save_is_atomic_and_keeps_a_backup(tmp_path):
    f = tmp_path / "mine" / "k.cu"
    assert learner_file.save(f, "one\n") is True
    assert not (tmp_path / "mine" / "k.cu.bak").exists()
    assert learner_file.save(f, "two\n") is True
    assert f.read_text() == "two\n" and (tmp_path / "mine" / "k.cu.bak").read_text() == "one\n"
    assert learner_file.save(f, "two\n") is False          # unchanged: the backup stays the last real change
    assert (tmp_path / "mine" / "k.cu.bak").read_text() == "one\n"
    assert sorted(p.name for p in f.parent.iterdir()) == ["k.cu", "k.cu.bak"]  # no temp files left


def test_progress_pass_is_never_undone_by_a_later_failure(tmp_path):
    path = tmp_path / "p.json"
    assert progress.load(path) == {}
    assert progress.record(78, "fail", path)["status"] == "tried"
    assert progress.record(78, "pass", path)["status"] == "passed"
    assert progress.record(78, "error", path)["status"] == "passed"
    assert json.loads(path.read_text())["78"]["status"] == "passed"


def test_progress_hints_count_up_to_the_last(tmp_path):
    path = tmp_path / "p.json"
    assert [progress.next_hint(78, 3, path) for _ in range(5)] == [0, 1, 2, 2, 2]
    progress.record(78, "fail", path)
    assert progress.load(path)["78"]["hints"] == 3


def test_a_corrupt_progress_file_reads_as_empty(tmp_path):
    path = tmp_path / "p.json"
    path.write_text("{not json")
    assert progress.load(path) == {}
    progress.record(78, "pass", path)
    assert progress.load(path)["78"]["status"] == "passed"


@pytest.fixture
def fake_judge(monkeypatch):
    monkeypatch.setenv("DRILLS_JUDGE_CMD", json.dumps([sys.executable, str(HERE / "fake_judge.py")]))


def test_runner_returns_the_judges_result(fake_judge, tmp_path):
    f = tmp_path / "c3_transpose.cu"
    f.write_text((HERE / "kernels" / "tiled_ok.cu").read_text())
    r = JudgeRunner().run(78, f, "mine/c3_transpose.cu")
    assert r["status"] == "pass" and r["counters"]


def test_runner_turns_garbage_into_an_error_result(fake_judge, tmp_path):
    f = tmp_path / "c3_transpose.cu"
    f.write_text("// fake-judge: garbage\n")
    r = JudgeRunner().run(78, f, "mine/c3_transpose.cu")
    assert r["status"] == "error" and "not JSON" in r["log"]
    assert r["message"]["en"].startswith("The judge gave no result")


def test_runner_stops_a_judge_past_its_time_limit(fake_judge, monkeypatch, tmp_path):
    monkeypatch.setenv("DRILLS_JUDGE_TIMEOUT", "1")
    f = tmp_path / "c3_transpose.cu"
    f.write_text("// fake-judge: sleep 30\n")
    started = time.monotonic()
    r = JudgeRunner().run(78, f, "mine/c3_transpose.cu")
    assert time.monotonic() - started < 10
    assert r["status"] == "error" and [d["id"] for d in r["diagnoses"]] == ["timeout"]


def test_runner_runs_one_judge_at_a_time_per_problem(fake_judge, tmp_path):
    f = tmp_path / "c3_transpose.cu"
    f.write_text("// fake-judge: sleep 2\n")
    runner = JudgeRunner()
    first = threading.Thread(target=runner.run, args=(78, f, "x"))
    first.start()
    time.sleep(0.5)
    with pytest.raises(Busy):
        runner.run(78, f, "x")
    first.join()
    assert runner.run(78, f, "x")["status"] == "fail"  # free again once the first run ended


def test_runner_reports_a_missing_judge(monkeypatch, tmp_path):
    monkeypatch.setenv("DRILLS_JUDGE_CMD", json.dumps([str(tmp_path / "no-such-judge")]))
    r = JudgeRunner().run(78, tmp_path / "f.cu", "f.cu")
    assert r["status"] == "error" and "Cannot start the judge" in r["message"]["en"]


def test_default_judge_command_is_the_cli(monkeypatch):
    monkeypatch.delenv("DRILLS_JUDGE_CMD", raising=False)
    assert judge_runner.judge_command() == [sys.executable, str(ROOT / "practice" / "judge.py")]


def test_serve_says_so_when_the_port_is_taken(capsys):
    import socket
    from drills.web.server import serve
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert serve(taken.getsockname()[1], open_browser=False) == 2
    assert "cannot listen" in capsys.readouterr().err


def test_the_last_result_is_kept_beside_the_progress(tmp_path):
    path = tmp_path / "practice" / ".progress.json"
    assert progress.load_last_result(78, path) is None
    progress.save_last_result(78, {"status": "pass"}, path)
    assert progress.load_last_result(78, path) == {"status": "pass"}
    assert progress.last_result_path(78, path).name.startswith(".progress")  # ignored by git with the progress file


@pytest.mark.parametrize("text", ["__shared__ float tile[32][33];\n__syncthreads();\ny = tile[1];",
                                  "__shared__ float tile[32][32];\ny = tile[1];", "// TODO"])
def test_the_fake_judges_results_follow_the_published_schema(text):
    # The UI tests run on these canned results: they must look like the real judge's.
    import fake_judge
    from result_schema import assert_valid_result
    r = fake_judge.result(78, "mine/c3_transpose.cu", text)
    assert_valid_result(r)
    assert_valid_result(fake_judge.on_gpu(r))


def test_a_region_marker_names_the_code_it_quotes():
    html, _ = chapter.render("<!-- region: solutions/c3_transpose.cu#naive-kernel -->\n```cuda\nint x;\n```\n")
    assert '<code class="region-file">solutions/c3_transpose.cu</code>' in html
    assert '<span class="region-name">#naive-kernel</span>' in html
