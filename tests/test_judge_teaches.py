"""The judge's teaching parts without a build: per-line ideals, technique rules, the evidence behind
diagnoses, the learner's loop (reset, watch, --lang). The golden cases in test_golden_c3.py run the
same code end to end on the simulator."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from drills import cli, manifest
from drills.learner import reset, watch
from drills.pipeline import checks, counters, diagnose
from drills.pipeline.probe import Probe, ProbeRun, static_shared_bytes
from drills.pipeline.verdict import decide
from drills.manifest import Check
from drills.messages import render_result, text
from drills.result import Result

FULL = 0xFFFFFFFF


def line(n, metrics, sample=None):
    return {"file": "/abs/mine.cu", "line": n, "metrics": metrics, "sample": sample or {}}


def sample(space, op, addresses, width=4, mask=FULL):
    return {"space": space, "op": op, "bytes_per_lane": width, "active_mask": mask, "address": addresses}


G = "l1tex__t_{}_pipe_lsu_mem_global_op_{}.sum"
S_WAVES, S_INST, S_CONF = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{}.sum", "smsp__inst_executed_op_shared_{}.sum",
                           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{}.sum")


# ---- per-line report ----

def test_coalesced_and_strided_stores_against_their_ideal():
    row = sample("global", "st", [4096 + 4 * i for i in range(32)])
    v = counters.line_view(line(27, {G.format("requests", "st"): 100, G.format("sectors", "st"): 400}, row))
    assert v["per_request"] == {"global_st": 4.0} and v["ideal"] == {"global_st": 4.0}
    col = sample("global", "st", [4096 * i for i in range(32)])
    v = counters.line_view(line(19, {G.format("requests", "st"): 100, G.format("sectors", "st"): 3200}, col))
    assert v["per_request"]["global_st"] == 32.0 and v["ideal"]["global_st"] == 4.0


def test_float4_and_broadcast_ideals():
    vec = sample("global", "ld", [16 * i for i in range(32)], width=16)
    v = counters.line_view(line(1, {G.format("requests", "ld"): 10, G.format("sectors", "ld"): 160}, vec))
    assert v["ideal"]["global_ld"] == 16.0 and v["per_request"]["global_ld"] == 16.0
    same = sample("global", "ld", [64] * 32)
    v = counters.line_view(line(2, {G.format("requests", "ld"): 10, G.format("sectors", "ld"): 10}, same))
    assert v["ideal"]["global_ld"] == 1.0


def test_shared_ideal_is_wavefronts_minus_conflicts():
    m = {S_INST.format("ld"): 100, S_WAVES.format("ld"): 3200, S_CONF.format("ld"): 3100,
         S_INST.format("st"): 100, S_WAVES.format("st"): 400, S_CONF.format("st"): 0}  # float4 stores: 4 ideal
    v = counters.line_view(line(5, m))
    assert v["per_request"] == {"shared_ld": 32.0, "shared_st": 4.0}
    assert v["ideal"] == {"shared_ld": 1.0, "shared_st": 4.0}


def test_lines_without_memory_are_left_out_and_the_file_is_shown_as_the_result_shows_it():
    launch = {"kernel": "k", "mangled": "_Z1k", "metrics": {}, "lines": [
        line(3, {"smsp__inst_executed.sum": 9}),
        line(4, {G.format("requests", "ld"): 1, G.format("sectors", "ld"): 4})]}
    v = counters.launch_view(launch, "transpose_tiled", [8, 8], "mine/x.cu", "/abs/mine.cu", {"_Z1k": 4224})
    assert [l["line"] for l in v["lines"]] == [4] and v["lines"][0]["file"] == "mine/x.cu"
    assert v["static_shared_bytes"] == 4224 and v["entry"] == "transpose_tiled"


# ---- technique rules ----

def view(lines, metrics=None):
    return {"kernel": "k", "metrics": metrics or {}, "lines": lines}


def lv(n, op, per, ideal):
    return {"file": "mine.cu", "line": n, "requests": {op: 10}, "per_request": {op: per}, "ideal": {op: ideal}}


PR = Probe("transpose_tiled", {"M": 1024, "N": 2048}, ("in:M*N", "out:N*M", "M", "N"))
OK = ProbeRun(True, "", [{"errors": []}])


def check_of(id, rule, severity="fail"):
    return Check.model_validate({"id": id, "severity": severity, "title": {"zh": "t", "en": "t"},
                                 "probe": {"entry": PR.entry, "dims": PR.dims, "args": list(PR.args)}, "rule": rule})


def test_total_rule():
    check = check_of("shared-memory-used", {"total": "smsp__inst_executed_op_shared_st.sum", "at_least": 1})
    assert checks.evaluate(check, PR, OK, [view([], {"smsp__inst_executed_op_shared_st.sum": 5})])["status"] == "pass"
    assert checks.evaluate(check, PR, OK, [view([], {})])["status"] == "fail"


def test_per_line_rule_names_the_worst_line_and_says_when_there_is_no_such_access():
    check = check_of("no-bank-conflicts", {"per_line": ["shared_ld", "shared_st"], "at_most": "ideal"})
    row = checks.evaluate(check, PR, OK, [view([lv(20, "shared_st", 1.0, 1.0), lv(27, "shared_ld", 32.0, 1.0)])])
    assert row["status"] == "fail" and row["lines"][0]["line"] == 27 and "32" in text(row["message"], "en")
    assert checks.evaluate(check, PR, OK, [view([lv(20, "shared_st", 1.005, 1.0)])])["status"] == "pass"  # 1 %
    none = checks.evaluate(check, PR, OK, [view([lv(19, "global_st", 32.0, 4.0)])])
    assert none["status"] == "pass" and "no shared_ld/shared_st access" in text(none["message"], "en")
    fixed = check_of("c", {"per_line": ["global_st"], "at_most": 4})
    assert checks.evaluate(fixed, PR, OK, [view([lv(19, "global_st", 16.0, 16.0)])])["status"] == "fail"


def test_twice_the_ideal_passes_a_rule_that_allows_it():
    two_way = [view([lv(27, "shared_ld", 2.0, 1.0)])]
    assert checks.evaluate(check_of("a", {"per_line": ["shared_ld"], "ideal_times": 2}), PR, OK, two_way)["status"] == "pass"
    row = checks.evaluate(check_of("b", {"per_line": ["shared_ld"]}, "note"), PR, OK, two_way)
    assert row["status"] == "fail" and row["severity"] == "note" and row["lines"][0]["ideal"] == 1.0


def test_a_probe_that_faults_is_an_error_that_says_why():
    check = check_of("x", {"total": "m", "at_least": 1})
    bad = ProbeRun(True, "", [{"errors": [{"kind": "out-of-bounds", "message": "boom"}]}])
    row = checks.evaluate(check, PR, bad, [view([])])
    assert row["status"] == "error" and "boom" in text(row["message"], "en")


def test_the_manifest_checks_of_78_have_severities():
    problem = manifest.find(manifest.load(), 78)
    assert {c.id: c.severity for c in problem.checks} == {
        "shared-memory-used": "fail", "coalesced-stores": "fail", "no-bank-conflicts": "fail", "conflict-free": "note"}


def test_static_shared_bytes_reads_the_ptx(tmp_path):
    ptx = (b"junk\x00.shared .align 4 .b8 _ZZ1kE4tile[4224];\n.visible .entry _Z1k(\n.param .u64 p)\n{\n"
           b"mov.u32 %r1, _ZZ1kE4tile;\n}\n.entry _Z2k2(\n)\n{\nret;\n}\n")
    f = tmp_path / "lib.so"
    f.write_bytes(ptx)
    assert static_shared_bytes(f) == {"_Z1k": 4224, "_Z2k2": 0}


# ---- diagnoses from evidence ----

def counters_with_column_read(stride, shared_bytes):
    s = sample("shared", "ld", [stride * i for i in range(32)])
    return [{"entry": "transpose_tiled", "kernel": "k", "static_shared_bytes": shared_bytes,
             "lines": [{"file": "mine.cu", "line": 27, "sample": s, "requests": {"shared_ld": 10},
                        "per_request": {"shared_ld": 32.0}, "ideal": {"shared_ld": 1.0}}]}]


@pytest.mark.parametrize("shared_bytes, wrong_dimension", [(4096, False), (4224, True)])
def test_padding_in_the_wrong_dimension_from_the_sample_and_the_tile_size(shared_bytes, wrong_dimension):
    r = Result(problem=78, file="mine.cu")
    r.counters = counters_with_column_read(128, shared_bytes)
    r.checks = [{"id": "no-bank-conflicts", "status": "fail", "severity": "fail", "diagnosis": "bank-conflicts",
                 "entry": "transpose_tiled", "message": {"zh": "z", "en": "e"},
                 "lines": [{"file": "mine.cu", "line": 27, "op": "shared_ld", "per_request": 32.0, "ideal": 1.0,
                            "kernel": "k"}]}]
    diagnose.from_checks(manifest.load()[78], r)
    render_result(r, manifest.load()[78])
    d = r.diagnoses[0]
    assert d["id"] == "bank-conflicts" and d["line"] == 27 and "32-way" in d["message"]["en"]
    assert ("wrong dimension" in d["message"]["en"]) is wrong_dimension


def gtest_row(shape, status, **evidence):
    row = {"name": f"C3/Transpose.x/tiled_{shape[0]}x{shape[1]}", "status": status, "variant": "tiled",
           "shape": list(shape), "message": "", "source": "gtest"}
    if evidence:
        row["evidence"] = {k: str(v) for k, v in evidence.items()}
    return row


def judged(rows):
    r = Result(problem=78, file="mine.cu")
    r.tests = rows
    diagnose.from_runs(manifest.find(manifest.load(), 78), r, [])
    return [d["id"] for d in r.diagnoses]


def test_bounds_swapped_needs_passing_squares_and_errors_outside_the_square():
    rows = [gtest_row((32, 32), "pass"), gtest_row((1, 1), "pass"),
            gtest_row((31, 33), "fail", wrong=62, unwritten=62, outside_square=62, wrong_outside_square=62),
            gtest_row((70, 45), "fail")]  # faulted: no evidence
    assert judged(rows) == ["bounds-swapped"]
    rows[0]["status"] = "fail"
    assert judged(rows) == []
    # A wrong leading dimension also fails only non-squares, but its errors are everywhere.
    spread = [gtest_row((32, 32), "pass"),
              gtest_row((31, 33), "fail", wrong=900, unwritten=0, outside_square=62, wrong_outside_square=60)]
    assert judged(spread) == []


def test_block_index_copy_and_unwritten_patterns():
    assert judged([gtest_row((70, 45), "fail", wrong=100, unwritten=10, wrong_matching_unswapped_tiles=90)]) == \
        ["block-index-not-swapped"]
    assert judged([gtest_row((70, 45), "fail", wrong=100, unwritten=0, output_is_input_copied=1)]) == \
        ["copy-not-transpose"]
    assert judged([gtest_row((70, 45), "fail", wrong=100, unwritten=0, wrong_matching_untransposed_tiles=100)]) == \
        ["copy-not-transpose"]
    assert judged([gtest_row((70, 45), "fail", wrong=3150, unwritten=3150)]) == ["output-not-written"]


def test_sim_errors_become_named_diagnoses_in_order():
    r = Result(problem=78, file="mine/c3_transpose.cu")
    oob = {"kind": "out-of-bounds", "file": "/w/mine/c3_transpose.cu", "line": 27, "block": [1, 0, 0],
           "thread": [3, 2, 0], "allocation": "cudaMalloc #2 (388 bytes)", "offset": 3104,
           "message": "out-of-bounds global store of 4 bytes"}
    race = {"kind": "shared-race", "file": "/w/mine/c3_transpose.cu", "line": 27, "block": [0, 0, 0],
            "thread": [0, 1, 0], "detail": "thread (1,0,0) wrote it at line 20"}
    run = SimpleNamespace(sim_events=[{"event": "launch", "errors": [oob]}, {"event": "launch", "errors": [race]}],
                          timed_out=False, crashed="")
    diagnose.from_runs(manifest.find(manifest.load(), 78), r, [run])
    render_result(r, manifest.load()[78])
    assert [d["id"] for d in r.diagnoses] == ["missing-barrier", "out-of-bounds"]
    d = r.diagnoses[1]
    assert d["file"] == "mine/c3_transpose.cu" and d["line"] == 27
    assert "index 776" in d["message"]["en"] and "97 floats" in d["message"]["en"] and "output" in d["message"]["en"]
    assert "thread (3,2,0)" in d["message"]["en"]


def test_timeouts_and_host_faults_are_errors_not_wrong_answers():
    r = Result(problem=78, file="mine.cu")
    r.tests = [gtest_row((31, 33), "fail")]
    r.diagnose("timeout")
    decide(manifest.load()[78], r, [SimpleNamespace(timed_out=False, crashed="", exit_code=1, tests=r.tests)])
    assert r.status == "error"


def verdict_of(check_rows, tests=None):
    """The verdict of problem 78 with every test passing and these check rows {id: (status, severity)}."""
    r = Result(problem=78, file="mine.cu")
    r.tests = tests or [gtest_row((31, 33), "pass")]
    r.checks = [{"id": i, "status": st, "severity": sev, "message": {"zh": "z", "en": "e"}}
                for i, (st, sev) in check_rows.items()]
    decide(manifest.load()[78], r, [SimpleNamespace(timed_out=False, crashed="", exit_code=0, tests=r.tests)])
    return r.status


ALL_PASS = {"shared-memory-used": ("pass", "fail"), "coalesced-stores": ("pass", "fail"),
            "no-bank-conflicts": ("pass", "fail"), "conflict-free": ("pass", "note")}


def test_the_verdict_policy():
    assert verdict_of(ALL_PASS) == "pass"
    assert verdict_of({**ALL_PASS, "conflict-free": ("fail", "note")}) == "pass"       # a note teaches
    assert verdict_of({**ALL_PASS, "conflict-free": ("error", "note")}) == "pass"
    assert verdict_of({**ALL_PASS, "no-bank-conflicts": ("fail", "fail")}) == "fail"
    assert verdict_of({**ALL_PASS, "no-bank-conflicts": ("error", "fail")}) == "error"  # never a silent pass
    missing = dict(ALL_PASS)
    del missing["coalesced-stores"]
    assert verdict_of(missing) == "error"
    skipped = [gtest_row((31, 33), "pass"), dict(gtest_row((32, 32), "skip"), message="not run")]
    assert verdict_of(ALL_PASS, skipped) == "error"                                     # a contract case unrun


def rows_of(problem, rows):
    r = Result(problem=problem, file="mine.cu")
    r.tests = rows
    diagnose.from_runs(manifest.find(manifest.load(), problem), r, [])
    return [d["id"] for d in r.diagnoses]


def c1_row(variant, n, status="fail", **evidence):
    return {"name": f"C1/VectorAdd.x/{variant}_1x{n}", "status": status, "variant": variant, "shape": [1, n],
            "message": "", "evidence": {k: str(v) for k, v in evidence.items()}}


def test_vector_add_tail_and_guard_patterns():
    tail = [c1_row("vec4", 5, wrong=1, unwritten=1, first_wrong=4, last_wrong=4),
            c1_row("vec4_offset111", 7, wrong=2, unwritten=2, first_wrong=5, last_wrong=6)]
    assert rows_of(71, tail) == ["tail-not-written"]
    # Wrong elements in the middle are not a missing tail.
    assert rows_of(71, [c1_row("vec4", 5, wrong=1, unwritten=1, first_wrong=2, last_wrong=2)]) == []
    assert rows_of(71, [c1_row("vec4", 5, wrong=0, unwritten=0, first_wrong=-1, last_wrong=-1,
                               written_past_end=3)]) == ["written-past-end"]
    assert rows_of(71, [c1_row("one_per_thread", 97, wrong=97, unwritten=97)]) == ["output-not-written"]


def c2_row(variant, n, **evidence):
    return {"name": f"C2/FloatSum.x/{variant}_1x{n}", "status": "fail", "variant": variant, "shape": [1, n],
            "message": "", "evidence": {k: str(v) for k, v in evidence.items()}}


def test_reduction_nan_patterns():
    nan = [c2_row("sum", 5, result_is_nan=1, result="nan"), c2_row("sum_positive", 5, result_is_nan=1)]
    assert rows_of(77, nan + [c2_row("int", 5, result=41, difference=-1)]) == ["out-not-zeroed"]
    assert rows_of(77, nan + [c2_row("int", 5, result=-1, difference=-43)]) == ["result-is-nan"]
    assert rows_of(77, nan[:1] + [c2_row("sum", 7, result_is_nan=0, result="1.5")]) == []


def test_a_header_line_is_traced_to_the_learners_line_through_the_ptx(tmp_path):
    ptx = "\n".join([
        ".version 8.0", '.file\t1 "/w/mine.cu"', '.file\t2 "/cuda/include/sm_30_intrinsics.hpp"',
        ".visible .entry _Z1kv(", ")", "{", ".loc\t1 46 3", "mov.u32 %r1, 0;",
        ".loc\t1 23 3, function_name $L__info_string1, inlined_at 1 35 3",
        ".loc\t2 449 9, function_name $L__info_string2, inlined_at 1 23 3",
        "shfl.sync.bfly.b32 \t%r40|%p14, %r36, %r38, %r37, %r39;", "}"])
    lib = tmp_path / "lib.so"
    lib.write_bytes(b"\x7fELF\x00" + ptx.encode() + b"\x00")
    r = Result(problem=77, file="mine.cu")
    err = {"kind": "sync-mask", "file": "/cuda/include/sm_30_intrinsics.hpp", "line": 449, "block": [0, 0, 0],
           "thread": [0, 0, 0], "message": "member mask 0xffffffff names lanes that are not executing this instruction "
           "(0xffffff00); active 0x000000ff at sm_30_intrinsics.hpp:449, block (0,0,0) thread (0,0,0) "
           "(`shfl.sync.bfly.b32 %r40 | %p14, %r36, %r38, %r37, %r39`)"}
    run = SimpleNamespace(sim_events=[{"event": "launch", "mangled": "_Z1kv", "errors": [err]}], timed_out=False, crashed="")
    diagnose.from_runs(manifest.find(manifest.load(), 77), r, [run], [lib])
    render_result(r, manifest.load()[77])
    d = r.diagnoses[0]
    assert d["id"] == "wrong-shuffle-mask" and d["line"] == 23 and "called from line 35" in d["message"]["en"]
    # Without the binary the line stays unknown, and the message says so.
    r = Result(problem=77, file="mine.cu")
    diagnose.from_runs(manifest.find(manifest.load(), 77), r, [run])
    render_result(r, manifest.load()[77])
    assert r.diagnoses[0]["line"] == 0 and "not found" in r.diagnoses[0]["message"]["en"]


# ---- the learner's loop ----

def test_lang_is_accepted_anywhere():
    assert cli._hoist_lang(["78", "--lang", "zh", "--json"]) == (["78", "--json"], ["--lang", "zh"])
    assert cli._hoist_lang(["--lang=en", "hint", "78"]) == (["hint", "78"], ["--lang=en"])
    assert cli._hoist_lang(["sim-run", "a.cu", "--", "--lang", "x"]) == (["sim-run", "a.cu", "--", "--lang", "x"], [])


@pytest.fixture
def sandbox(tmp_path, monkeypatch):
    """reset against a learner file in tmp_path; the skeleton still comes from git."""
    mine = tmp_path / "mine" / "c3_transpose.cu"
    mine.parent.mkdir()
    problem = SimpleNamespace(mine="mine/c3_transpose.cu", path=lambda key: mine)
    monkeypatch.setattr(reset.manifest, "find", lambda problems, key: problem)
    monkeypatch.setattr(reset, "BACKUPS", tmp_path / "backups")
    return mine


def reset_args(**kw):
    return SimpleNamespace(number="78", yes=False, save_pristine=False, lang="en", **kw)


def test_reset_asks_keeps_a_backup_and_restores_the_skeleton(sandbox, monkeypatch, capsys):
    text, source = reset.skeleton_text("mine/c3_transpose.cu")
    if text is None:
        pytest.skip(f"no git skeleton here: {source}")
    sandbox.write_text("my work\n")
    monkeypatch.setattr(reset, "_ask", lambda q: False)
    assert reset.main(reset_args()) == 1 and sandbox.read_text() == "my work\n"
    monkeypatch.setattr(reset, "_ask", lambda q: True)
    assert reset.main(reset_args()) == 0
    assert sandbox.read_text() == text
    backups = list((sandbox.parent.parent / "backups").iterdir())
    assert [b.read_text() for b in backups] == ["my work\n"]
    sandbox.write_text("second try\n")
    assert reset.main(SimpleNamespace(number="78", yes=True, save_pristine=False, lang="en")) == 0
    assert len(list((sandbox.parent.parent / "backups").iterdir())) == 2
    assert reset.main(reset_args()) == 0 and "already" in capsys.readouterr().out


def test_watch_waits_for_the_file_to_settle(tmp_path):
    f = tmp_path / "k.cu"
    f.write_text("a")
    last = watch.stamp(f)
    writes = []

    def editor():
        for i in range(3):  # an editor saving in several steps
            time.sleep(0.05)
            f.write_text("b" * (i + 2))
            writes.append(time.monotonic())

    t = threading.Thread(target=editor)
    t.start()
    settled = watch.wait_for_change(f, last, debounce=0.3)
    t.join()
    assert settled == watch.stamp(f) and f.read_text() == "bbbb"
    assert time.monotonic() - writes[-1] >= 0.29


def test_watch_and_reset_are_subcommands():
    out = subprocess.run([sys.executable, "practice/judge.py", "--help"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert "watch" in out.stdout and "reset" in out.stdout
