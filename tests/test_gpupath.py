"""Issue 10: the GPU backend's machinery, tested without a GPU.

The watchdog against a program that hangs in a case (a stand-in test program, so the test needs no
build); the replay's findings and the verdict they give a run the GPU passed; the race advice by
case; the learner's view of the tests; the shared build's reuse of an unchanged file.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import sys
import time

import pytest
from rich.console import Console

from drills import ROOT, manifest
from drills.messages import render_result, say
from drills.pipeline import gtestrun, render, replay, verdict
from drills.pipeline.diagnose import race_case
from drills.pipeline.execute import Run
from drills.pipeline.toolchain import backend_unavailable
from drills.result import Result

C3 = manifest.find(manifest.load(), "c3_transpose")


# ---- the watchdog (gtestrun.py) ----

def _fake_gtest(tmp_path, body: str):
    """A 'test program' that speaks GoogleTest's progress lines, then does `body` (shell)."""
    prog = tmp_path / "fake_test"
    prog.write_text("#!/bin/sh\n" + body + "\n")
    prog.chmod(prog.stat().st_mode | stat.S_IEXEC)
    return prog


def test_a_case_that_never_ends_is_stopped_and_named(tmp_path):
    marker = tmp_path / "child-alive"
    prog = _fake_gtest(tmp_path, f"""
echo '[ RUN      ] C3/Transpose.MatchesHostReference/naive_31x33'
echo '[       OK ] C3/Transpose.MatchesHostReference/naive_31x33 (1 ms)'
echo '[ RUN      ] C3/Transpose.MatchesHostReference/tiled_31x33'
(sleep 30; touch {marker}) &
sleep 30""")
    started = time.monotonic()
    run = gtestrun.run(prog, dict(os.environ), gtestrun.Limits(per_case=1.0, total=20.0))
    elapsed = time.monotonic() - started
    assert run.timed_out and elapsed < 5, (run.stopped, elapsed)
    assert run.running == "C3/Transpose.MatchesHostReference/tiled_31x33"
    assert run.stopped == "stopped after 1 s"
    time.sleep(0.5)
    # the whole process group went: the background child never got to touch its marker
    assert not marker.exists()


def test_a_crash_names_the_case_it_was_in(tmp_path):
    prog = _fake_gtest(tmp_path, """
echo '[ RUN      ] C3/Transpose.MatchesHostReference/naive_1x1'
kill -SEGV $$""")
    run = gtestrun.run(prog, dict(os.environ), gtestrun.Limits.fixed(20))
    assert run.crashed == "killed by SIGSEGV" and not run.timed_out
    assert run.running == "C3/Transpose.MatchesHostReference/naive_1x1"


def test_a_slow_run_without_a_hung_case_is_stopped_by_the_total_limit(tmp_path):
    prog = _fake_gtest(tmp_path, """
i=0; while [ $i -lt 100 ]; do echo "[ RUN      ] S.c$i"; sleep 0.2; echo "[       OK ] S.c$i (200 ms)"; i=$((i+1)); done""")
    run = gtestrun.run(prog, dict(os.environ), gtestrun.Limits(per_case=5, total=1.5))
    assert run.timed_out and run.stopped == "the whole run was stopped after 2 s", run.stopped


def test_limits_scale_to_the_reference_and_never_drop_under_ten_seconds():
    assert gtestrun.Limits.scaled({"total": 4.0, "slowest_case": 0.3}, 300) == gtestrun.Limits(per_case=10.0, total=40.0)
    assert gtestrun.Limits.scaled({"total": 0.5, "slowest_case": 2.5}, 300) == gtestrun.Limits(per_case=25.0, total=10.0)
    assert gtestrun.Limits.scaled(None, 300) == gtestrun.Limits(per_case=300, total=300)


def test_each_case_is_held_to_ten_times_the_same_case_of_the_reference(tmp_path):
    """A hang in a small case ends after 10 s even when the reference's slowest case takes 4.5 s
    (the H200 run of 2026-12-02 stopped a spin in tiled_1x97 only after 45 s)."""
    ref = {"total": 20.0, "slowest_case": 4.5,
           "case_seconds": {"C3/T.M/tiled_1x97": 0.01, "C3/T.M/tiled_8192x8192": 4.5}}
    limits = gtestrun.Limits.scaled(ref, 300)
    assert limits.for_case("C3/T.M/tiled_1x97") == 10.0
    assert limits.for_case("C3/T.M/tiled_8192x8192") == 45.0
    assert limits.for_case("C3/T.M/a_case_the_reference_lacks") == 45.0
    limits.extra = 60.0  # the simulator's watchdog speaks first
    assert limits.for_case("C3/T.M/tiled_1x97") == 70.0
    prog = _fake_gtest(tmp_path, """
echo '[ RUN      ] S.fast'
sleep 30""")
    run = gtestrun.run(prog, dict(os.environ), gtestrun.Limits(per_case=20.0, total=20.0, cases={"S.fast": 1.0}))
    assert run.timed_out and run.stopped == "stopped after 1 s" and run.running == "S.fast"


def test_sharded_runs_merge_into_one():
    a = Run(tests=[{"name": "b"}, {"name": "d"}], seconds=1.0, case_seconds={"b": 0.5})
    b = Run(tests=[{"name": "a"}], timed_out=True, running="X.y", stopped="why", seconds=2.0)
    m = gtestrun.merge([a, b])
    # each shard runs consecutive cases of the program's order (gtestrun._split): end to end, that order
    assert [t["name"] for t in m.tests] == ["b", "d", "a"] and m.timed_out and m.running == "X.y" and m.seconds == 2.0


# ---- the replay (replay.py) and the verdict ----

def _race_event(line=27, other=20):
    return {"event": "launch", "kernel": "k", "mangled": "_Z1k", "errors": [{
        "kind": "shared-race", "file": "mine/x.cu", "line": line, "block": [0, 0, 0], "thread": [1, 0, 0],
        "message": "shared-memory race", "detail": f"thread (5,1,0) (warp 1) wrote it at line {other}"}]}


def _gpu_result(status_of_tests="pass") -> Result:
    r = Result(problem=C3.number, file="mine/x.cu", backend={"kind": "gpu", "device": "H200"})
    r.tests = [{"name": "C3/Transpose.MatchesHostReference/tiled_31x33", "status": status_of_tests, "message": "",
                "source": "gtest", "variant": "tiled", "shape": [31, 33]},
               {"name": "C3/Transpose.MatchesHostReference/naive_31x33", "status": "pass", "message": "",
                "source": "gtest", "variant": "naive", "shape": [31, 33]}]
    r.checks = [{"id": c.id, "status": "pass", "severity": c.severity, "message": say("check.not-measured", why="-")}
                for c in C3.checks]
    return r


def test_a_defect_the_gpu_did_not_show_fails_the_verdict_and_says_it_came_from_a_replay():
    sim_run = Run(sim_events=[_race_event()], tests=[{"name": "C3/T.tiled_31x33", "status": "fail"}])
    found = replay.findings(C3, "mine/x.cu", [sim_run], ())
    assert [d["id"] for d in found] == ["missing-barrier"] and found[0]["replay"]["tool"] == "simulator"
    r = _gpu_result("pass")
    replay.attach(C3, r, found, [Run()])
    verdict.decide(C3, r, [Run()])
    render_result(r, C3)
    assert r.status == "fail", r.message
    assert "replaying" in r.message["en"] and "line 27" in r.message["en"]
    assert "重放" in r.message["zh"]


def test_the_gpus_hang_keeps_its_case_and_takes_the_replays_line():
    gpu = Run(timed_out=True, running="C3/Transpose.MatchesHostReference/tiled_8192x8192",
              stopped="stopped after 10 s", stopped_after=10.0)
    r = _gpu_result("pass")
    r.diagnose("timeout")
    replay.gpu_stop_diagnosis(r, [gpu])
    sim = Run(sim_events=[{"event": "launch", "kernel": "transpose_tiled_kernel(float const*, float*, int, int)",
                           "errors": [{"kind": "watchdog", "file": "mine/x.cu", "line": 19,
                                                           "block": [0, 0, 0], "thread": [0, 0, 0]}]}], running="")
    replay.attach(C3, r, replay.findings(C3, "mine/x.cu", [sim], ()), [gpu])
    render_result(r, C3)
    (d,) = [d for d in r.diagnoses if d["id"] == "timeout"]
    assert d["line"] == 19 and d["replay"]
    assert "tiled_8192x8192" in d["message"]["en"] and "line 19" in d["message"]["en"]
    assert "stopped after 10 s" in d["message"]["en"] and "10 秒后被停止" in d["message"]["zh"]
    assert "kernel transpose_tiled_kernel never finished" in d["message"]["en"]


def test_a_host_loop_that_never_ends_on_the_gpu_is_the_host_codes_not_a_kernels():
    """Issue 16: the GPU's watchdog cannot tell a kernel from host code; the simulator's replay of
    the case can (its watchdog stops every launch): it ran past its limit with no launch stopped."""
    case = "C3/Transpose.MatchesHostReference/tiled_8192x8192"
    gpu = Run(timed_out=True, running=case, stopped="stopped after 12 s", stopped_after=12.0)
    r = _gpu_result("pass")
    r.diagnose("timeout")
    replay.gpu_stop_diagnosis(r, [gpu])
    kernel_hang = Run(timed_out=True, running="C3/Transpose.MatchesHostReference/tiled_31x33",
                      sim_events=[{"event": "launch", "errors": [{"kind": "watchdog", "line": 19}]}])
    replay.host_code_stop(C3, r, [gpu], [kernel_hang])
    assert "host code" not in say_en(r)  # the kernel's hang stays the kernel's
    host_hang = Run(timed_out=True, running="C3/Transpose.MatchesHostReference/tiled_31x33", stopped="stopped after 60 s",
                    sim_events=[{"event": "launch", "errors": []}])
    replay.host_code_stop(C3, r, [gpu], [host_hang])
    render_result(r, C3)
    (d,) = [d for d in r.diagnoses if d["id"] == "timeout"]
    assert "the host code did not finish" in d["message"]["en"] and "主机代码" in d["message"]["zh"]
    assert "tiled_8192x8192" in d["message"]["en"] and "12 s" in d["message"]["en"]
    other = Run(timed_out=True, running="C3/Transpose.MatchesHostReference/naive_31x33")  # another variant's
    r2 = _gpu_result("pass")
    r2.diagnose("timeout")
    replay.gpu_stop_diagnosis(r2, [gpu])
    replay.host_code_stop(C3, r2, [gpu], [other])
    assert "host code" not in say_en(r2)


def say_en(r) -> str:
    render_result(r, C3)
    return " ".join(d["message"]["en"] for d in r.diagnoses)


def test_a_gpu_only_shape_is_replayed_at_the_public_shapes():
    assert replay.public_filter(C3, "C3/Transpose.MatchesHostReference/tiled_8192x8192") == \
        "C3/Transpose.MatchesHostReference/tiled_*"
    assert replay.public_filter(C3, "C3/Transpose.MatchesHostReference/tiled_31x33") == \
        "C3/Transpose.MatchesHostReference/tiled_31x33"


# ---- the race advice fits the case ----

def test_race_across_loop_iterations_with_a_barrier_between_asks_for_one_at_the_loop_end():
    # write the tile at 20, barrier at 21, read it at 24; the next iteration's write races the read
    assert race_case(line=20, other=24, barriers=[21]) == ("loop-end", 21)


def test_barrier_before_the_tile_is_filled_gets_its_own_advice():
    # barrier at 18, fill at 20, read at 24 with nothing between
    assert race_case(line=24, other=20, barriers=[18]) == ("too-early", 18)


def test_no_barrier_at_all_is_the_plain_missing_barrier():
    assert race_case(line=27, other=20, barriers=[]) == ("", 0)
    assert race_case(line=20, other=24, barriers=[]) == ("", 0)


def test_the_loop_end_message_names_both_lines_and_where_the_barrier_goes():
    r = Result(problem=C3.number, file="mine/x.cu")
    r.diagnose("missing-barrier", key="diagnosis.missing-barrier-loop-end", file="mine/x.cu", line=20, other=24,
               barrier=21, where="block (0,0,0) thread (1,0,0)", detail="...", what="shared memory")
    render_result(r, C3)
    en = r.diagnoses[0]["message"]["en"]
    assert "end of the loop body" in en and "line 24" in en and "line 21" in en
    assert "循环体末尾" in r.diagnoses[0]["message"]["zh"]


# ---- the learner's view ----

def _table_result():
    tests = [{"name": f"C3/T.{v}_{s}", "status": "pass", "message": "", "source": "gtest", "variant": v}
             for v in ("naive", "tiled") for s in range(19)]
    tests += [{"name": f"C3/T.{v}_{s}", "status": "skip", "message": "skipped", "source": "gtest", "variant": v,
               "absent": True} for v in ("tiled_unpadded", "tiled_swizzled", "fast") for s in range(23)]
    variants = [{"name": n, "shape": [8192, 8192], "ms": 1.0, "gbps": 3000.0, "pct_copy_kernel": 80.0,
                 "pct_memcpy": 75.0, "vs_torch": 1.01}
                for n in ("transpose_naive", "transpose_tiled", "transpose_tiled_unpadded", "transpose_tiled_swizzled")]
    perf = {"shapes": [{"shape": [8192, 8192], "memcpy_gbps": 4000.0, "copy_kernel_gbps": 3800.0, "torch_op": "x.t().contiguous()",
                        "torch_gbps": 3000.0}], "variants": variants}
    r = {"status": "pass", "problem": 78, "file": "mine/c3_transpose.cu", "backend": {"kind": "gpu", "device": "NVIDIA H200"},
         "message": {"en": "Pass", "zh": "通过"}, "tests": tests, "checks": [], "diagnoses": [], "counters": [],
         "perf": perf, "timings": {"build": 0.4, "tests": 2.0, "total": 4.1}}
    return r


def test_the_summary_counts_the_learners_tests_not_the_references_variants():
    out = io.StringIO()
    render.render(_table_result(), "en", Console(file=out, width=100, highlight=False, color_system=None))
    text = out.getvalue()
    assert "38/38 tests passed" in text and "skipped" not in text and "69" not in text


def test_tables_fit_100_columns_and_never_cut_a_variant_name():
    out = io.StringIO()
    render.render(_table_result(), "en", Console(file=out, width=100, highlight=False, color_system=None), verbose=True)
    lines = out.getvalue().splitlines()
    assert max(len(l) for l in lines) <= 100
    for name in ("transpose_tiled_unpadded", "transpose_tiled_swizzled", "cudaMemcpy D2D"):
        assert any(name in l for l in lines), name
    assert not any("…" in l for l in lines)
    assert any("Where the time went" in l for l in lines)


def test_output_that_is_not_a_terminal_is_laid_out_for_100_columns(monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False)
    assert render.console().width == 100


# ---- the shared build: a file judged again compiles nothing ----

@pytest.mark.skipif(bool(backend_unavailable("sim") or not shutil.which("nvcc")), reason="needs nvcc and the simulator")
def test_a_new_path_costs_one_compile_and_an_unchanged_file_none(tmp_path):
    from drills.pipeline import build
    f = tmp_path / "attempt.cu"
    shutil.copy(ROOT / "tests" / "golden" / "c3" / "base.cu", f)
    subject = build.subject_for(C3, f, "sim")
    assert subject.swap and subject.build_dir.parent.name == "sim-files"
    shutil.rmtree(subject.build_dir, ignore_errors=True)
    first = build.build(subject)
    assert first.ok, first.log[-2000:]
    again = build.build(subject)
    assert again.ok and again.log == "up to date"
    f.write_text(f.read_text() + "\n// a second attempt\n")
    third = build.build(subject)
    assert third.ok and third.log != "up to date"
    f.write_text(f.read_text().replace("__syncthreads();", "__syncthreads()"))  # a compile error
    broken = build.build(subject)
    assert not broken.ok and broken.errors and not subject.test_binary.exists()


# ---- benchmarks/h200/gpupath.sh's case list (GPUPATH_CASES) ----

def _gpupath_run():
    sys.path.insert(0, str(ROOT / "benchmarks" / "h200"))
    import gpupath_run
    return gpupath_run


def test_gpupath_cases_names_golden_and_gpu_only_cases_and_refuses_others():
    g = _gpupath_run()
    chapters = {ch: p for ch, p in g.problems_by_chapter().items() if (g.GOLDEN / ch).is_dir()}
    assert g.chosen_cases("c4/output-not-written, g1/output-not-written c4/output-not-written", chapters) == [
        ("c4", "output-not-written"), ("g1", "output-not-written")]
    assert ("c5", "rows-as-blocks-in-y") in g.gpu_only_cases(chapters)
    assert g.chosen_cases("c5/rows-as-blocks-in-y", chapters) == [("c5", "rows-as-blocks-in-y")]
    assert g.case_folder("c5", "rows-as-blocks-in-y").parent.parent == g.GPU_ONLY
    with pytest.raises(SystemExit, match="c4/no-such-case"):
        g.chosen_cases("c4/no-such-case", chapters)


def test_gpupath_tables_count_gpu_only_cases_on_their_own_line(tmp_path):
    g = _gpupath_run()
    row = lambda case, same, **more: {"case": case, "expected": {"status": "fail", "diagnoses": ["x"]},  # noqa: E731
                                      "got": {"status": "fail", "diagnoses": ["x"]}, "replayed": [], "wall": 1.0,
                                      "same": same, **more}
    g.write_tables(tmp_path, "gpu", {}, [row("c4/a", True), row("c4/b", False),
                                         row("c5/c", True, gpu_only={"sim": {"status": "pass", "diagnoses": []}})])
    text = (tmp_path / "parity.md").read_text()
    assert text.startswith("1 of 2 golden cases judged on gpu")
    assert "GPU-only cases (a mistake only a shape the simulator never runs shows): 1 of 1 as expected" in text
    assert "c5/c (GPU-only: expected is the GPU's answer)" in text
