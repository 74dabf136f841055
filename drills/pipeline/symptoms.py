"""Root causes and their symptoms: how the simulator's run-time findings and the pattern of wrong
outputs combine into one list of diagnoses, the same on both backends.

A root cause (ROOT_CAUSES) is what the simulator's run-time checks find inside a launch: a
shared-memory race, a read of a cp.async destination before its group was waited for, a barrier in
a divergent branch, a wrong shuffle mask, an access out of bounds, past the end by part of a float4,
or misaligned. The simulator stops the launch at the first one (a sticky error, as a GPU gives for
an illegal address), the test fails that case before it compares the outputs, and so the case
records no evidence: the problem's rules (drills/problems/<module>.py) read the pattern of wrong
outputs only from cases that ran to the end, and the pattern of which cases failed.

A GPU stops at few of them. A read past the end returns whatever lies there (the next buffer, the
NaN the test poisoned the output with), a write past the end lands in the guard, a race or an early
return leaves a stale tile, and the test compares those outputs. Read as evidence they name a
second mistake that is only the first one's consequence ("wrote past the end", "output never
written", "NaN from an empty part"), and the GPU would teach differently from the simulator. So:

    When the simulator's run of the same cases found a root cause (on a GPU: the replay,
    drills/pipeline/replay.py), wrong outputs are evidence only in the cases that the simulator too
    ran to the end and got wrong: its row of the case failed and recorded the same facts. Every
    other case keeps its status, so the pattern of which cases failed still counts, and the root
    cause is named with its line.

On the simulator the rule holds by construction: a case it stopped recorded no outputs, so the
judge applies it where a replay stands beside a GPU run (drills/pipeline/judge.py). Without a root
cause nothing changes: a GPU's wrong outputs at a shape only the GPU runs are evidence like any other.
"""

from __future__ import annotations

# The simulator's run-time findings that stop a launch. Also what a replay's finding must be to fail
# a file the GPU passed (verdict.py): each is wrong whatever the outputs happened to be.
ROOT_CAUSES = frozenset({"missing-barrier", "cp-async-read-before-wait", "barrier-in-divergent-branch",
                         "wrong-shuffle-mask", "out-of-bounds", "vec4-tail-overrun", "misaligned-vector-access"})


def read_there_too(row: dict, simulated: dict | None) -> bool:
    """The simulator's row of the same case failed and recorded every fact this row recorded: its
    launch ran to the end and the test compared the outputs (a case the simulator stopped, or one
    that failed after an earlier case's sticky fault, records at most what it records up front)."""
    return (simulated is not None and simulated.get("status") == "fail"
            and set(row.get("evidence", {})) <= set(simulated.get("evidence", {})))


def keep_what_the_simulator_read(tests: list[dict], simulated: list[dict], findings: list[dict]) -> list[str]:
    """The rule above, applied to `tests` (the GPU run's rows, changed in place) given the
    simulator's rows of the same cases (`simulated`) and its run-time diagnoses (`findings`).
    Returns the names of the failed cases whose evidence was set aside."""
    if not any(d.get("id") in ROOT_CAUSES for d in findings):
        return []
    there = {t["name"]: t for t in simulated}
    dropped = []
    for t in tests:
        if t.get("status") == "fail" and t.get("evidence") and not read_there_too(t, there.get(t["name"])):
            del t["evidence"]
            dropped.append(t["name"])
    return dropped
