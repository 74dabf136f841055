"""A stand-in for `practice/judge.py test N --json --file PATH`, for UI tests that must not depend on a
compiler or the simulator. It prints a canned result object (schema: drills/result.py) chosen from the
file's text, the way the real judge would decide for the two kernels in tests/web/kernels/:

- a tile and a __syncthreads(): pass, with per-line counters and warp samples;
- a tile and no barrier: fail, with the diagnosis "missing-barrier" on the line that reads the tile;
- anything else (the skeleton): fail, outputs never written.
Markers: `// fake-judge: gpu` answers as if judged on a GPU (timings, no counters);
`// fake-judge: sleep N` waits N seconds first; `// fake-judge: garbage` prints something that is not JSON.
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

SHAPES = [[1, 1], [31, 33], [33, 31], [1000, 1500]]
GLOBAL_BASE = 0x7F3A_0000_0000  # where a simulated allocation might live; only the offsets matter


def line_of(text: str, needle: str) -> int:
    for i, line in enumerate(text.splitlines(), 1):
        if needle in line and not line.lstrip().startswith("//"):
            return i
    return 0


def metrics(space: str, op: str, requests: int, cost: int) -> dict:
    if space == "global":
        return {f"l1tex__t_requests_pipe_lsu_mem_global_op_{op}.sum": requests,
                f"l1tex__t_sectors_pipe_lsu_mem_global_op_{op}.sum": requests * cost,
                f"smsp__inst_executed_op_global_{op}.sum": requests}
    return {f"smsp__inst_executed_op_shared_{op}.sum": requests,
            f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum": requests * cost,
            f"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{op}.sum": requests * (cost - 1)}


def sample(space: str, op: str, addresses: list[int]) -> dict:
    return {"space": space, "op": op, "bytes_per_lane": 4, "active_mask": 0xFFFFFFFF,
            "address": addresses, "block": [1, 0, 0], "warp": 0}


def counters(file: str, text: str, width: int) -> list:
    """Stage 1 reads x by rows (coalesced); stage 2 reads the tile down a column: conflict-free when
    the tile is `width` = 33 words wide, 32-way conflicts when it is 32."""
    load_line, read_line = line_of(text, "= x["), line_of(text, "= tile[")
    conflict = 1 if width == 33 else 32
    # As the real judge reports them (drills/pipeline/counters.py): requests, cost per request and
    # its ideal per op, besides the raw metrics and one warp's sample.
    lines = [
        {"file": file, "line": load_line,
         "metrics": {**metrics("global", "ld", 1024, 4), **metrics("shared", "st", 1024, 1)},
         "sample": sample("global", "ld", [GLOBAL_BASE + 128 + 4 * lane for lane in range(32)]),
         "requests": {"global_ld": 1024, "shared_st": 1024}, "per_request": {"global_ld": 4.0, "shared_st": 1.0},
         "ideal": {"global_ld": 4.0, "shared_st": 1.0}},
        {"file": file, "line": read_line,
         "metrics": {**metrics("shared", "ld", 1024, conflict), **metrics("global", "st", 1024, 4)},
         "sample": sample("shared", "ld", [4 * (lane * width) for lane in range(32)]),
         "requests": {"shared_ld": 1024, "global_st": 1024}, "per_request": {"shared_ld": float(conflict), "global_st": 4.0},
         "ideal": {"shared_ld": 1.0, "global_st": 4.0}},
    ]
    return [{"entry": "transpose_tiled", "kernel": "transpose_tiled_kernel(float const*, float*, int, int)",
             "grid": [2, 2, 1], "block": [32, 8, 1], "shape": [64, 64], "metrics": {}, "static_shared_bytes": 4 * 32 * width,
             "lines": lines}]


def check(id: str, status: str, message: dict) -> dict:
    return {"id": id, "status": status, "severity": "fail", "title": message, "message": message,
            "entry": "transpose_tiled", "shape": [1024, 2048], "diagnosis": "", "lines": []}


def result(number: int, file: str, text: str) -> dict:
    tiled = "tile[" in text
    barrier = re.search(r"^\s*__syncthreads\(\)", text, re.M) is not None
    base = {"version": 1, "problem": number, "file": file, "backend": {"kind": "sim", "device": "drills simulator"},
            "checks": [], "diagnoses": [], "counters": [], "perf": None, "log": "", "seconds": 1.5}
    if tiled and barrier:
        width = 33 if re.search(r"tile\[TILE\]\[TILE \+ 1\]|\[33\]", text) else 32
        tests = [{"name": f"tiled_{m}x{n}", "status": "pass", "message": "", "shape": [m, n], "variant": "transpose_tiled",
                  "mismatches": "", "evidence": {}, "source": "gtest"} for m, n in SHAPES]
        return {**base, "status": "pass", "message": {"zh": "通过：全部 4 个用例正确。", "en": "Passed: all 4 cases correct."},
                "tests": tests,
                "checks": [check("shared-memory-used", "pass", {"zh": "用到了共享内存", "en": "shared memory is used"}),
                           check("no-bank-conflicts", "pass" if width == 33 else "fail",
                                 {"zh": "按列读 tile 没有 bank 冲突", "en": "reading the tile down a column is conflict-free"})],
                "counters": counters(file, text, width)}
    if tiled:
        line = line_of(text, "= tile[")
        tests = [{"name": f"tiled_{m}x{n}", "status": "fail" if m > 1 else "pass", "message": "",
                  "shape": [m, n], "variant": "transpose_tiled",
                  "mismatches": "[0, 8] expected 8 got -1" if m > 1 else "", "evidence": {"wrong": "7"},
                  "source": "gtest"} for m, n in SHAPES]
        return {**base, "status": "fail",
                "message": {"zh": f"未通过：第 {line} 行共享内存竞争。", "en": f"Failed: a shared-memory race at line {line}."},
                "tests": tests,
                "diagnoses": [{"id": "missing-barrier", "file": file, "line": line,
                               "message": {"zh": f"共享内存竞争（第 {line} 行）：block (0,0,0) thread (1,1,0) 读了别的 warp 写入的数据，中间没有 __syncthreads()。",
                                           "en": f"Shared-memory race at line {line}: block (0,0,0) thread (1,1,0) read data another warp wrote with no __syncthreads() between."}}],
                "counters": counters(file, text, 33)}
    tests = [{"name": f"tiled_{m}x{n}", "status": "fail", "message": "", "shape": [m, n], "variant": "transpose_tiled",
              "mismatches": "[0, 0] expected 0 got nan (never written)", "evidence": {"unwritten": str(m * n)},
              "source": "gtest"} for m, n in SHAPES]
    return {**base, "status": "fail", "message": {"zh": "未通过：输出没有被写入。", "en": "Failed: the output was never written."},
            "tests": tests}


def on_gpu(r: dict) -> dict:
    """The same verdict as judged on a GPU: timings instead of the simulator's counters."""
    variants = [{"name": name, "shape": [8192, 8192], "ms": ms, "gbps": round(2 * 8192 * 8192 * 4 / ms / 1e6, 1),
                 "pct_copy_kernel": pct, "pct_memcpy": pct - 2, "vs_torch": 1.1}
                for name, ms, pct in (("transpose_naive", 0.41, 29.0), ("transpose_tiled", 0.135, 88.5))]
    return {**r, "backend": {"kind": "gpu", "device": "NVIDIA H200"}, "counters": [],
            "perf": {"shapes": [[8192, 8192]], "memcpy_gbps": {"8192x8192": 4150.0}, "variants": variants, "torch": {}}}


def main(argv: list[str]) -> int:
    number, path = int(argv[argv.index("test") + 1]), Path(argv[argv.index("--file") + 1])
    text = path.read_text(encoding="utf-8")
    pause = re.search(r"// fake-judge: sleep (\d+(?:\.\d+)?)", text)
    if pause:
        time.sleep(float(pause.group(1)))
    if "// fake-judge: garbage" in text:
        print("this is not JSON")
        return 2
    r = result(number, "mine/" + path.name, text)
    if "// fake-judge: gpu" in text:
        r = on_gpu(r)
    print(json.dumps(r, ensure_ascii=False))
    return {"pass": 0, "fail": 1}.get(r["status"], 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
