"""Is a reported GPU time confirmed by a clock the learner's process cannot touch?

A variant's time is the median of CUDA-event samples that the learner's library measures and
reports (capi.Lib, tests/support/drills_timing.h): a file can report any number. The judge's side
also times, with its own clock, a long and a short request of the same calls
(capi.Lib.time_variant_outside); their difference per extra call is an outside per-call time:
the kernel plus a launch/sync overhead per call, never less than the kernel.

    unconfirmed  the reported median is implausibly below the outside per-call time
                 (event_ms < RATIO * outside_ms - SLACK_MS), or the outside per-call time itself
                 moves the variant's bytes (or operations) more than FASTEST_VS_BOUND times faster
                 than the bound kernel (trusted code, the reference's) seen by the same outside
                 clock: a library that ignores the number of calls asked for, or runs an empty
                 kernel, makes the wall difference vanish.

perf.measure also refuses a byte (or operation) count per call that differs from what the
reference library reports for the same shape (every variant of a problem moves the same; a file
reporting more would raise its own percentage), and times a variant once more before calling it
unconfirmed (a busy host only lengthens the outside time of an honest file).

An unconfirmed time is never used: the verdict is `error` (drills/pipeline/verdict.py) and the
grader gives no performance tier (drills/grading/scoring.py).

Not applied on the simulator: there a timed call is a time-model prediction from counters, while
the wall clock measures the simulation, thousands of times slower; the two are not comparable.

What this cannot see: the library knows which request is the short one (it is told the number of
calls), so one that sleeps in it lowers the outside per-call time, down to the bound's check (about
the copy kernel's speed); one that times a correct but different, faster kernel than the one the
tests call is not seen at all (the outputs of the timed calls are not checked). Closing both needs
the calls driven one by one from this side, or a profiler outside the library's process.
"""

from __future__ import annotations

from dataclasses import dataclass

# Conservative until the H200 data (benchmarks/h200/timing.sh) set them: honest event medians sit
# a launch/sync overhead (tens of microseconds) below the outside per-call time.
RATIO = 0.5
SLACK_MS = 0.05
FASTEST_VS_BOUND = 2.0


@dataclass(frozen=True)
class Finding:
    confirmed: bool
    why: str          # "" | "below-outside" | "faster-than-bound"
    event_ms: float
    outside_ms: float


def judge(event_ms: float, outside_ms: float, moved: float = 0.0,
          bound_moved: float = 0.0, bound_outside_ms: float = 0.0) -> Finding:
    """The decision for one variant and shape. moved / bound_moved: what one call of the variant /
    of the bound kernel moves (bytes or operations, as reported); 0 leaves out the bound's test."""
    if event_ms < RATIO * outside_ms - SLACK_MS:
        return Finding(False, "below-outside", event_ms, outside_ms)
    if moved > 0 and bound_moved > 0 and bound_outside_ms > 0:
        # rates, so that an operation moving fewer bytes than the copy is compared fairly
        if outside_ms <= 0 or moved / outside_ms > FASTEST_VS_BOUND * bound_moved / bound_outside_ms:
            return Finding(False, "faster-than-bound", event_ms, outside_ms)
    return Finding(True, "", event_ms, outside_ms)
