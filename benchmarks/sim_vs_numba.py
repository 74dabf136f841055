#!/usr/bin/env python3
"""Simulated elements per second: our simulator against numba's CUDA simulator (issue 3, item 7).

    python3 benchmarks/sim_vs_numba.py [--size 2048] [--numba-size 128] [--reps 3]

The kernel is the padded tile transpose ([32][33] shared tile, 32x8 block, 4 elements a thread),
written once in CUDA C++ (benchmarks/sim_transpose_padded.cu) and once for numba.cuda.jit.

- Ours: the program is built against the simulator and transposes SIZE x SIZE floats REPS times.
  A launch's time is the report's `seconds` (wall time the simulator spent in that launch: blocks
  executed, counters and checks included; process start, copies and host-side checking excluded).
  Elements per second = SIZE^2 / the fastest launch. Run with DRILLS_SIM_THREADS=1 and with all cores.
- numba: NUMBA_ENABLE_CUDASIM=1 (in a child process, since the variable must be set before numba is
  imported). numba's simulator runs every CUDA thread as a Python thread and is far too slow for
  2048^2, so it transposes a smaller matrix (NUMBA_SIZE^2, 128^2 by default); elements per second
  = NUMBA_SIZE^2 / the wall time of the launch (after a warm-up launch at 32x32).

Prints both rates and their ratio. A benchmark, not a test: pytest does not collect it.
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

KERNEL = Path(__file__).resolve().parent / "sim_transpose_padded.cu"


def numba_worker(size: int) -> None:
    """Runs in a child with NUMBA_ENABLE_CUDASIM=1; prints one JSON line."""
    global cuda  # the simulator swaps the kernel's global `cuda` for its fake module
    import numba
    import numpy as np
    from numba import cuda

    assert os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
    TILE, ROWS = 32, 8

    @cuda.jit
    def transpose_padded(x, y):
        tile = cuda.shared.array((TILE, TILE + 1), dtype=numba.float32)
        m, n = x.shape
        c = cuda.blockIdx.x * TILE + cuda.threadIdx.x
        r0 = cuda.blockIdx.y * TILE + cuda.threadIdx.y
        for j in range(0, TILE, ROWS):
            r = r0 + j
            if r < m and c < n:
                tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = x[r, c]
        cuda.syncthreads()
        yc = cuda.blockIdx.y * TILE + cuda.threadIdx.x
        yr0 = cuda.blockIdx.x * TILE + cuda.threadIdx.y
        for j in range(0, TILE, ROWS):
            yr = yr0 + j
            if yr < n and yc < m:
                y[yr, yc] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]

    def launch(k: int) -> float:
        x = np.arange(k * k, dtype=np.float32).reshape(k, k)
        dx, dy = cuda.to_device(x), cuda.device_array((k, k), dtype=np.float32)
        grid = ((k + TILE - 1) // TILE, (k + TILE - 1) // TILE)
        start = time.perf_counter()
        transpose_padded[grid, (TILE, ROWS)](dx, dy)
        cuda.synchronize()
        seconds = time.perf_counter() - start
        assert np.array_equal(dy.copy_to_host(), x.T), "numba transpose is wrong"
        return seconds

    launch(32)  # warm-up
    seconds = launch(size)
    print(json.dumps({"numba": numba.__version__, "size": size, "seconds": seconds,
                      "elements_per_second": size * size / seconds}))


def run_numba(size: int) -> dict:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, __file__, "--numba-worker", str(size)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"numba run failed (pip install numba?):\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_ours(size: int, reps: int, threads: int | None, exe: Path) -> dict:
    sim_run = runpy.run_path(str(ROOT / "sim" / "runtime" / "sim_run.py"))
    env = dict(os.environ)
    env.pop("DRILLS_SIM_THREADS", None)
    if threads:
        env["DRILLS_SIM_THREADS"] = str(threads)
    start = time.perf_counter()
    result = sim_run["run"](exe, [str(size), str(size), str(reps)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wall = time.perf_counter() - start
    if result["exit_code"] != 0 or len(result["launches"]) != reps:
        raise SystemExit(f"simulator run failed: {result}")
    seconds = [launch["seconds"] for launch in result["launches"]]
    return {"threads": threads or os.cpu_count(), "launch_seconds": seconds, "process_wall_seconds": wall,
            "elements_per_second": size * size / min(seconds)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=2048, help="our simulator: SIZE x SIZE (2048)")
    parser.add_argument("--numba-size", type=int, default=128, help="numba's simulator: N x N (128)")
    parser.add_argument("--reps", type=int, default=3, help="launches on our simulator (3)")
    parser.add_argument("--numba-worker", type=int, help=argparse.SUPPRESS)
    opts = parser.parse_args()
    if opts.numba_worker:
        numba_worker(opts.numba_worker)
        return 0

    from drills.pipeline.build import sim_runtime_dir
    sim_run = runpy.run_path(str(ROOT / "sim" / "runtime" / "sim_run.py"))
    lib_dir, log = sim_runtime_dir()
    if lib_dir is None:
        print(log[-3000:])
        return 2
    with tempfile.TemporaryDirectory(prefix="drills-bench-") as tmp:
        exe = Path(tmp) / "sim_transpose_padded"
        build = subprocess.run(sim_run["build_command"](KERNEL, exe, lib_dir), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
        if build.returncode != 0:
            print(build.stdout)
            return 2
        one = run_ours(opts.size, opts.reps, 1, exe)
        every = run_ours(opts.size, opts.reps, None, exe)
    numba = run_numba(opts.numba_size)

    n = opts.size
    print(f"padded tile transpose [32][33], 32x8 block, 4 elements a thread; {os.cpu_count()} cores here")
    print(f"  ours,  {n}x{n}, 1 host thread:   {one['elements_per_second'] / 1e6:8.2f} M elements/s "
          f"(fastest of {opts.reps} launches, report 'seconds': "
          f"{', '.join(f'{s:.3f}' for s in one['launch_seconds'])} s)")
    print(f"  ours,  {n}x{n}, {every['threads']} host threads:  {every['elements_per_second'] / 1e6:8.2f} M elements/s "
          f"(launches {', '.join(f'{s:.3f}' for s in every['launch_seconds'])} s)")
    k = numba['size']
    print(f"  numba {numba['numba']} CUDA simulator, {k}x{k} (smaller: it is slow), 1 launch: "
          f"{numba['elements_per_second']:10,.0f} elements/s ({numba['seconds']:.2f} s wall)")
    print(f"  ratio, 1 host thread:  {one['elements_per_second'] / numba['elements_per_second']:,.0f}x numba")
    print(f"  ratio, {every['threads']} host threads: {every['elements_per_second'] / numba['elements_per_second']:,.0f}x numba")
    return 0


if __name__ == "__main__":
    sys.exit(main())
