"""Problem 81 (C4, SGEMM): the diagnoses that read the pattern of wrong elements of C.

For each failing case the GoogleTest file (tests/c4_sgemm_test.cu, record_evidence) records how many
checked elements are wrong and unwritten, how many lie outside the whole 32×32 tiles, and which
mistaken product C matches: the one without the last partial tile along K, A or B read as if stored
the other way round, C written transposed, or the tiled loop with its two tiles' indices exchanged.
The rules below name the mistake from those facts, never from the learner's source text; the
wording is drills/problems/c4_sgemm.toml.
"""

from __future__ import annotations

from ..manifest import Problem
from ..pipeline.diagnose import evidence_int, rows_by_entry
from ..result import Result

# Most specific first. tiles-not-reused and few-fmas-per-shared-load are raised by the tiles-reused
# and register-blocking checks (their wording is in the .toml too).
DIAGNOSES = ("output-not-written", "k-tail-not-handled", "a-b-indices-swapped", "c-indices-swapped",
             "mn-tail-not-handled", "tiles-not-reused", "few-fmas-per-shared-load")
STORE_LINE_DIAGNOSES = ()

TILE = 32  # the skeleton's tile: evidence's "whole tiles" and the K tail are counted in it
# GoogleTest variant name -> entry point, the contract's first.
ENTRIES = {"tiled": "sgemm_tiled", "naive": "sgemm_naive", "fast": "sgemm_fast",
           "uncoalesced": "sgemm_uncoalesced", "blocktile_1d": "sgemm_blocktile_1d",
           "blocktile_2d": "sgemm_blocktile_2d", "vectorized": "sgemm_vectorized",
           "warptile": "sgemm_warptile", "double_buffered": "sgemm_double_buffered"}


def diagnose_outputs(problem: Problem, result: Result) -> None:
    for fn, tests in rows_by_entry(result, ENTRIES).items():
        tests = [t for t in tests if len(t.get("shape") or ()) == 3]
        if _diagnose_entry(result, fn, tests):
            result.diagnoses[-1]["entry"] = fn
            return


def _shapes(tests: list, limit: int = 4) -> str:
    return ", ".join("x".join(str(d) for d in t["shape"]) for t in tests[:limit])


def _diagnose_entry(result: Result, fn: str, tests: list) -> bool:
    failed = [t for t in tests if t["status"] == "fail"]
    if not failed:
        return False
    passed = [t for t in tests if t["status"] == "pass"]
    with_ev = [t for t in failed if "wrong" in t.get("evidence", {})]
    ev = [t["evidence"] for t in with_ev]

    if with_ev and len(with_ev) == len(failed) and all(
            evidence_int(e, "unwritten") == t["shape"][0] * t["shape"][1] for t, e in zip(with_ev, ev)):
        result.diagnose("output-not-written", fn=fn)
        return True

    # Wrong exactly when K is not a multiple of the tile: the last partial tile along K is lost.
    truncated = [evidence_int(e, "wrong_matches_k_truncated_to_tile") for e in ev]
    tail_only = all(t["shape"][2] % TILE for t in failed) and any(
        t["shape"][2] % TILE == 0 and t["shape"][2] > TILE for t in passed)
    if any(truncated):
        result.diagnose("k-tail-not-handled", key="diagnosis.k-tail-dropped", fn=fn, tile=max(truncated),
                        shapes=_shapes(failed))
        return True
    if tail_only:
        result.diagnose("k-tail-not-handled", fn=fn, tile=TILE, shapes=_shapes(failed))
        return True

    if any(e.get("wrong_matches_tile_operands_swapped") == "1" for e in ev):
        result.diagnose("a-b-indices-swapped", key="diagnosis.tile-indices-swapped", fn=fn)
        return True
    if any(e.get("wrong_matches_a_read_transposed") == "1" for e in ev):
        result.diagnose("a-b-indices-swapped", key="diagnosis.a-read-transposed", fn=fn)
        return True
    if any(e.get("wrong_matches_b_read_transposed") == "1" for e in ev):
        result.diagnose("a-b-indices-swapped", key="diagnosis.b-read-transposed", fn=fn)
        return True
    if any(e.get("wrong_matches_c_written_transposed") == "1" for e in ev):
        result.diagnose("c-indices-swapped", fn=fn)
        return True

    # Every wrong element (written, not NaN) lies in the last partial row or column of tiles.
    if ev and len(ev) == len(failed) and all(
            evidence_int(e, "wrong") > evidence_int(e, "unwritten")
            and evidence_int(e, "wrong_outside_whole_tiles") == evidence_int(e, "wrong") for e in ev):
        result.diagnose("mn-tail-not-handled", fn=fn, shapes=_shapes(failed))
        return True
    return False
