"""Problem 84 (G1, GEMM on tensor cores): the diagnoses that read the pattern of wrong elements of C,
and the ones its technique checks raise.

tests/g1_hgemm_test.cu records, for each failing case, how many elements are wrong and unwritten,
whether every wrong output is a half, and which mistaken product C matches (the last partial K tile
dropped, an 8×8 block of A or B transposed, the right values in the wrong places of a 16×8 tile); the
rules below name the mistake from those facts, never from the learner's source text.
"""

from __future__ import annotations

import re

from ..manifest import Problem
from ..pipeline.diagnose import evidence_int, nothing_written
from ..result import Result

K_TILE = 32  # the skeleton's BK: a K loop that drops the last partial tile shows at K % 32 != 0

# Most specific first (after the simulator's race, barrier and shuffle findings).
DIAGNOSES = ("output-not-written", "wrong-accumulator-type", "k-loop-tail", "fragment-layout-wrong",
             "partial-tile-wrong", "no-tensor-cores", "no-ldmatrix", "missing-swizzle")
STORE_LINE_DIAGNOSES = ()


def _exact_case(test: dict) -> bool:
    """The all-ones and small-integer cases (their names carry "ones_" or "integers_")."""
    name = test.get("name", "")
    return "_ones_" in name or "_integers_" in name


def diagnose_outputs(problem: Problem, result: Result) -> None:
    # GoogleTest variants "mma", "mma_ones", "mma_integers" all test hgemm_mma: one group per entry point.
    by_variant: dict[str, list] = {}
    for t in result.tests:
        if t.get("variant") and t.get("shape") and len(t["shape"]) == 3:
            by_variant.setdefault(re.sub(r"_(ones|integers)$", "", t["variant"]), []).append(t)
    # What the simulator found (a race, an access outside an array) already explains wrong outputs: the
    # last rule, which names no single mistake, is then left out.
    explained = bool(result.diagnoses)
    # Variants right on all-ones inputs: every product is there, whatever went to the wrong place.
    ones_pass = {v for v, ts in by_variant.items()
                 if any("_ones_" in t.get("name", "") for t in ts)
                 and all(t["status"] == "pass" for t in ts if "_ones_" in t.get("name", ""))}
    # The exercise first, then the warm-up, then the learner's best; the reference's rungs last.
    first = {"mma": 0, "wmma": 1, "fast": 2}
    for variant in sorted(by_variant, key=lambda v: (first.get(v, 3), v)):
        if _diagnose_variant(result, variant, by_variant[variant], variant in ones_pass and not explained):
            result.diagnoses[-1]["entry"] = f"hgemm_{variant}"
            return


def _diagnose_variant(result: Result, variant: str, tests: list, ones_pass: bool = False) -> bool:
    failed = [t for t in tests if t["status"] == "fail"]
    if not failed:
        return False
    fn = f"hgemm_{variant}"
    with_ev = [t for t in failed if "wrong" in t.get("evidence", {})]
    ev = [t["evidence"] for t in with_ev]

    # Nothing written at every failing shape (the GPU-only ones compare part of C: `checked`).
    if with_ev and len(with_ev) == len(failed) and all(nothing_written(t) for t in with_ev):
        result.diagnose("output-not-written", fn=fn)
        return True

    normal = [t["evidence"] for t in with_ev if not _exact_case(t)]
    if normal and all(e.get("outputs_representable_in_half") == "1" for e in normal):
        result.diagnose("wrong-accumulator-type", fn=fn)
        return True

    truncated = [e for e in ev if evidence_int(e, "wrong_matches_k_truncated_to_tile") > 0]
    k_aligned = [t for t in tests if t["status"] in ("pass", "fail") and t["shape"][2] % K_TILE == 0]
    if truncated and all(t["shape"][2] % K_TILE != 0 for t in failed) and all(t["status"] == "pass" for t in k_aligned):
        shapes = ", ".join("x".join(str(d) for d in t["shape"]) for t in failed[:3])
        result.diagnose("k-loop-tail", fn=fn, shapes=shapes, tile=K_TILE)
        return True

    if any(e.get("wrong_matches_b_blocks_transposed") == "1" for e in ev):
        result.diagnose("fragment-layout-wrong", key="diagnosis.fragment-layout-wrong-b", fn=fn)
        return True
    if any(e.get("wrong_matches_a_blocks_transposed") == "1" for e in ev):
        result.diagnose("fragment-layout-wrong", key="diagnosis.fragment-layout-wrong-a", fn=fn)
        return True
    permuted = sum(evidence_int(e, "wrong_tiles_16x8_permuted") for e in ev)
    tiles = sum(evidence_int(e, "tiles_16x8") for e in ev)
    if tiles and permuted * 2 >= tiles:
        result.diagnose("fragment-layout-wrong", key="diagnosis.fragment-layout-wrong-c", fn=fn)
        return True

    if ev and all(evidence_int(e, "wrong_outside_whole_tiles") == evidence_int(e, "wrong") for e in ev):
        result.diagnose("partial-tile-wrong", fn=fn)
        return True

    # Right when every input is 1, wrong on random inputs, no pattern above: each product is summed, but
    # with the wrong partner (elements of A or B reach the wrong lane or register).
    if ones_pass and ev and all(evidence_int(e, "unwritten") == 0 for e in ev):
        result.diagnose("fragment-layout-wrong", key="diagnosis.fragment-layout-wrong-order", fn=fn)
        return True
    return False


def diagnose_check(problem: Problem, result: Result, check: dict) -> None:
    """A failed technique check whose diagnosis the core does not handle."""
    id = check.get("diagnosis", "")
    if id == "missing-swizzle":
        rows = [r for r in check.get("lines") or [] if r.get("op") == "shared_ldsm"]
        if rows:
            w = max(rows, key=lambda r: r["per_request"] / max(r["ideal"], 1e-9))
            result.diagnose("missing-swizzle", file=w["file"], line=w["line"], entry=check.get("entry", ""),
                            per_request=w["per_request"], ideal=w["ideal"],
                            ways=round(w["per_request"] / max(w["ideal"], 1e-9), 2))
        else:
            result.diagnose("missing-swizzle", key="diagnosis.missing-swizzle-total", entry=check.get("entry", ""),
                            check=check.get("message", ""))
    elif id in ("no-tensor-cores", "no-ldmatrix"):
        result.diagnose(id, entry=check.get("entry", ""))


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    """C = A·B (half inputs, float32 accumulation) in float64 for the judge's replay of a probed call
    (drills/pipeline/oplog_replay.py): the products of halves are exact in float32, so only the K
    additions round, within 2·K·eps·(|A|·|B|)."""
    import numpy as np
    M, N, K = dims["M"], dims["N"], dims["K"]
    a = inputs[0].astype(np.float64).reshape(M, K)
    b = inputs[1].astype(np.float64).reshape(K, N)
    return [(a @ b, 2 * K * float(np.finfo(np.float32).eps) * (np.abs(a) @ np.abs(b)))]
