"""Problem 78 (C3, matrix transpose): the diagnoses that read the pattern of wrong elements of y.

The GoogleTest file records, for each failing case, how many elements are wrong and unwritten, and
which other layouts the wrong ones match (tests/c3_transpose_test.cu); the rules below name the
mistake from those facts, never from the learner's source text.
"""

from __future__ import annotations

from ..manifest import Problem
from ..pipeline.diagnose import evidence_int
from ..result import Result

# The diagnoses this module raises, most specific first (they rank after the simulator's race,
# barrier and shuffle findings and before memory errors: the pattern names the mistake, a memory
# error is often its consequence).
DIAGNOSES = ("bounds-swapped", "block-index-not-swapped", "copy-not-transpose", "output-not-written")
# About the second stage: the line they point at is the entry's global store.
STORE_LINE_DIAGNOSES = ("bounds-swapped", "block-index-not-swapped", "copy-not-transpose")


def diagnose_outputs(problem: Problem, result: Result) -> None:
    by_variant: dict[str, list] = {}
    for t in result.tests:
        if t.get("variant") and t.get("shape"):
            by_variant.setdefault(t["variant"], []).append(t)
    # The problem's own variant first: its diagnosis is the one the learner needs.
    for variant in sorted(by_variant, key=lambda v: (v != "tiled", v)):
        if _diagnose_variant(result, variant, by_variant[variant]):
            result.diagnoses[-1]["entry"] = f"transpose_{variant}"
            return


def _diagnose_variant(result: Result, variant: str, tests: list) -> bool:
    failed = [t for t in tests if t["status"] == "fail"]
    if not failed:
        return False
    with_evidence = [t for t in failed if "wrong" in t.get("evidence", {})]
    ev = [t["evidence"] for t in with_evidence]
    written_wrong = sum(evidence_int(e, "wrong") - evidence_int(e, "unwritten") for e in ev)
    fn = f"transpose_{variant}"

    if len(with_evidence) == len(failed) and all(
            evidence_int(e, "unwritten") == t["shape"][0] * t["shape"][1] for t, e in zip(with_evidence, ev)):
        result.diagnose("output-not-written", fn=fn)
        return True

    if any(e.get("output_is_input_copied") == "1" for e in ev):
        result.diagnose("copy-not-transpose", fn=fn)
        return True
    untransposed = sum(evidence_int(e, "wrong_matching_untransposed_tiles") for e in ev)
    if written_wrong > 0 and untransposed >= 0.9 * written_wrong:
        result.diagnose("copy-not-transpose", key="diagnosis.copy-not-transpose-inside-tiles", fn=fn)
        return True
    unswapped = sum(evidence_int(e, "wrong_matching_unswapped_tiles") for e in ev)
    if written_wrong > 0 and unswapped >= 0.9 * written_wrong:
        result.diagnose("block-index-not-swapped", fn=fn)
        return True
    if _bounds_swapped(tests, failed, with_evidence):
        shapes = ", ".join(f"{t['shape'][0]}x{t['shape'][1]}" for t in failed[:4])
        result.diagnose("bounds-swapped", fn=fn, shapes=shapes)
        return True
    return False


def _bounds_swapped(tests: list, failed: list, with_evidence: list) -> bool:
    squares = [t for t in tests if t["shape"][0] == t["shape"][1] and t["status"] != "skip"]
    if not squares or any(t["status"] != "pass" for t in squares):
        return False
    if any(t["shape"][0] == t["shape"][1] for t in failed) or not with_evidence:
        return False
    for t in with_evidence:  # a faulting launch leaves no pattern; the others must show one
        e = t["evidence"]
        outside, wrong_out, wrong = (evidence_int(e, "outside_square"), evidence_int(e, "wrong_outside_square"), evidence_int(e, "wrong"))
        if outside == 0 or wrong_out < 0.5 * outside or wrong_out < wrong - wrong_out:
            return False
    return True


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    """y = xᵀ for the judge's replay of a probed call (drills/pipeline/oplog_replay.py): exact."""
    (x,) = inputs
    return [(x.reshape(dims["M"], dims["N"]).T.copy(), 0.0)]
