"""`judge.py sim-run PROGRAM.cu [--json OUT] [-- ARGS...]`: any single-file CUDA program on the
simulator, its output and exit code passed through, its launches' counters as JSON."""

from __future__ import annotations

import runpy
from pathlib import Path

from .. import ROOT
from ..pipeline.build import sim_runtime_dir

SIM_RUN = ROOT / "sim" / "runtime" / "sim_run.py"


def add_arguments(p) -> None:
    p.add_argument("program", help="a .cu file with a main()")
    p.add_argument("--json", help="write {version, exit_code, launches} here ('-' for stdout)")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds the program may run (default 600); then it is stopped, exit code 124")


def main(args) -> int:
    program = Path(args.program)
    if not program.is_file():
        print(f"drills: {program}: no such file")
        return 2
    lib_dir, log = sim_runtime_dir()
    if lib_dir is None:
        print(log[-3000:])
        print("drills: the simulator's runtime library did not build (see above)")
        return 2
    sim_run = runpy.run_path(str(SIM_RUN))
    argv = [str(program), "--lib-dir", str(lib_dir)]
    if args.json:
        argv += ["--json", args.json]
    argv += ["--timeout", str(args.timeout)]
    return sim_run["main"](argv + ["--", *args.passthrough])
