#!/usr/bin/env python3
"""A launch's time on a named GPU, from the simulator's counters: the time model (issue 14).

    python3 sim/model/predict.py RESULT.json [--program EXE] [--gpu H200]   # adds "predicted"

Each launch is bounded five ways, each a time on the GPU of gpus.py:

  dram     bytes the active lanes load and store (sim__global_{ld,st}_bytes; the L2 keeps a
           sector until every block that shares it is done), at the measured read rate, writes
           a little dearer, the last 21 MB written left in L2 when the kernel ends, writes of
           neighbouring blocks that land far apart at the measured scattered-store efficiency;
  l2       32-byte sectors through L2 (requests' sectors, the write-back of the stored bytes),
           and the partial sectors of scattered stores (beyond a coalesced store's two ends) at
           the measured read-modify-write rate;
  shared   shared-memory wavefronts at one per SM per clock;
  issue    warp instructions as the SASS issues them (smsp__inst_executed.sum) at 4 per SM per clock;
  latency  waves of resident blocks (occupancy from ptxas's registers and shared memory, threads,
           blocks) times a block's critical path (sim__block_cycles, from the latencies of gpus.py),
           longer for blocks of more than 8 warps (their slowest warp ends them).

The prediction is the soft maximum (exponent gpus.Gpu.smooth) of the latency bound and the
largest of the four throughput bounds, plus the launch cost
(a timed call adds gpus.Gpu.call_seconds once: table.py and variants.py),
and the bound is the largest. A launch the model cannot speak for gets "seconds": null and a
reason: one whose stores leave sectors for blocks far away in launch order to complete, when DRAM
or L2 is its bound (content/c3.md §8.2: the H200 loses up to a third there, for reasons the counters do
not show).

Launches simulated in part (DRILLS_SIM_SAMPLE_BLOCKS) are scaled by blocks launched / blocks run.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from gpus import GPUS, Gpu  # noqa: E402

BOUNDS = ("dram", "l2", "shared", "issue", "latency")
DEFAULT_REGISTERS = 32  # what the simulator's occupancy API assumes when ptxas is not at hand


def occupancy(gpu: Gpu, threads: int, registers: int, shared: int) -> tuple[int, str]:
    """Resident blocks per SM and what limits them."""
    warps = max(1, math.ceil(threads / 32))
    per_warp = math.ceil(registers * 32 / gpu.register_unit) * gpu.register_unit
    limits = {
        "threads": gpu.max_threads_per_sm // (warps * 32),
        "blocks": gpu.max_blocks_per_sm,
        "registers": gpu.registers_per_sm // (per_warp * warps) if per_warp else gpu.max_blocks_per_sm,
        "shared memory": gpu.shared_per_sm // (shared + gpu.shared_reserved_per_block) if shared else gpu.max_blocks_per_sm,
    }
    limiter = min(limits, key=limits.get)
    return max(0, limits[limiter]), limiter


def predict_launch(launch: dict, gpu: Gpu, resources: dict | None = None) -> dict:
    """{"gpu", "seconds", "bound", "bounds": {name: seconds}, ...} for one launch record."""
    m = launch.get("metrics") or {}
    blocks = math.prod(launch.get("grid") or [1])
    threads = math.prod(launch.get("block") or [1])
    out = {"gpu": gpu.name, "seconds": None, "bound": None}
    if launch.get("errors"):
        out["reason"] = "the launch failed on the simulator"
        return out
    run = m.get("sim__blocks.sum") or 0
    if not run or "sim__block_cycles.sum" not in m:
        out["reason"] = "no time-model counters in this launch record"
        return out
    scale = blocks / run

    def total(name: str) -> float:
        return (m.get(name) or 0) * scale

    res = (resources or {}).get(launch.get("mangled") or "", {})
    registers = res.get("registers", DEFAULT_REGISTERS)
    shared = res.get("shared", 0)
    per_sm, limiter = occupancy(gpu, threads, registers, shared)
    if per_sm == 0:
        out["reason"] = f"no block fits on an SM ({limiter})"
        return out

    ld_bytes, st_bytes = total("sim__global_ld_bytes.sum"), total("sim__global_st_bytes.sum")
    st_requests = total("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum")
    # Blocks that write a little to many DRAM pages, pages their launch-order neighbours do not
    # write, spread the writes over the DRAM's rows: the fewer bytes a page, the dearer.
    pages, near = m.get("sim__st_pages_next.sum") or 0, m.get("sim__st_pages_shared.sum") or 0
    scattered = bool(pages) and near < 0.5 * pages
    write_efficiency = 1.0
    if scattered:
        per_page = (m.get("sim__st_bytes_scattered.sum") or 0) / max(1, pages - near)
        write_efficiency = min(1.0, max(gpu.scattered_store_efficiency,
                                        1 - (1 - gpu.scattered_store_efficiency) * 128 / max(per_page, 1)))
    atomic_sectors = sum(total(f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum") for op in ("atom", "red"))
    ld_sectors = total("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum") + atomic_sectors
    st_sectors = total("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum")
    partial = min(st_sectors, total("sim__st_partial_writes.sum"))
    wavefronts = total("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum") + \
        total("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum")
    instructions = total("smsp__inst_executed.sum")

    per_sm_blocks = math.ceil(blocks / gpu.sms)
    waves = math.ceil(per_sm_blocks / per_sm)
    cycles = m["sim__block_cycles.sum"] / run if waves > 1 else m.get("sim__block_cycles.max", 0)
    # A block ends with its slowest warp: the more warps wait on memory, the later the last one.
    cycles *= 1 + gpu.block_tail * math.log2(max(1.0, math.ceil(threads / 32) / 8))
    bounds = {
        "dram": (ld_bytes + gpu.dram_write_cost * max(0.0, st_bytes - gpu.l2_write_back_bytes) / write_efficiency)
                / gpu.dram_read_bytes_per_s,
        # L1 requests' sectors and the write-back of the stored bytes; a coalesced store writes at
        # most its two end sectors in part, every further partial sector (scattered stores) costs
        # the L2 a read-modify-write on top.
        "l2": (ld_sectors + st_sectors + st_bytes / 32) / gpu.l2_sectors_per_s
              + max(0.0, partial - 2 * st_requests) / gpu.l2_partial_store_sectors_per_s,
        "shared": wavefronts / (gpu.sms * gpu.shared_wavefronts_per_sm_clock * gpu.clock_hz),
        "issue": instructions / (gpu.sms * gpu.issue_per_sm_clock * gpu.clock_hz),
        "latency": waves * cycles / gpu.clock_hz,
    }
    # The throughput bounds are pipelines working side by side: the slowest one sets the pace.
    # Latency and that pace overlap only in part: a soft maximum joins them.
    k = gpu.smooth
    pace = max(v for name, v in bounds.items() if name != "latency")
    seconds = (pace ** k + bounds["latency"] ** k) ** (1 / k) + gpu.launch_seconds
    bound = max(bounds, key=bounds.get)
    out.update({"seconds": seconds, "bound": bound, "bounds": bounds, "scattered_stores": scattered,
                "occupancy": {"blocks_per_sm": per_sm, "limit": limiter, "registers": registers,
                              "registers_from": "ptxas" if res else "assumed", "waves": waves}})
    if scale != 1:
        out["sampled"] = {"blocks_run": run, "blocks": blocks}

    # Sectors this launch's blocks leave for others to complete, none of them by the next block.
    # Only the first block of each pair of neighbours counts them: half the blocks run.
    first, shared_next = m.get("sim__st_partial_sectors.sum") or 0, m.get("sim__st_partial_sectors_next.sum") or 0
    left_open = 2 * first * scale / st_sectors if st_sectors else 0.0
    if bound in ("dram", "l2") and left_open > 0.10 and shared_next < 0.25 * first:
        out["seconds"] = None
        out["reason"] = (f"not modelled: {left_open:.0%} of the store sectors are completed by blocks far "
                         "away in launch order (content/c3.md §8.2)")
        out["detail"] = ("The H200 loses up to a third of its DRAM bandwidth when the sectors a block "
                         "writes in part are completed by blocks that run much later; the counters do not "
                         "show why, so the model gives no number.")
    return out


def annotate(result: dict, gpu: str = "H200", resources: dict | None = None) -> dict:
    """Adds "predicted" to every launch of a sim-run result object (in place) and returns it."""
    model = GPUS[gpu]
    for launch in result.get("launches", []):
        launch["predicted"] = predict_launch(launch, model, resources)
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", type=Path, help="a sim-run --json result")
    ap.add_argument("--program", type=Path, help="the executable, for ptxas's registers")
    ap.add_argument("--gpu", default="H200", choices=sorted(GPUS))
    opts = ap.parse_args(argv)
    resources = None
    if opts.program:
        from resources import kernel_resources
        resources = kernel_resources(opts.program)
    result = annotate(json.loads(opts.result.read_text()), opts.gpu, resources)
    for launch in result["launches"]:
        p = launch["predicted"]
        t = f"{p['seconds'] * 1e3:.4f} ms" if p.get("seconds") else "-"
        print(f"{(launch.get('kernel') or '')[:60]:60} {t:>12} {p.get('bound') or p.get('reason', '')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
