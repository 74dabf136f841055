"""Issue 10, item 6: the GPU backend gives the same verdict and the same diagnosis ids as the
simulator, tested without a GPU.

On the H200 (2026-12-02, main ec3d595) 58 of 65 golden cases agreed; these tests hold the rules that
make the other seven agree: the replay attaches every root cause the simulator finds (the cp.async
read before its wait was dropped).
"""

from __future__ import annotations

from drills import manifest
from drills.messages import render_result, say
from drills.pipeline import replay, verdict
from drills.pipeline.execute import Run
from drills.result import Result

G1 = manifest.find(manifest.load(), "g1_hgemm")


def _cp_async_event(line=44, copy_line=30):
    """What the simulator reports for a read of a cp.async destination before its group landed."""
    return {"event": "launch", "kernel": "hgemm_fast_kernel", "mangled": "_Z17hgemm_fast_kernel", "errors": [{
        "kind": "shared-race", "file": "mine/g1.cu", "line": line, "block": [0, 0, 0], "thread": [0, 0, 0],
        "message": "shared-memory race on sA: this load by warp 0 touches it before the cp.async ...",
        "detail": f"the cp.async at line {copy_line} by thread (5,0,0) (warp 0) has not landed"}]}


def _row(name, status="pass", **extra):
    variant, dims = name.rsplit("/", 1)[-1].rsplit("_", 1)
    return {"name": f"G1/Hgemm.MatchesHostReference/{name}", "status": status, "message": "", "source": "gtest",
            "variant": variant, "shape": [int(d) for d in dims.split("x")], **extra}


def test_the_replay_attaches_a_cp_async_read_before_its_wait_and_the_gpu_run_fails_with_its_id():
    # The H200 failed only three GPU-only shapes of hgemm_fast (the public ones passed: the copies had
    # landed in time), and gave `fail` with no id: the replay had seen the race and dropped it.
    sim_run = Run(sim_events=[_cp_async_event()], tests=[_row("fast_16x16x16", "fail", message="cudaErrorLaunchFailure")])
    found = replay.findings(G1, "mine/g1.cu", [sim_run], ())
    assert [d["id"] for d in found] == ["cp-async-read-before-wait"]
    assert found[0]["line"] == 44 and found[0]["replay"]["tool"] == "simulator"

    r = Result(problem=G1.number, file="mine/g1.cu", backend={"kind": "gpu", "device": "H200"})
    r.tests = [_row("fast_16x16x16"), _row("fast_1040x2064x8192", "fail"), _row("fast_4096x4096x4096", "fail")]
    replay.attach(G1, r, found, [Run()])
    verdict.decide(G1, r, [Run()])
    render_result(r, G1)
    assert r.status == "fail" and [d["id"] for d in r.diagnoses] == ["cp-async-read-before-wait"]
    assert "Line 44" in r.message["en"] and "line 30" in r.message["en"] and "重放" in r.message["zh"]


def test_a_cp_async_race_alone_fails_a_file_the_gpu_passed():
    sim_run = Run(sim_events=[_cp_async_event()], tests=[_row("fast_16x16x16", "fail")])
    r = Result(problem=G1.number, file="mine/g1.cu", backend={"kind": "gpu", "device": "H200"})
    r.tests = [_row("fast_16x16x16")]
    r.checks = [{"id": c.id, "status": "pass", "severity": c.severity, "message": say("check.not-measured", why="-")}
                for c in G1.checks]
    replay.attach(G1, r, replay.findings(G1, "mine/g1.cu", [sim_run], ()), [Run()])
    verdict.decide(G1, r, [Run()])
    assert r.status == "fail" and r.diagnoses[0]["id"] == "cp-async-read-before-wait"

