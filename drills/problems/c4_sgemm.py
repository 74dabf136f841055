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
from ..messages import is_reference
from ..pipeline.diagnose import evidence_int, nothing_written, rows_by_entry
from ..result import Result

# Most specific first. tiles-not-reused and few-fmas-per-shared-load are raised by the tiles-reused
# and register-blocking checks (their wording is in the .toml too).
DIAGNOSES = ("output-not-written", "k-tail-not-handled", "a-b-indices-swapped", "c-indices-swapped",
             "mn-tail-not-handled", "edge-tiles-unwritten", "grid-axes-swapped", "tile-index-wrong", "tiles-not-reused",
             "few-fmas-per-shared-load")
STORE_LINE_DIAGNOSES = ()

TILE = 32  # the skeleton's tile: evidence's "whole tiles" and the K tail are counted in it
# GoogleTest variant name -> entry point, the contract's first.
ENTRIES = {"tiled": "sgemm_tiled", "naive": "sgemm_naive", "fast": "sgemm_fast",
           "uncoalesced": "sgemm_uncoalesced", "blocktile_1d": "sgemm_blocktile_1d",
           "blocktile_2d": "sgemm_blocktile_2d", "vectorized": "sgemm_vectorized",
           "warptile": "sgemm_warptile", "double_buffered": "sgemm_double_buffered"}


def diagnose_outputs(problem: Problem, result: Result) -> None:
    # What the simulator found (a race, a barrier, an access outside an array) already explains wrong
    # outputs: the last rule, which names no particular mistake, is then left out.
    explained = bool(result.diagnoses)
    for fn, tests in rows_by_entry(result, ENTRIES).items():
        tests = [t for t in tests if len(t.get("shape") or ()) == 3]
        if _diagnose_entry(result, fn, tests, explained):
            result.diagnoses[-1]["entry"] = fn
            return


def _shapes(tests: list, limit: int = 4) -> str:
    return ", ".join("x".join(str(d) for d in t["shape"]) for t in tests[:limit])


def _diagnose_entry(result: Result, fn: str, tests: list, explained: bool = False) -> bool:
    failed = [t for t in tests if t["status"] == "fail"]
    if not failed:
        return False
    passed = [t for t in tests if t["status"] == "pass"]
    with_ev = [t for t in failed if "wrong" in t.get("evidence", {})]
    ev = [t["evidence"] for t in with_ev]

    # Nothing written at every failing shape (the GPU-only ones compare part of C: `checked`).
    if with_ev and len(with_ev) == len(failed) and all(nothing_written(t) for t in with_ev):
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

    # The two rules below read the exercise's 32×32 tiles (one block per tile of C): for the other
    # variants the facts would not mean the same.
    if fn != "sgemm_tiled" or not ev:
        return False
    # Only the last, partial row and column of tiles are NaN: the grid was rounded down (a shape smaller
    # than one tile gets no block at all, and its launch is refused: those rows carry no evidence).
    if all(0 < evidence_int(e, "unwritten") == evidence_int(e, "wrong") == evidence_int(e, "wrong_outside_whole_tiles")
           for e in ev):
        result.diagnose("edge-tiles-unwritten", fn=fn, shapes=_shapes(with_ev))
        return True
    if len(ev) != len(failed):
        return False
    tiles = lambda d: -(-d // TILE)  # noqa: E731
    # Some whole tiles of C are never written (NaN), the rest are right, and exactly the shapes whose M
    # and N need different numbers of tiles fail: block (x, y) computes tile (x, y) instead of (y, x).
    if all(0 < evidence_int(e, "unwritten") == evidence_int(e, "wrong") for e in ev) \
            and all(tiles(t["shape"][0]) != tiles(t["shape"][1]) for t in failed) \
            and all(t["status"] == "pass" for t in tests if tiles(t["shape"][0]) == tiles(t["shape"][1])):
        result.diagnose("grid-axes-swapped", fn=fn, shapes=_shapes(failed))
        return True
    # Wrong (written, finite) even where M, N and K are whole tiles, matching none of the mistaken
    # products above: the tiles are loaded or read with the wrong index.
    whole = [t for t in failed if all(d % TILE == 0 for d in t["shape"])]
    if whole and not explained and all(evidence_int(e, "unwritten") == 0 for e in ev):
        result.diagnose("tile-index-wrong", fn=fn, shapes=_shapes(whole))
        return True
    return False


def diagnose_check(problem: Problem, result: Result, check: dict) -> None:
    """A failed check whose diagnosis the core has no rule for (tiles-not-reused, few-fmas-per-shared-load),
    worded with the check's measured facts. A check that measured nothing (no launch) raises nothing. A
    kernel without shared memory has no tiles to reuse: when the shared-memory check fails too, its
    diagnosis alone names the cause."""
    measured = check.get("message") if is_reference(check.get("message")) else None
    if measured is None or measured["key"] != "check.total":
        return  # not measured (no launch: the output diagnoses say why)
    if check["diagnosis"] == "tiles-not-reused" and any(
            c["status"] == "fail" and c.get("diagnosis") == "no-shared-memory" for c in result.checks):
        return
    result.diagnose(check["diagnosis"], **{**measured["facts"], "entry": check["entry"]})


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    """C = A·B in float64 for the judge's replay of a probed call (drills/pipeline/oplog_replay.py),
    within 2·K·eps·(|A|·|B|): any order of the K float32 multiply-adds (C4 §3)."""
    import numpy as np
    M, N, K = dims["M"], dims["N"], dims["K"]
    a = inputs[0].astype(np.float64).reshape(M, K)
    b = inputs[1].astype(np.float64).reshape(K, N)
    return [(a @ b, 2 * K * float(np.finfo(np.float32).eps) * (np.abs(a) @ np.abs(b)))]
