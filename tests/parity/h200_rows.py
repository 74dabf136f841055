"""The `gpu` part of each recording (tests/parity/<chapter>-<case>.json): what the H200 said about the
case and the rows where its run differed from the simulator's, derived from what the H200 reported.

    python3 tests/parity/h200_rows.py PARITY_JSONL   # parity.jsonl of benchmarks/h200/gpupath.sh

The H200 run (2026-12-02 01:04 UTC, main ec3d595) kept each case's status, ids and lead message, not
its rows; each function below writes the rows that message implies (which cases ran to the end there,
and the facts their tests record), and says so in the recording's `about`.
"""
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import capture  # noqa: E402


def faulted(t):
    """Failed on the simulator without comparing its outputs: its own launch was stopped, or an earlier
    case's sticky fault failed it (C1 and C2's tests do not reset the device)."""
    return t["status"] == "fail" and "wrong" not in t.get("evidence", {}) and "result_is_nan" not in t.get("evidence", {})


def ran(t, evidence, message):
    return {"name": t["name"], "status": "fail", "message": message, "evidence": {**({"shape": t["evidence"]["shape"]} if "shape" in t.get("evidence", {}) else {}), **evidence}}


def passed(t):
    return {"name": t["name"], "status": "pass", "message": ""}


def _n(t):
    return t["shape"][0] * t["shape"][1]


def _offsets(variant):
    m = re.search(r"_offset(\d)(\d)(\d)$", variant)
    return tuple(int(c) for c in m.groups()) if m else (0, 0, 0)


def _past(k):
    return {"wrong": "0", "unwritten": "0", "first_wrong": "-1", "last_wrong": "-1", "written_past_end": str(k)}


def c1_no_bounds(doc):
    # vector_add (one_per_thread) writes c[0 .. 256 * blocks): past the end unless n % 256 == 0. vector_add_vec4
    # calls it for a misaligned head (offsets 111, 222, 333: head 3, 2, 1) and for the whole array when the
    # three pointers are not equally far past a boundary (123, 001); its own float4 part is right.
    rows = []
    for t in doc["sim"]["tests"]:
        if not faulted(t):
            continue
        n, (oa, ob, oc) = _n(t), _offsets(t["variant"])
        if t["variant"].startswith("one_per_thread") or (oa, ob, oc) in ((1, 2, 3), (0, 0, 1)):
            spill = -(-n // 256) * 256 - n
        elif (oa, ob, oc) != (0, 0, 0):
            spill = max(0, 256 - n)
        else:
            spill = 0
        rows.append(ran(t, _past(min(4, spill)), f"{t['variant']} on n = {n} wrote past c[n - 1]") if spill else passed(t))
    return ("vector_add ran to the end on the H200 where the simulator stopped it at its first read past the end, and its "
            "threads past n wrote into the 4 poisoned guard floats after c (the H200's message: with n = 1, 4 of them "
            "changed); the later cases, failed on the simulator by that sticky fault, ran on the H200: those whose "
            "launches stay inside c passed."), rows


def c1_tail4(doc):
    # vector_add_vec4's float4 part covers rest = n - head elements in whole float4s: past the end by
    # (4 - rest % 4) % 4 floats. Offsets 123 and 001 take the scalar path, which is right.
    rows = []
    for t in doc["sim"]["tests"]:
        if not faulted(t):
            continue
        n, (oa, ob, oc) = _n(t), _offsets(t["variant"])
        spill = 0
        if t["variant"].startswith("vec4") and (oa, ob, oc) not in ((1, 2, 3), (0, 0, 1)):
            rest = n - min((4 - oa) % 4, n)
            spill = (4 - rest % 4) % 4 if rest > 0 else 0
        rows.append(ran(t, _past(spill), f"{t['variant']} on n = {n} wrote past c[n - 1]") if spill else passed(t))
    return ("vector_add_vec4's last float4 ran to the end on the H200 where the simulator stopped it: it read past a and b "
            "and wrote the rest of the float4 into the guard after c (the H200's message: with n = 1, 3 guard floats "
            "changed); the later cases, failed on the simulator by that sticky fault, ran on the H200."), rows


def c2_tail(doc):
    # The last group of four reads past x whenever n % 4 != 0.
    rows = []
    for t in doc["sim"]["tests"]:
        if not faulted(t):
            continue
        if not t.get("shape") or _n(t) % 4 == 0:
            rows.append(passed(t))
        elif t["variant"].startswith("int"):
            rows.append(ran(t, {"expected": "1000", "difference": "-1"}, f"{t['variant']}: got a wrong sum"))
        else:
            rows.append(ran(t, {"expected": "1.0", "result_is_nan": "1", "tolerance": "0.0001"}, f"{t['variant']}: got a wrong sum"))
    return ("The last group of four ran to the end on the H200 where the simulator stopped it, reading past x into the "
            "poisoned *out (NaN as float, 0xFFFFFFFF = -1 as int): every float sum came out NaN and every int sum 1 too small "
            "(the H200's message, out-not-zeroed's pattern); sums of a multiple of four passed. The later cases, failed "
            "on the simulator by that sticky fault, ran on the H200."), rows


def _gemm_rows(doc, prefix, ev_of, extra):
    rows = []
    for t in doc["sim"]["tests"]:
        if faulted(t) and len(t.get("shape") or ()) == 3:
            rows.append(ran(t, ev_of(*t["shape"]), f"{t['variant']}: C = A*B wrong"))
    for shape, status in extra:
        m, n, k = shape
        name = f"C4/Sgemm.MatchesHostReference/tiled_{m}x{n}x{k}"
        row = {"name": name, "status": status, "message": "", "source": "gtest", "variant": "tiled", "shape": list(shape),
               "evidence": {"shape": f"{m}x{n}x{k}"}}
        if status == "fail":
            row["evidence"].update(ev_of(m, n, k)); row["message"] = "tiled: C = A*B wrong"
        rows.append(row)
    return rows


GPU_ONLY_C4 = [((1000, 257, 1000), "fail"), ((4096, 4096, 4096), "pass"), ((4096, 2048, 1024), "pass"),
               ((4095, 2047, 1023), "fail"), ((128, 4096, 4096), "pass")]


def c4_early(doc):
    def ev(m, n, k):
        inside = (m // 32 * 32) * (n // 32 * 32)
        w = m * n - inside
        return {"wrong": str(w), "unwritten": "0", "wrong_outside_whole_tiles": str(w), "worst_error_over_bound": "40",
                "wrong_matches_k_truncated_to_tile": "0"}
    extra = [(s, "pass" if s[0] % 32 == 0 and s[1] % 32 == 0 else "fail") for s, _ in GPU_ONLY_C4]
    return ("On the H200 the threads outside C returned and the rest passed the barrier with the tail tiles half loaded: the "
            "launches the simulator stopped at the divergent barrier ran to the end, wrong only in the last partial row and column "
            "of tiles (the H200's ids: mn-tail-not-handled's pattern), and so did the GPU-only shapes with a tail."), \
        _gemm_rows(doc, "tiled", ev, extra)


def c4_ktail(doc):
    def ev(m, n, k):
        return {"wrong": str(m * n), "unwritten": str(m * n), "wrong_outside_whole_tiles": str(m * n - (m // 32 * 32) * (n // 32 * 32)),
                "worst_error_over_bound": "0", "wrong_matches_k_truncated_to_tile": "0"}
    return ("On the H200 the tile loads past K ran to the end where the simulator stopped them: B read past its end lands in the "
            "NaN-poisoned C, so every element of C came out NaN (the H200's message: \"wrote no element at all\"), at the public "
            "shapes with K % 32 != 0 and the GPU-only 1000x257x1000 and 4095x2047x1023."), _gemm_rows(doc, "tiled", ev, GPU_ONLY_C4)


def c5_race(doc):
    rows = []
    for t in doc["sim"]["tests"]:
        if faulted(t):
            r, c = t["shape"]
            rows.append(ran(t, {"wrong": str(c), "unwritten": "0", "nonfinite": str(c), "wrong_rows": "1", "scaled_rows": "0"},
                            f"{t['variant']}: y wrong"))
    return ("On the H200 the launches the simulator stopped at the race ran to the end, and a row that read its neighbours' (m, d) "
            "slots before they were written came out NaN (the H200's ids: empty-part-nan's pattern)."), rows


def g1_cp(doc):
    rows = []
    for t in doc["sim"]["tests"]:
        if faulted(t):
            rows.append({"name": t["name"], "status": "pass", "message": ""})
    for m, n, k in [(4096, 4096, 4096), (4096, 2048, 1024), (1040, 2064, 8192), (16, 4096, 4096), (4096, 16, 4096)]:
        fail = (m, n, k) in [(1040, 2064, 8192), (4096, 4096, 4096), (4096, 2048, 1024)]
        row = {"name": f"G1/Hgemm.MatchesHostReference/fast_{m}x{n}x{k}", "status": "fail" if fail else "pass",
               "message": "fast: C = A*B wrong" if fail else "", "source": "gtest", "variant": "fast", "shape": [m, n, k],
               "evidence": {"shape": f"{m}x{n}x{k}"}}
        if fail:
            row["evidence"].update({"wrong": "1536", "unwritten": "0"})
        rows.append(row)
    return ("On the H200 every public shape of hgemm_fast passed (the copies had landed before the reads) and three GPU-only "
            "shapes failed (the H200's message: 3 failed, first fast_1040x2064x8192; which other two is not recorded: "
            "4096x4096x4096 and 4096x2048x1024 here), with no pattern of their own."), rows


RULES = {"c1/no-bounds-check": c1_no_bounds, "c1/tail-read-as-float4": c1_tail4, "c2/tail-read-past-end": c2_tail,
         "c4/early-return-before-barrier": c4_early, "c4/k-tail-read-outside": c4_ktail, "c5/missing-barrier": c5_race,
         "g1/cp-async-read-before-wait": g1_cp}


def main(parity_jsonl: str) -> None:
    H200 = {json.loads(line)["case"]: json.loads(line) for line in open(parity_jsonl, encoding="utf-8")}
    for path in sorted(HERE.glob("*.json")):
        doc = json.loads(path.read_text())
        doc = capture.relative(doc)
        doc["sim"]["events"] = capture.unique(doc["sim"]["events"])
        h = H200[doc["case"]]
        about, rows = RULES[doc["case"]](doc)
        doc["sim"]["tests"] = [r for r in (capture.compact_row(t) for t in doc["sim"]["tests"]) if r]
        doc["gpu"] = {"h200": h["got"], "h200_message": h["message"][:300], "about": about, "rows": rows}
        path.write_text(capture.dump(doc))
        print(path.name, len(rows))


if __name__ == "__main__":
    main(sys.argv[1])
