"""Is a reported GPU time confirmed by a clock the learner's process cannot touch?

A variant's time is the median of CUDA-event samples that the learner's library measures and
reports (capi.Lib, tests/support/drills_timing.h): a file can report any number, the claim. The
judge's side then times, with its own clock, a 1-call request and one of R calls of the same
variant and dims, R chosen so that the claim makes 0.25 s of work (capi.Lib.confirm); the wall
difference per extra call is an outside per-call time: the kernel plus a launch/sync overhead,
never less than the kernel. (A first design, the difference of a 50-call and a 10-call request,
was too noisy on the H200: the fixed part of a request, cudaMalloc and filling the inputs, is
tens of milliseconds and jitters by milliseconds.)

    too-slow           the R calls ran more than 3 s past what the claim allows (the request is
                       given up, the library's process ended)
    below-outside      outside_ms > FACTOR * claimed_ms + SLACK_MS
    faster-than-bound  the claim or the outside time, whichever is shorter, moves the variant's
                       bytes (or operations) more than FASTEST_VS_BOUND times faster than the
                       bound kernel (the reference's, trusted code, in its own process): a
                       library that launches nothing on repeated calls is fast by any clock,
                       but not faster than the memory allows.

perf.measure also refuses a byte (or operation) count per call that differs from what the
reference library reports for the same shape (every variant of a problem moves the same; a file
reporting more would raise its own percentage), and times a variant once more before calling it
below-outside (a busy host only lengthens the outside time of an honest file).

An unconfirmed time is never used: the verdict is `error` (drills/pipeline/verdict.py) and the
grader gives no performance tier (drills/grading/scoring.py).

Applied (perf.confirm_timing) in `grade` always, where performance points are at stake; in `test`
and `serve` only with DRILLS_CONFIRM_TIMING=1 (about 0.3 s per timed variant and shape, against a
warm GPU judge of ~10 s; a forged time on a learner's own machine fools only the learner).
Not applied on the simulator: there a timed call is a time-model prediction from counters, while
the wall clock measures the simulation, thousands of times slower; the two are not comparable.

What this cannot see: the outputs of the timed calls are not checked, so a file that does part
of the work on repeated calls (every other call, say) or times a correct but different kernel than
the one the tests call can claim up to about FASTEST_VS_BOUND times the bound's speed with a
matching outside time; the library also knows the number of calls it is asked for. Closing that
needs the last timed call's output checked (a poisoned output buffer the judge reads back after
the R calls, through an entry point that takes the buffers from the judge) or a profiler outside
the library's process.
"""

from __future__ import annotations

from dataclasses import dataclass

# From the H200 (benchmarks/h200-timing-2026-12-02.md): honest claims sit 5-15 us per call below the
# outside time (claim/outside 0.90-1.03 over c3, c5 and c4 references and cuBLAS); the fastest honest
# variant moves its bytes at 1.1x the bound kernel (transpose_fast vs copy_tiled, 8192x8192). Both
# factors leave a 2x margin; the slack covers launch overheads of small kernels.
FACTOR = 2.0
SLACK_MS = 0.05
FASTEST_VS_BOUND = 2.0


@dataclass(frozen=True)
class Finding:
    confirmed: bool
    why: str          # "" | "too-slow" | "below-outside" | "faster-than-bound"
    claimed_ms: float
    outside_ms: float | None


def judge(claimed_ms: float, outside_ms: float | None, moved: float = 0.0,
          bound_moved: float = 0.0, bound_ms: float = 0.0) -> Finding:
    """The decision for one variant and shape. outside_ms None: the confirming request ran past
    its deadline. moved / bound_moved: what one call of the variant / of the bound kernel moves
    (bytes or operations); bound_ms: the bound's (trusted) time; 0 leaves out the bound's test."""
    if outside_ms is None:
        return Finding(False, "too-slow", claimed_ms, outside_ms)
    if outside_ms > FACTOR * claimed_ms + SLACK_MS:
        return Finding(False, "below-outside", claimed_ms, outside_ms)
    if moved > 0 and bound_moved > 0 and bound_ms > 0:
        shortest = min(claimed_ms, outside_ms)  # rates, so an operation moving fewer bytes is compared fairly
        if shortest <= 0 or moved / shortest > FASTEST_VS_BOUND * bound_moved / bound_ms:
            return Finding(False, "faster-than-bound", claimed_ms, outside_ms)
    return Finding(True, "", claimed_ms, outside_ms)
