"""The per-line memory report: for each source line that touches global or shared memory, what one
warp-level request costs (32-byte sectors for global memory, wavefronts for shared memory) and the
ideal for that request. Built from the simulator's launch records; rendered by the terminal and by
the browser's editor gutter.

A launch in the result's `counters`:
  {"entry": "transpose_tiled", "shape": [1024, 2048], "kernel", "grid", "block", "metrics",
   "static_shared_bytes": 4224,
   "lines": [{"file", "line", "metrics", "sample",
              "requests":    {"global_st": 16384, ...},   # warp-level instructions of that kind
              "per_request": {"global_st": 4.0, ...},     # sectors (global) or wavefronts (shared)
              "ideal":       {"global_st": 4.0, ...}}]}   # the fewest the bytes moved allow
"""

from __future__ import annotations

import math

from .. import messages

# op: (cost metric, request metric, unit). Names are Nsight Compute's.
OPS = {
    "global_ld": ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
                  "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "sectors"),
    "global_st": ("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
                  "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", "sectors"),
    "shared_ld": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
                  "smsp__inst_executed_op_shared_ld.sum", "wavefronts"),
    "shared_st": ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
                  "smsp__inst_executed_op_shared_st.sum", "wavefronts"),
    # ldmatrix: ncu counts its wavefronts inside shared_ld too; the smsp__sass_ names separate them.
    "shared_ldsm": ("smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum",
                    "smsp__sass_inst_executed_op_ldsm.sum", "wavefronts"),
}
CONFLICTS = {"shared_ld": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
             "shared_st": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
             "shared_ldsm": "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"}
SECTOR_BYTES = 32


def op_of(sample: dict) -> str:
    return f"{sample.get('space', '')}_{sample.get('op', '')}" if sample else ""


def _lanes(sample: dict) -> list[int]:
    mask = int(sample.get("active_mask", 0xFFFFFFFF))
    return [i for i in range(32) if mask >> i & 1]


def ideal_sectors(sample: dict | None, same_op: bool) -> float:
    """The fewest 32-byte sectors that could carry one request's bytes. From the line's warp sample:
    its distinct lane addresses when the sample is this kind of access, else a full warp of the
    sample's width (the other access on a line like `y[i] = tile[j]` moves the same type)."""
    width = int((sample or {}).get("bytes_per_lane", 4) or 4)
    if sample and same_op:
        addresses = sample.get("address", [])
        distinct = {addresses[i] for i in _lanes(sample) if i < len(addresses)}
        return float(max(1, math.ceil(len(distinct) * width / SECTOR_BYTES)))
    return float(math.ceil(32 * width / SECTOR_BYTES))


def line_view(line: dict) -> dict | None:
    """One line of the report with requests, per_request and ideal per op; None when the line
    touches no global or shared memory."""
    m = line.get("metrics", {})
    sample = line.get("sample") or {}
    requests, per_request, ideal = {}, {}, {}
    for op, (cost, count, _unit) in OPS.items():
        n = int(m.get(count, 0) or 0)
        if n <= 0:
            continue
        requests[op] = n
        per_request[op] = round(m.get(cost, 0) / n, 3)
        if op in CONFLICTS:  # the simulator counts conflicts as wavefronts beyond the ideal
            ideal[op] = round((m.get(cost, 0) - m.get(CONFLICTS[op], 0)) / n, 3)
        else:
            ideal[op] = ideal_sectors(sample, op_of(sample) == op)
    if not requests:
        return None
    return {"file": line.get("file", ""), "line": int(line.get("line", 0) or 0), "metrics": m,
            "sample": sample, "requests": requests, "per_request": per_request, "ideal": ideal}


def launch_view(launch: dict, entry: str, shape, shown_file: str, subject_file: str,
                static_shared: dict) -> dict:
    """A launch record as the result's `counters` entry: memory lines only, the subject's file
    shown as the result shows it."""
    lines = []
    for raw in launch.get("lines", []):
        view = line_view(raw)
        if view is None:
            continue
        if view["file"] == subject_file:
            view["file"] = shown_file
        lines.append(view)
    return {"entry": entry, "shape": list(shape), "kernel": launch.get("kernel", ""),
            "grid": launch.get("grid"), "block": launch.get("block"), "metrics": launch.get("metrics", {}),
            "static_shared_bytes": launch.get("static_shared_bytes", static_shared.get(launch.get("mangled", ""))),
            "lines": lines}


def unit(op: str, lang: str) -> str:
    return messages.t(f"words.{OPS[op][2]}", lang)
