"""gtestrun._one: a checker killed before its report, beside a program whose own run ended normally,
costs the pair one more run, never a pass without the checker's report (drills/pipeline/gtestrun.py)."""

from __future__ import annotations

from pathlib import Path

from drills.pipeline import execute, gtestrun


def _rows(status="pass"):
    return [{"name": "C3/T.M/naive_1x1", "status": status, "message": "", "source": "gtest"}]


def _pair_sequence(monkeypatch, answers):
    calls = []

    def fake_pair(*args, **kwargs):
        calls.append(1)
        return answers[len(calls) - 1]

    monkeypatch.setattr(gtestrun, "_pair", fake_pair)
    return calls


def _one(tmp_path: Path):
    checker = tmp_path / "c3_transpose_checker"
    checker.write_text("")
    return gtestrun._one(tmp_path / "subject", {}, gtestrun.Limits.fixed(10), (), "", (0, 1), tmp_path, None, checker)


def test_a_lost_checker_runs_the_pair_again_and_the_second_report_decides(monkeypatch, tmp_path):
    lost = execute.Run(crashed="killed by SIGKILL")
    calls = _pair_sequence(monkeypatch, [(execute.Run(tests=_rows()), lost, ""),
                                         (execute.Run(tests=_rows()), execute.Run(tests=_rows()), "")])
    run = _one(tmp_path)
    assert len(calls) == 2
    assert [t["status"] for t in run.tests] == ["pass"] and not run.channel
    assert run.checker_retried == "killed by SIGKILL"


def test_a_checker_lost_twice_is_an_untrusted_run_not_a_pass(monkeypatch, tmp_path):
    lost = execute.Run(crashed="killed by SIGKILL")
    calls = _pair_sequence(monkeypatch, [(execute.Run(tests=_rows()), lost, ""), (execute.Run(tests=_rows()), lost, "")])
    run = _one(tmp_path)
    assert len(calls) == 2
    assert run.tests == [] and "crashed" in run.channel


def test_no_second_run_when_the_program_itself_crashed(monkeypatch, tmp_path):
    lost = execute.Run(crashed="killed by SIGKILL")
    calls = _pair_sequence(monkeypatch, [(execute.Run(tests=_rows("fail"), crashed="killed by SIGSEGV"), lost, "")])
    run = _one(tmp_path)
    assert len(calls) == 1 and run.crashed == "killed by SIGSEGV"
