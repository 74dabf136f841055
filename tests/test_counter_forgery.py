"""Issue 16: the technique checks' evidence cannot be forged by the learner's process.

The probe used to read the launch records the simulator wrote inside the learner's process, to a
file that process can write; now they come from the judge's replay of the process's op log in a
process of its own, on inputs the learner's process never saw (drills/pipeline/oplog_replay.py).
One C3 file carries the attacks (tests/attacks/forge_counters.inc), each making transpose_tiled's
output right so that only the checks stand between it and a pass:

  report   naive kernel for y, its launch record cut from the report; the tiled kernel ran on
           scratch. Before: pass (every check read the tiled kernel's record). Now: the replay
           counts both launches and the naive kernel's stores are not coalesced: fail.
  smuggle  y computed on the host and copied in, the tiled kernel run on scratch for its counters.
           Before: pass. Now: the replay on other inputs leaves y with the wrong answer: no pass.
  oplog    the op log overwritten with garbage: the replay refuses it: no pass.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from attack_judge import attack_file, judge_attack

ROOT = Path(__file__).resolve().parent.parent
ATTACK = ROOT / "tests" / "attacks" / "forge_counters.inc"
TILED = "void transpose_tiled(const float* x, float* y, int M, int N) {"


@pytest.fixture(scope="module")
def forger() -> Path:
    text = (ROOT / "solutions" / "c3_transpose.cu").read_text()
    assert text.count(TILED) == 1, "the reference changed: update the fixture"
    text = text.replace(TILED, TILED.replace("transpose_tiled(", "transpose_tiled_real("))
    path = attack_file(text, ATTACK, ROOT / "build" / "attacks" / "counters" / "c3_transpose.cu")
    return path


def checks(d: dict) -> dict:
    return {c["id"]: c for c in d["checks"]}


def text(message) -> str:
    return message if isinstance(message, str) else str(message)


def test_the_attack_file_without_an_attack_passes(forger):
    d, _ = judge_attack(78, forger)
    assert d["status"] == "pass", d["message"]
    assert all(c["status"] == "pass" for c in d["checks"] if c["severity"] == "fail")


def test_a_launch_record_cut_from_the_report_is_still_counted(forger):
    d, _ = judge_attack(78, forger, "report")
    assert d["status"] == "fail", d["message"]
    assert checks(d)["coalesced-stores"]["status"] == "fail"


def test_an_answer_computed_on_the_host_earns_no_technique(forger):
    d, _ = judge_attack(78, forger, "smuggle")
    assert d["status"] != "pass", d["message"]
    rows = [c for c in d["checks"] if c["severity"] == "fail"]
    assert rows and all(c["status"] == "error" for c in rows)
    assert "disagrees with the reference" in text(rows[0]["message"])


def test_a_garbage_op_log_is_refused(forger):
    d, _ = judge_attack(78, forger, "oplog")
    assert d["status"] != "pass", d["message"]
    rows = [c for c in d["checks"] if c["severity"] == "fail"]
    assert rows and all(c["status"] == "error" for c in rows)
    assert "op log" in text(rows[0]["message"])
