#!/usr/bin/env python3
"""Build one single-file CUDA program against the simulator, run it, and collect its launches.

    python3 sim/runtime/sim_run.py PROGRAM.cu --lib-dir DIR [--json OUT] [-- ARGS...]

DIR holds libdrills_cudart_sim.so (the build tree's sim/runtime, or $DRILLS_SIM_LIB_DIR). The
program's stdout, stderr and exit code pass through; the result object is

    {"version": 1, "exit_code": N, "launches": [{kernel, mangled, grid, block, seconds, metrics,
     lines, errors, predicted}, ...], "events": [other report records: host faults, unsupported calls]}

where predicted is the time model's {"gpu": "H200", "seconds", "bound": "dram" | "l2" | "shared" |
"issue" | "latency", "bounds", "occupancy", ...} (sim/model/predict.py; seconds null, with a reason,
where the model gives no number).

with launches in launch order. The judge's `sim-run` subcommand uses build_command(), run() and
result_from_report() from here.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

# What a CUDA program needs to run on the simulator (DrillsSim.cmake applies the same to targets).
NVCC_FLAGS = ["-cudart=none", "-lineinfo", "-gencode", "arch=compute_80,code=compute_80",
              "-compress-mode=none", "-std=c++17", "-O3"]
LAUNCH_KEYS = ("kernel", "mangled", "grid", "block", "seconds", "metrics", "lines", "errors")

# Exit codes of the simulator itself (the program's own pass through unchanged).
EXIT_UNSUPPORTED = 3        # an unsupported CUDA runtime call or PTX construct
EXIT_HOST_DEREF = 4         # host code dereferenced device memory
EXIT_BUILD_FAILED = 2       # this script: nvcc failed


def nvcc() -> str:
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    candidate = Path(cuda) / "bin" / "nvcc"
    return str(candidate) if candidate.exists() else "nvcc"


def build_command(source: Path, output: Path, lib_dir: Path, extra: list[str] | None = None) -> list[str]:
    lib_dir = Path(lib_dir).resolve()
    return [nvcc(), *NVCC_FLAGS, *(extra or []), str(source), "-o", str(output),
            f"-L{lib_dir}", "-ldrills_cudart_sim", "-Xlinker", f"-rpath,{lib_dir}"]


REPORT_LIMIT = 16 * 2**20   # bytes of the report read: a program that launches without end stops counting here
RECORD_LIMIT = 20000        # records kept (launches and events)
RUN_TIMEOUT = 600.0         # seconds a program may run (--timeout); then it and what it started are killed
BUILD_TIMEOUT = 600.0


def read_report(path: Path, limit: int = REPORT_LIMIT) -> list[dict]:
    """The JSON lines the library appended: the first RECORD_LIMIT of those in its first `limit`
    bytes; a torn last line (a killed process, or the limit) is skipped."""
    records = []
    if not path.exists():
        return records
    with open(path, "rb") as f:
        data = f.read(limit)
    for line in data.decode(errors="replace").splitlines():
        if len(records) >= RECORD_LIMIT:
            break
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return records


def result_from_report(exit_code: int, records: list[dict]) -> dict:
    launches = [{k: r.get(k) for k in LAUNCH_KEYS} for r in records if r.get("event") == "launch"]
    events = [r for r in records if r.get("event") != "launch"]
    return {"version": 1, "exit_code": exit_code, "launches": launches, "events": events}


MODEL = Path(__file__).resolve().parent.parent / "model"


def predict(result: dict, executable: Path, gpu: str = "H200") -> dict:
    """Adds the time model's "predicted": {"gpu", "seconds", "bound", ...} to every launch
    (sim/model/predict.py); a launch it cannot speak for gets "seconds": null and a reason."""
    import runpy
    try:
        resources = runpy.run_path(str(MODEL / "resources.py"))["kernel_resources"](executable)
        runpy.run_path(str(MODEL / "predict.py"))["annotate"](result, gpu, resources)
    except Exception as e:  # the counters stand without a prediction
        for launch in result.get("launches", []):
            launch["predicted"] = {"gpu": gpu, "seconds": None, "bound": None, "reason": f"time model failed: {e}"}
    return result


def run(executable: Path, args: list[str], env: dict | None = None, timeout: float | None = None,
        **popen) -> dict:
    """Runs the built program with a fresh report file; its output goes where popen says
    (by default, this process's stdout and stderr: passed through, never read into memory; a
    kernel's printf is capped by the simulator). After `timeout` seconds (exit code 124), or an
    interrupt, the program and everything it started in its session are killed."""
    with tempfile.TemporaryDirectory(prefix="drills-sim-run-") as tmp:
        report = Path(tmp) / "report.jsonl"
        env = dict(os.environ if env is None else env, DRILLS_SIM_REPORT=str(report))
        proc = subprocess.Popen([str(executable), *args], env=env, start_new_session=True, **popen)
        try:
            code = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            code = 124
        finally:  # also on Ctrl-C: the program has a session of its own, the terminal's signal misses it
            _kill_session(proc)
        return result_from_report(code, read_report(report))


def _kill_session(proc: subprocess.Popen) -> None:
    import signal
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        pass


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    program_args: list[str] = []
    if "--" in argv:
        cut = argv.index("--")
        argv, program_args = argv[:cut], argv[cut + 1:]
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("program", type=Path)
    parser.add_argument("--lib-dir", type=Path, default=os.environ.get("DRILLS_SIM_LIB_DIR"))
    parser.add_argument("--json", type=Path, help="write the result object here ('-': stdout)")
    parser.add_argument("--nvcc-flag", action="append", default=[], help="extra nvcc flag")
    parser.add_argument("--timeout", type=float, default=RUN_TIMEOUT,
                        help=f"seconds the program may run (default {RUN_TIMEOUT:g}; exit code 124 after)")
    opts = parser.parse_args(argv)
    if not opts.lib_dir or not (Path(opts.lib_dir) / "libdrills_cudart_sim.so").exists():
        parser.error("--lib-dir (or DRILLS_SIM_LIB_DIR) must name the folder of libdrills_cudart_sim.so")

    with tempfile.TemporaryDirectory(prefix="drills-sim-build-") as tmp:
        exe = Path(tmp) / opts.program.stem
        log = Path(tmp) / "nvcc.log"  # a file, not a pipe read into memory
        with open(log, "wb") as sink:
            try:
                code = subprocess.run(build_command(opts.program, exe, opts.lib_dir, opts.nvcc_flag), stdout=sink,
                                      stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT).returncode
            except subprocess.TimeoutExpired:
                code = None
        if code != 0:
            with open(log, "rb") as f:
                sys.stderr.write(f.read(64 * 1024).decode(errors="replace"))
            why = f"did not finish in {BUILD_TIMEOUT:g} s" if code is None else "failed"
            sys.stderr.write(f"sim-run: nvcc {why} to build {opts.program}\n")
            return EXIT_BUILD_FAILED
        result = predict(run(exe, program_args, timeout=opts.timeout), exe)

    if opts.json:
        text = json.dumps(result, indent=1)
        if str(opts.json) == "-":
            print(text)
        else:
            opts.json.write_text(text + "\n")
    return result["exit_code"] if result["exit_code"] >= 0 else 128 - result["exit_code"]


if __name__ == "__main__":
    sys.exit(main())
