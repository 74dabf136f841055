"""drills/pipeline/oplog_replay.py without a simulator: what the replay's outputs must agree with,
and what a child's buffer list must look like before anything is replayed."""

from __future__ import annotations

import numpy as np
import pytest

from drills import manifest, problems
from drills.pipeline import oplog_replay, probe


def test_agree_tells_a_computed_answer_from_one_of_other_inputs():
    rng = np.random.default_rng(1)
    want = rng.uniform(-1, 1, 1000)
    assert oplog_replay.agree(want.astype(np.float32), want, 0.0)[0]
    other = rng.uniform(-1, 1, 1000)
    ok, at = oplog_replay.agree(other, want, 0.0)
    assert not ok and 0 <= at < 1000
    nan = want.copy()
    nan[3] = np.nan
    assert oplog_replay.agree(nan, nan, 0.0)[0]
    assert not oplog_replay.agree(want, nan, 0.0)[0]         # NaN expected, a number given
    assert not oplog_replay.agree(np.full(1000, np.nan), want, 0.0)[0]   # the poison left in place


def test_a_buffer_list_that_does_not_fit_the_call_is_refused():
    items = probe.call_items(["in:M*N", "out:N*M", "M", "N"], {"M": 4, "N": 8}, np.random.default_rng(0))
    good = [{"kind": "in", "ptr": 4096, "nbytes": 128}, {"kind": "out", "ptr": 8192, "nbytes": 128}]
    assert oplog_replay._buffers(good, items) is not None
    for bad in (None, "x", good[:1], good * 2, [good[1], good[0]],
                [dict(good[0], nbytes=64), good[1]], [dict(good[0], ptr=True), good[1]],
                [dict(good[0], ptr=-1), good[1]], [dict(good[0], ptr=2**64), good[1]]):
        assert oplog_replay._buffers(bad, items) is None, bad


def test_call_items_draw_halves_for_in16_and_never_zero():
    items = probe.call_items(["in16:K", "in:K", "out:K", "K"], {"K": 64}, np.random.default_rng(0))
    assert [i.kind for i in items] == ["in", "in", "out", "int"]
    assert items[0].value.dtype == np.float16 and items[0].nbytes == 128
    assert items[1].value.dtype == np.float32 and items[1].nbytes == 256
    assert items[2].nbytes == 256 and items[3].value == 64
    assert all((i.value != 0).all() for i in items[:2])


@pytest.mark.parametrize("number", sorted(manifest.load()))
def test_every_probed_call_has_a_reference_that_tells_other_inputs_apart(number):
    """Each problem's probe_reference on the probe's own shapes: its answer for one set of inputs
    agrees with itself and not with the answer for another set (what the replay relies on)."""
    problem = manifest.load()[number]
    if not problem.checks:
        return
    module = problems.module_for(problem)
    assert hasattr(module, "probe_reference"), f"{problem.slug}: a problem with checks needs probe_reference"
    seen = set()
    for check in problem.checks:
        p = check.probe
        if (p.entry, tuple(p.args), tuple(sorted(p.dims.items()))) in seen:
            continue
        seen.add((p.entry, tuple(p.args), tuple(sorted(p.dims.items()))))
        outs = [a for a in p.args if a.startswith("out:")]
        first, second = (probe.call_items(p.args, dict(p.dims), np.random.default_rng(s)) for s in (1, 2))
        ins = [[i.value for i in items if i.kind == "in"] for items in (first, second)]
        a, b = module.probe_reference(p.entry, dict(p.dims), ins[0]), module.probe_reference(p.entry, dict(p.dims), ins[1])
        assert len(a) == len(outs)
        for (want, atol), (other, _) in zip(a, b):
            n = [i.nbytes // 4 for i in first if i.kind == "out"][0]
            assert np.asarray(want).size == n
            assert oplog_replay.agree(np.asarray(want, dtype=np.float32), want, atol)[0]
            assert not oplog_replay.agree(other, want, atol)[0]
