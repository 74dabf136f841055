"""A GPU time the learner's process reports, checked against a clock outside it (issue 16, item 1):
the decision (drills/pipeline/timecheck.py) with numbers, the outside per-call arithmetic of
capi.Lib.time_variant_outside, and the wiring perf -> verdict -> grader with a fake library whose
reported times are forged. No GPU and no compiler needed."""

from __future__ import annotations

import json
import time
from pathlib import Path

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
# H200, 2026-12-02 (benchmarks/h200/timing.sh): honest event medians (ms) of the references.
H200_CLAIMS = {"copy_tiled 8192x8192": 0.1496, "transpose_tiled 8192x8192": 0.1540, "transpose_tiled 4113x8197": 0.1185,
               "softmax_fast 64x1048576": 0.1911, "sgemm_fast 4096x4096x4096": 2.9946, "sgemm_cublas 128x4096x4096": 0.1019}


@pytest.mark.parametrize("case", sorted(H200_CLAIMS))
@pytest.mark.parametrize("overhead_ms", [0.0, 0.02, 0.05])
def test_honest_claims_are_confirmed_with_any_launch_overhead(case, overhead_ms):
    claimed = H200_CLAIMS[case]
    assert timecheck.judge(claimed, claimed + overhead_ms).confirmed
    assert timecheck.judge(claimed, claimed * 0.95).confirmed  # a claim a little above the outside time


@pytest.mark.parametrize("claimed, outside, why", [
    (0.0013, TILED + OVERHEAD, "below-outside"),   # the "11000% of copy" file, doing the work
    (1e-6, TILED + OVERHEAD, "below-outside"),
    (TILED / 2 - 0.03, TILED + OVERHEAD, "below-outside"),
    (1.0, 2.3, "below-outside"),                  # half of a slow kernel's time
    (0.01, None, "too-slow"),                     # the confirming calls ran past their deadline
])
def test_forged_claims_are_not_confirmed(claimed, outside, why):
    found = timecheck.judge(claimed, outside)
    assert (found.confirmed, found.why) == (False, why)


def test_the_threshold_is_factor_times_claim_plus_slack():
    assert timecheck.judge(0.1, 2 * 0.1 + 0.05).confirmed
    assert not timecheck.judge(0.1, 2 * 0.1 + 0.0501).confirmed


def test_work_skipped_on_repeated_calls_is_faster_than_the_bound():
    """Launching nothing from the 4th identical call on: claim and outside agree (both tiny), but
    512 MB in microseconds is faster than the copy kernel (the reference's, trusted) can move it."""
    found = timecheck.judge(0.0013, 0.008, MOVED, MOVED, COPY)
    assert (found.confirmed, found.why) == (False, "faster-than-bound")
    found = timecheck.judge(0.0, 0.0, MOVED, MOVED, COPY)
    assert (found.confirmed, found.why) == (False, "faster-than-bound")
    # the claim alone faster than the bound, the outside time plausible
    found = timecheck.judge(0.06, 0.16, MOVED, MOVED, COPY)
    assert (found.confirmed, found.why) == (False, "faster-than-bound")


@pytest.mark.parametrize("claimed, moved, confirmed", [
    (TILED, MOVED, True),                # the tiled transpose: slower than the copy
    (0.1368, MOVED, True),               # transpose_fast on the H200: 1.09x the copy kernel
    (0.6 * COPY, MOVED, True),           # faster than our copy kernel, within the factor
    (0.4 * COPY, MOVED, False),          # 2.5x the copy kernel
    (0.3 * COPY, MOVED / 2, True),       # a reduction reads half the bytes in less than half the time
])
def test_rates_not_times_are_compared_with_the_bound(claimed, moved, confirmed):
    assert timecheck.judge(claimed, claimed + 0.005, moved, MOVED, COPY).confirmed is confirmed


RECORDED = Path(__file__).resolve().parents[1] / "benchmarks" / "h200-timing-2026-12-02"


def test_the_recorded_h200_rows_decide_as_they_did():
    """benchmarks/h200-timing-2026-12-02: every honest reference row confirmed, both forgeries not."""
    rows = [r for f in sorted(RECORDED.glob("outside_*.json")) for r in json.loads(f.read_text())["rows"]]
    assert len(rows) == 26  # c4 was cut by the budget before its last shape was saved
    for r in rows:
        assert timecheck.judge(r["claimed_ms"], r["outside_ms"]).confirmed, r
    honest = json.loads((RECORDED / "perf_c3.json").read_text())
    bound = {tuple(s["shape"]): (s["bytes"], s["copy_kernel_ms"]) for s in honest["shapes"]}
    for kind, expected in (("perf_c3", None), ("perf_forged_lazy", "faster-than-bound"),
                           ("perf_forged_stream", "below-outside")):
        d = json.loads((RECORDED / f"{kind}.json").read_text())
        for v in d["variants"]:
            moved, bound_ms = bound[tuple(v["shape"])]
            found = timecheck.judge(v["ms"], v["outside_ms"], moved, moved, bound_ms)
            forged = expected is not None and v["name"] == "transpose_tiled"
            assert found.confirmed is not forged and found.why == (expected if forged else ""), (kind, v)


# --- the outside clock (capi.Lib.confirm) through a real subject server --------------------------
# A C ABI library without CUDA: every call of a variant sleeps, and it reports what its name says.
FAKE_LIBRARY = r"""
#include <string.h>
#include <time.h>
static void sleep_ms(double ms) { struct timespec t = {(time_t)(ms / 1000), (long)((ms - (time_t)(ms / 1000) * 1000) * 1e6)}; nanosleep(&t, 0); }
void* drills_entry(const char* n) { return 0; }
int drills_malloc(void** p, size_t n) { *p = 0; return 0; }
int drills_free(void* p) { return 0; }
int drills_to_device(void* d, const void* h, size_t n) { return 0; }
int drills_to_host(void* h, const void* d, size_t n) { return 0; }
int drills_memset(void* d, int v, size_t n) { return 0; }
int drills_sync(void) { return 0; }
const char* drills_error_name(int e) { return "fake"; }
int drills_time_memcpy(void* d, void* s, size_t n, int w, int r, float* out) { for (int i = 0; i < r; ++i) out[i] = 1; return 0; }
/* honest: 2 ms per call, says 2 ms. forged: 2 ms per call, says 0.01 ms. lazy: works on the first
   3 calls of a request only, says 0.001 ms. Each request first "allocates and fills" for 30 ms. */
int drills_time_variant(const char* name, const long long* dims, int nd, int warmup, int reps, float* out, double* moved) {
  int honest = !strcmp(name, "honest"), forged = !strcmp(name, "forged"), lazy = !strcmp(name, "lazy");
  if (!honest && !forged && !lazy) return -1;
  sleep_ms(30);
  for (int i = 0; i < warmup + reps; ++i) {
    if (!lazy || i < 3) sleep_ms(2);
    if (i >= warmup) out[i - warmup] = honest ? 2.0f : forged ? 0.01f : 0.001f;
  }
  *moved = 1000;
  return 0;
}
"""


@pytest.fixture(scope="module")
def fake_library(tmp_path_factory):
    import shutil
    import subprocess
    if not shutil.which("cc"):
        pytest.skip("no C compiler")
    d = tmp_path_factory.mktemp("fakelib")
    (d / "fake.c").write_text(FAKE_LIBRARY)
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", str(d / "libfake.so"), str(d / "fake.c")], check=True)
    lib = capi.Lib(d / "libfake.so")
    yield lib
    lib.close()


def test_an_honest_claim_is_confirmed_through_the_server(fake_library):
    timed = fake_library.time_variant_outside("honest", [64, 64])
    assert timed.ms == pytest.approx(2.0) and timed.moved == 1000
    assert timed.reps == 125  # 0.25 s of claimed work
    assert 1.9 <= timed.outside_ms <= 3.5, timed  # 2 ms per call; the 30 ms of "fill" cancel out
    assert timecheck.judge(timed.ms, timed.outside_ms).confirmed


def test_a_forged_claim_runs_past_its_deadline_and_the_server_is_ended(fake_library, monkeypatch):
    monkeypatch.setattr(capi, "CONFIRM_GRACE_S", 0.5)
    started = time.monotonic()
    timed = fake_library.time_variant_outside("forged", [64, 64])
    assert time.monotonic() - started < 5  # 20000 calls of 2 ms were not waited for (40 s)
    assert timed.ms == pytest.approx(0.01) and timed.reps == capi.CONFIRM_REPS[1] and timed.outside_ms is None
    assert timecheck.judge(timed.ms, timed.outside_ms).why == "too-slow"
    assert fake_library.time_variant_outside("honest", [64, 64]).outside_ms > 1.5  # a fresh server answers


def test_a_library_skipping_work_is_confirmed_by_the_clock_but_not_by_the_bound(fake_library):
    timed = fake_library.time_variant_outside("lazy", [64, 64])
    assert timed.reps == capi.CONFIRM_REPS[1] and timed.outside_ms < 0.05
    assert timecheck.judge(timed.ms, timed.outside_ms).confirmed  # the clock alone cannot tell
    # ...but 1000 bytes in microseconds, when the bound needs 2 ms for them, is not believed
    assert timecheck.judge(timed.ms, timed.outside_ms, 1000, 1000, 2.0).why == "faster-than-bound"


def test_undefined_variant_is_none(fake_library):
    assert fake_library.time_variant_outside("nope", [4, 4]) is None


def test_moved_is_one_untimed_call(fake_library):
    assert fake_library.moved("honest", [4, 4]) == 1000


# --- the wiring: perf.measure -> verdict -> render -> grader, with a fake library ----------------
class FakeLib:
    """A library that reports `ms` per call while an outside clock sees `outside` per call."""
    reported: dict = {}

    def __init__(self, path):
        self.path = str(path)

    def time_variant_outside(self, name, dims):
        ms, outside, moved = FakeLib.reported[(self.path, name)]
        return capi.Timed(ms, moved, outside, 1000, 0.03, 0.3)

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
    assert v["outside_reps"] == 1000
    result = _judged(out)
    assert result.status == "pass"
    assert scoring.perf_tier(result.to_dict(), P78) == ("gold", pytest.approx(100 * COPY / TILED, abs=0.1))


@pytest.mark.parametrize("subject, why, words", [
    ({"transpose_tiled": (1e-6, TILED + OVERHEAD, MOVED)}, "below-outside",
     ["(1e-06 ms)", "(0.167 ms per call)"]),
    ({"transpose_tiled": (0.001, 0.001, MOVED)}, "faster-than-bound", ["0.001 ms per call", "faster than the bound"]),
    ({"transpose_tiled": (0.01, None, MOVED)}, "too-slow", ["1000 calls take 0.01 s", "after 0.3 s"]),
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


@pytest.mark.parametrize("backend, standin, confirm, outside", [
    ("gpu", "", "1", True), ("gpu", "", "", False), ("gpu", "sim", "1", False), ("sim", "", "1", False)])
def test_the_judge_confirms_only_on_a_real_gpu_when_asked(monkeypatch, tmp_path, backend, standin, confirm, outside):
    """`test`/`serve`: off by default (a warm GPU judge stays near 10 s), on with DRILLS_CONFIRM_TIMING=1."""
    from drills.pipeline.build import Subject
    monkeypatch.setenv("DRILLS_GPU_STANDIN", standin)
    monkeypatch.setenv("DRILLS_CONFIRM_TIMING", confirm)
    subject = Subject(P78, tmp_path / "k.cu", backend, tmp_path, "subject")
    monkeypatch.setattr(perf, "subject_for", lambda *a, **k: subject)
    seen = []
    monkeypatch.setattr(perf, "run_timing", lambda cmd, timeout: (seen.append(cmd), ({"variants": []}, ""))[1])
    perf.measure_subject(P78, subject)
    assert ("--outside" in seen[0]) is outside


@pytest.mark.parametrize("forged", [False, True])
def test_the_grader_always_confirms_and_an_unconfirmed_time_is_an_error(monkeypatch, tmp_path, forged):
    """`grade` (drills/grading/child.py): --outside without any setting; a finding makes the row error."""
    from types import SimpleNamespace
    from drills.grading import child
    from drills.pipeline import judge as judge_mod
    monkeypatch.delenv("DRILLS_CONFIRM_TIMING", raising=False)
    monkeypatch.delenv("DRILLS_GPU_STANDIN", raising=False)
    passed = Result(problem=78, status="pass", message={"zh": "通过", "en": "Pass", "key": "verdict.pass"},
                    backend={"kind": "gpu"})
    monkeypatch.setattr(judge_mod, "judge", lambda *a, **k: passed)
    monkeypatch.setattr(child, "RecipeBuild", lambda spec, problem: SimpleNamespace(seconds=0.0))
    finding = {"name": "transpose_tiled", "shape": "8192x8192", "why": "below-outside",
               "message": {"key": "timing.unconfirmed", "facts": {"name": "transpose_tiled", "shape": "8192x8192",
                                                                  "reported": 1e-6, "outside": 0.16}}}
    seen = []

    def timing(cmd, timeout):
        seen.append(cmd)
        return {"variants": [{"name": "transpose_tiled", "shape": [8192, 8192], "pct_copy_kernel": 9000.0}],
                "unconfirmed": [finding] if forged else []}, ""
    monkeypatch.setattr(perf, "run_timing", timing)
    spec = {"problem": 78, "work": str(tmp_path), "file": str(tmp_path / "k.cu"), "backend": "gpu", "extra_shapes": [],
            "timeout": 60, "perf": True, "reference_capi": "ref.so", "display_prefix": "", "src_prefix": "/nowhere"}
    d = child.run(spec)
    assert "--outside" in seen[0]
    assert d["status"] == ("error" if forged else "pass")
    if forged:
        assert "0.16 ms per call" in d["message"]["en"] and d["perf"]["unconfirmed"][0]["message"]["zh"]
        assert scoring.perf_tier(d, P78) == ("none", None)
    else:
        assert scoring.perf_tier(d, P78)[0] == "gold"


def test_every_timing_message_is_in_both_languages():
    facts = {"name": "t", "shape": "8x8", "reported": 1e-6, "outside": 0.2, "bound": 0.15, "factor": 3.0,
             "moved": 1.0, "expected": 2.0, "time": 0.01, "reps": 20000, "waited": 3.2}
    for key in ("timing.unconfirmed", "timing.faster-than-bound", "timing.moved-differs", "timing.too-slow"):
        for lang in ("zh", "en"):
            assert "t" in text({"key": key, "facts": facts}, lang)


def test_an_unconfirmed_time_is_measured_once_more_and_a_confirmed_second_counts(monkeypatch):
    """A busy host stretched the first outside time: the second, confirmed, timing is the one used."""
    rounds = iter([capi.Timed(TILED, MOVED, 1.0, 1600, 0, 0), capi.Timed(TILED * 1.01, MOVED, TILED + OVERHEAD, 1600, 0, 0)])
    monkeypatch.setattr(FakeLib, "time_variant_outside",
                        lambda self, name, dims: next(rounds) if self.path == "subj" else
                        capi.Timed(COPY, MOVED, COPY + OVERHEAD, 1600, 0, 0))
    out = _measure(monkeypatch, {"transpose_tiled": (0, 0, MOVED)})
    assert out["unconfirmed"] == [] and out["variants"][0]["ms"] == pytest.approx(TILED * 1.01)
    assert next(rounds, None) is None  # both rounds asked for
