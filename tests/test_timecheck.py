"""A GPU time the learner's process reports, checked against a clock outside it (issue 16, item 1):
the decision (drills/pipeline/timecheck.py) with numbers, the outside per-call arithmetic of
capi.Lib.time_variant_outside, and the wiring perf -> verdict -> grader with a fake library whose
reported times are forged. No GPU and no compiler needed."""

from __future__ import annotations

import time

import pytest

from drills import manifest
from drills.grading import scoring
from drills.messages import render_result, text
from drills.pipeline import capi, perf, timecheck, verdict
from drills.result import Result

P78 = manifest.load()[78]

# Honest H200 medians of the c3 reference (s3out2/remotelib, 8192x8192): transpose_tiled 0.155 ms,
# copy_tiled 0.150 ms. An event-synced call costs a few microseconds more seen from outside.
TILED, COPY, OVERHEAD = 0.155, 0.150, 0.012
MOVED = 2.0 * 8192 * 8192 * 4


# --- the decision -------------------------------------------------------------------------------
@pytest.mark.parametrize("event, outside, confirmed", [
    (TILED, TILED + OVERHEAD, True),          # honest
    (TILED, TILED, True),                     # no overhead at all
    (TILED, 2 * TILED, True),                 # a loaded host stretches the outside clock: not the file's fault
    (0.030, 1.0, False),                      # 1 ms per call seen, 0.03 reported
    (1e-6, TILED + OVERHEAD, False),          # the "300% of copy" file
    (0.5 * 0.3 - 0.05, 0.3, True),            # exactly on the threshold
    (0.5 * 0.3 - 0.0501, 0.3, False),         # just below it
])
def test_event_median_against_the_outside_per_call(event, outside, confirmed):
    found = timecheck.judge(event, outside)
    assert found.confirmed is confirmed
    assert found.why == ("" if confirmed else "below-outside")


def test_small_kernels_are_not_flagged_by_the_launch_overhead():
    """A 10 us kernel seen as 40 us per call (sync overhead dominates): the slack keeps it confirmed."""
    assert timecheck.judge(0.010, 0.040).confirmed


def test_an_outside_time_faster_than_the_bound_is_not_believed():
    """A library that ignores the number of calls asked for makes the wall difference vanish:
    the outside per-call then moves the bytes far faster than the copy kernel can."""
    found = timecheck.judge(0.001, 0.0005, MOVED, MOVED, COPY + OVERHEAD)
    assert (found.confirmed, found.why) == (False, "faster-than-bound")
    found = timecheck.judge(0.0, 0.0, MOVED, MOVED, COPY + OVERHEAD)
    assert (found.confirmed, found.why) == (False, "faster-than-bound")
    found = timecheck.judge(0.010, 0.012, MOVED, MOVED, COPY + OVERHEAD)  # consistent with itself, 13x the copy
    assert (found.confirmed, found.why) == (False, "faster-than-bound")


@pytest.mark.parametrize("outside, moved, confirmed", [
    (TILED + OVERHEAD, MOVED, True),            # the tiled transpose: slower than the copy
    (0.6 * (COPY + OVERHEAD), MOVED, True),     # faster than our copy kernel, within the factor
    (0.4 * (COPY + OVERHEAD), MOVED, False),    # 2.5x the copy kernel
    (0.6 * (COPY + OVERHEAD), MOVED / 2, True),  # a reduction reads half the bytes in ~half the time
])
def test_rates_not_times_are_compared_with_the_bound(outside, moved, confirmed):
    assert timecheck.judge(outside, outside, moved, MOVED, COPY + OVERHEAD).confirmed is confirmed


# --- the outside clock (capi.Lib.time_variant_outside) with a library that takes real time -------
class _SleepyServer:
    """Stands in for the subject server: a request takes `fixed` seconds plus `per_call` per rep,
    and reports `reported` ms per sample."""

    def __init__(self, fixed, per_call, reported, moved=MOVED, defined=True):
        self.fixed, self.per_call, self.reported, self.moved, self.defined = fixed, per_call, reported, moved, defined
        self.asked = []

    def __call__(self, op, during, body=b"", body_limit=0, **fields):
        assert op == "time_variant"
        self.asked.append((fields["warmup"], fields["reps"]))
        if not self.defined:
            return {"err": -1}, b""
        time.sleep(self.fixed + self.per_call * fields["reps"])
        return {"err": 0, "samples": [self.reported] * fields["reps"], "moved": self.moved}, b""


def _lib(server) -> capi.Lib:
    lib = capi.Lib.__new__(capi.Lib)  # no server process: requests go to the stand-in
    lib._proc = None
    lib._ask = server
    return lib


def test_outside_per_call_cancels_the_fixed_cost_of_a_request():
    server = _SleepyServer(fixed=0.05, per_call=0.002, reported=0.0001)
    timed = _lib(server).time_variant_outside("transpose_tiled", [8192, 8192])
    assert server.asked == [(capi.WARMUP, capi.SHORT_REPS), (capi.WARMUP, capi.REPS)]
    assert timed.ms == pytest.approx(0.0001) and timed.moved == MOVED
    assert 1.8 <= timed.outside_ms <= 3.0  # 2 ms per call; the 50 ms of allocation and fill are gone
    assert not timecheck.judge(timed.ms, timed.outside_ms).confirmed


def test_undefined_variant_asks_once():
    server = _SleepyServer(0, 0, 0, defined=False)
    assert _lib(server).time_variant_outside("nope", [4, 4]) is None
    assert len(server.asked) == 1


def test_moved_is_one_untimed_call():
    server = _SleepyServer(0, 0, 0.1, moved=123.0)
    assert _lib(server).moved("transpose_tiled", [4, 4]) == 123.0
    assert server.asked == [(0, 1)]


# --- the wiring: perf.measure -> verdict -> render -> grader, with a fake library ----------------
class FakeLib:
    """A library that reports `ms` per call while an outside clock sees `outside` per call."""
    reported: dict = {}

    def __init__(self, path):
        self.path = str(path)

    def time_variant_outside(self, name, dims):
        ms, outside, moved = FakeLib.reported[(self.path, name)]
        return capi.Timed(ms, moved, outside, 0.0, 0.0)

    def time_variant(self, name, dims):
        ms, outside, moved = FakeLib.reported[(self.path, name)]
        return ms, moved

    def moved(self, name, dims):
        return FakeLib.reported[(self.path, name)][2]

    def alloc(self, n):
        return 1

    def poison(self, p, n):
        pass

    def free(self, p):
        pass

    def memcpy_ms(self, dst, src, n):
        return 0.14


def _measure(monkeypatch, subject: dict, outside=True) -> dict:
    reference = {"copy_tiled": (COPY, COPY + OVERHEAD, MOVED), "transpose_tiled": (TILED, TILED + OVERHEAD, MOVED)}
    FakeLib.reported = {("ref", k): v for k, v in reference.items()} | {("subj", k): v for k, v in subject.items()}
    monkeypatch.setattr(perf, "Lib", FakeLib)
    return perf.measure("subj", "ref", [(8192, 8192)], ["transpose_tiled"], "copy_tiled", outside=outside)


def _judged(out: dict) -> Result:
    result = Result(problem=78, status="pass", message={"key": "verdict.pass", "facts": {"count": 3, "notes": ""}},
                    backend={"kind": "gpu"}, perf=out)
    verdict.timing_checked(result)
    render_result(result, P78)
    return result


def test_an_honest_time_is_confirmed_and_counts(monkeypatch):
    out = _measure(monkeypatch, {"transpose_tiled": (TILED, TILED + OVERHEAD, MOVED)})
    assert out["unconfirmed"] == []
    (v,) = out["variants"]
    assert v["confirmed"] is True and v["outside_ms"] == pytest.approx(TILED + OVERHEAD)
    assert out["shapes"][0]["copy_kernel_outside_ms"] == pytest.approx(COPY + OVERHEAD)
    result = _judged(out)
    assert result.status == "pass"
    assert scoring.perf_tier(result.to_dict(), P78) == ("gold", pytest.approx(100 * COPY / TILED, abs=0.1))


@pytest.mark.parametrize("subject, why, words", [
    ({"transpose_tiled": (1e-6, TILED + OVERHEAD, MOVED)}, "below-outside",
     ["(1e-06 ms)", "(0.167 ms per call)"]),
    ({"transpose_tiled": (0.001, 0.001, MOVED)}, "faster-than-bound", ["0.001 ms per call", "faster than the bound"]),
    ({"transpose_tiled": (TILED / 3, TILED + OVERHEAD, 3 * MOVED)}, "moved-differs",
     [f"moves {3 * MOVED:g}", f"reports {MOVED:g}"]),
])
def test_a_forged_time_is_an_error_and_earns_no_tier(monkeypatch, subject, why, words):
    out = _measure(monkeypatch, subject)
    (bad,) = out["unconfirmed"]
    assert bad["name"] == "transpose_tiled" and bad["shape"] == "8192x8192" and bad["why"] == why
    assert out["variants"][0]["confirmed"] is False
    result = _judged(out)
    assert result.status == "error"
    assert result.message["key"] == f"timing.{'unconfirmed' if why == 'below-outside' else why}"
    for w in words:
        assert w in result.message["en"], result.message["en"]
    assert "不被采用" in result.message["zh"]
    assert result.perf["unconfirmed"][0]["message"]["en"] == result.message["en"]  # rendered in the JSON too
    # the grader: no tier, no points, whatever percentage the forged time gives
    assert out["variants"][0]["pct_copy_kernel"] > 90
    assert scoring.perf_tier(result.to_dict(), P78) == ("none", None)
    sc = scoring.score(result.to_dict(), P78, [], [], "gpu")
    assert sc["perf"]["points"] == 0 and sc["verdict"] == "error"


def test_without_the_outside_clock_perf_is_as_before(monkeypatch):
    """The simulator's path: no check, no new keys (a predicted time is not comparable with a wall clock)."""
    out = _measure(monkeypatch, {"transpose_tiled": (1e-6, TILED + OVERHEAD, MOVED)}, outside=False)
    assert "unconfirmed" not in out and "outside_ms" not in out["variants"][0]
    assert _judged(out).status == "pass"


@pytest.mark.parametrize("backend, standin, outside", [("gpu", "", True), ("gpu", "sim", False), ("sim", "", False)])
def test_the_judge_asks_for_the_outside_clock_on_a_real_gpu_only(monkeypatch, tmp_path, backend, standin, outside):
    from drills.pipeline.build import Subject
    monkeypatch.setenv("DRILLS_GPU_STANDIN", standin)
    subject = Subject(P78, tmp_path / "k.cu", backend, tmp_path, "subject")
    monkeypatch.setattr(perf, "subject_for", lambda *a, **k: subject)
    seen = []
    monkeypatch.setattr(perf, "run_timing", lambda cmd, timeout: (seen.append(cmd), ({"variants": []}, ""))[1])
    perf.measure_subject(P78, subject)
    assert ("--outside" in seen[0]) is outside


def test_every_timing_message_is_in_both_languages():
    facts = {"name": "t", "shape": "8x8", "reported": 1e-6, "outside": 0.2, "bound": 0.15, "factor": 3.0,
             "moved": 1.0, "expected": 2.0}
    for key in ("timing.unconfirmed", "timing.faster-than-bound", "timing.moved-differs"):
        for lang in ("zh", "en"):
            assert "t" in text({"key": key, "facts": facts}, lang)


def test_an_unconfirmed_time_is_measured_once_more_and_a_confirmed_second_counts(monkeypatch):
    """A busy host stretched the first outside time: the second, confirmed, timing is the one used."""
    rounds = iter([capi.Timed(TILED, MOVED, 1.0, 0, 0), capi.Timed(TILED * 1.01, MOVED, TILED + OVERHEAD, 0, 0)])
    monkeypatch.setattr(FakeLib, "time_variant_outside",
                        lambda self, name, dims: next(rounds) if self.path == "subj" else
                        capi.Timed(COPY, MOVED, COPY + OVERHEAD, 0, 0))
    out = _measure(monkeypatch, {"transpose_tiled": (0, 0, MOVED)})
    assert out["unconfirmed"] == [] and out["variants"][0]["ms"] == pytest.approx(TILED * 1.01)
    assert next(rounds, None) is None  # both rounds asked for
