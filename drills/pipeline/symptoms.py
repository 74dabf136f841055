"""Root causes and their symptoms: how the simulator's run-time findings and the pattern of wrong
outputs combine into one list of diagnoses, the same on both backends.

A root cause (ROOT_CAUSES) is what the simulator's run-time checks find inside a launch: a
shared-memory race, a read of a cp.async destination before its group was waited for, a barrier in
a divergent branch, a wrong shuffle mask, an access out of bounds, past the end by part of a float4,
or misaligned. The simulator stops the launch at the first one (a sticky error, as a GPU gives for
an illegal address) and the test fails that case before it compares the outputs, so the problem's
rules (drills/problems/<module>.py) read the pattern of wrong outputs only from the cases that ran to
the end, and the pattern of which cases failed.

A GPU stops at few of them. A read past the end returns whatever lies there (the next buffer, the
NaN the test poisoned the output with), a write past the end lands in the guard, a race or an early
return leaves a stale tile, and the test compares those outputs. Read as evidence they name a
second mistake that is only the first one's consequence ("wrote past the end", "output never
written", "NaN from an empty part"), and the GPU would teach differently from the simulator. So:

    The problem's rules read the rows of the simulator's run whenever that run found a root cause:
    on the simulator its own run, on a GPU the replay of the same cases (drills/pipeline/replay.py).
    The root cause is named with its line; what it did to the GPU's outputs is its symptom, not a
    second diagnosis. Without a root cause the rules read the judged run's own rows, a GPU's
    shapes too large for the simulator included.

The verdict does not change: it is the GPU's, from the GPU's rows (drills/pipeline/verdict.py).
"""

from __future__ import annotations

from contextlib import contextmanager

from ..result import Result

# The simulator's run-time findings that stop a launch. Also what a replay's finding must be to fail
# a file the GPU passed (verdict.py): each is wrong whatever the outputs happened to be.
ROOT_CAUSES = frozenset({"missing-barrier", "cp-async-read-before-wait", "barrier-in-divergent-branch",
                         "wrong-shuffle-mask", "out-of-bounds", "vec4-tail-overrun", "misaligned-vector-access"})


def rows_to_read(tests: list[dict], simulated: list[dict], findings: list[dict]) -> list[dict]:
    """The rows the problem's rules read: the simulator's (`simulated`, the same cases) when its
    run-time diagnoses (`findings`) hold a root cause, else the judged run's own (`tests`)."""
    return simulated if any(d.get("id") in ROOT_CAUSES for d in findings) else tests


@contextmanager
def reading(result: Result, rows: list[dict]):
    """Within the block, result.tests are `rows` (what the problem's rules read); the judged run's
    rows come back after it, for the verdict and the learner."""
    own, result.tests = result.tests, rows
    try:
        yield
    finally:
        result.tests = own
