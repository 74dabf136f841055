"""The simulator's counters and outputs against an H200, and its determinism (issues 3 and 12).

Each sim/validation/*.cu is built once against the simulator and run here. Its launches are
compared, in order, with the ncu rows checked in as sim/validation/h200-ncu.json (made by
sim/validation/run_ncu.sh on the GPU and compare.py --write-json), within the issues' tolerances:
global requests and sectors 0.5%, shared store wavefronts 2%, shared load wavefronts 8%, the
tensor-core instruction counts and LDSM/STSM/LDGSTS wavefronts 2%; the rows compare.py lists as
known deviations must still deviate. What every program prints is held to
sim/validation/h200-outputs.json (benchmarks/h200/validation_outputs.sh): bit for bit, mma and wmma
included. Nothing here is skipped: a program without counters to compare (outputs only) gets no
counter test at all. The C3 kernels are also held to the ncu numbers in the H200 anchor (counters at M=1024,
N=2048).
"""

from __future__ import annotations

import importlib.util
import json
import os
import runpy
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from drills import ROOT
from drills.pipeline import build as builder

VALIDATION = ROOT / "sim" / "validation"
REFERENCE = VALIDATION / "h200-ncu.json"
PROGRAMS = sorted(p.stem for p in VALIDATION.glob("*.cu"))


def _load_compare():
    spec = importlib.util.spec_from_file_location("sim_validation_compare", VALIDATION / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compare = _load_compare()
sim_run = runpy.run_path(str(ROOT / "sim" / "runtime" / "sim_run.py"))

# ncu on one H200, --clock-control none, M=1024, N=2048 (the C3 anchor's counter table), in the
# launch order of c3_transpose.cu: naive, [32][32], [32][33].
ANCHOR_C3 = [
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 65536,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 262144,
     "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 65536,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 2097152,
     "smsp__inst_executed_op_shared_ld.sum": 0,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 0,
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 0,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 0},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 65536,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 262144,
     "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 65536,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 262144,
     "smsp__inst_executed_op_shared_ld.sum": 65536,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 2109143,
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 2043607,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 65536},
    {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": 65536,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": 262144,
     "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": 65536,
     "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": 262144,
     "smsp__inst_executed_op_shared_ld.sum": 65536,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 65536,
     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": 0,
     "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": 65536},
]


@pytest.fixture(scope="module")
def programs(tmp_path_factory) -> dict[str, Path]:
    """Every validation program, built against the simulator (in parallel)."""
    if not shutil.which(sim_run["nvcc"]()):
        pytest.skip("needs nvcc to build programs for the simulator")
    lib_dir, log = builder.sim_runtime_dir()
    if lib_dir is None:
        pytest.fail(f"the simulator's runtime library did not build:\n{log[-3000:]}")
    out = tmp_path_factory.mktemp("sim-validation")

    def build(name: str) -> tuple[str, Path, subprocess.CompletedProcess]:
        exe = out / name
        proc = subprocess.run(sim_run["build_command"](VALIDATION / f"{name}.cu", exe, lib_dir),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        return name, exe, proc

    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        built = list(pool.map(build, PROGRAMS))
    failed = [f"{name}:\n{proc.stdout[-2000:]}" for name, _, proc in built if proc.returncode != 0]
    if failed:
        pytest.fail("nvcc failed:\n" + "\n".join(failed))
    return {name: exe for name, exe, _ in built}


def run_with_output(exe: Path, threads: int | None = None) -> dict:
    """The sim-run result object of one run, with the program's output under 'output'."""
    env = dict(os.environ)
    if threads is not None:
        env["DRILLS_SIM_THREADS"] = str(threads)
    log = exe.parent / f"{exe.name}.{threads}.out"
    with open(log, "w") as fh:
        result = sim_run["run"](exe, [], env=env, timeout=300, cwd=exe.parent, stdout=fh, stderr=subprocess.STDOUT)
    result["output"] = log.read_text()
    return result


@pytest.fixture(scope="module")
def results(programs) -> dict[str, dict]:
    """One run of every program on the simulator (all host threads)."""
    return {name: run_with_output(exe) for name, exe in programs.items()}


@pytest.mark.parametrize("program", PROGRAMS)
def test_program_runs_clean_on_sim(results, program):
    result = results[program]
    assert result["exit_code"] == 0, f"{program} failed its own checks on the simulator:\n{result['output']}"
    assert result["launches"], f"{program}: no launches recorded"
    for launch in result["launches"]:
        assert not launch["errors"], f"{program}: {launch['kernel']}: {launch['errors'][0]['message']}"
    assert not result["events"], f"{program}: {result['events']}"


def _misses(program: str, sim_launches: list[dict], ncu_launches: list[dict]) -> list[str]:
    rows, problems = compare.compare_program(program, sim_launches, ncu_launches)
    return problems + [f"#{i} {kernel}: {metric} sim {s} ncu {n} ({shown})"
                       for _, i, kernel, metric, s, n, shown, passed in rows if passed is False]


def test_c3_counters_match_h200_anchor(results):
    launches = results["c3_transpose"]["launches"]
    ncu = [{"kernel": s["mangled"], "grid": [], "block": [], "metrics": m} for s, m in zip(launches, ANCHOR_C3)]
    assert len(launches) == 3
    assert not _misses("c3_transpose", launches, ncu)


# Programs held to ncu's counters. Not generated for the others, rather than skipped: an
# outputs-only program (compare.OUTPUTS_ONLY: tc_numerics, hundreds of tiny launches with nothing to
# profile) is held to the H200 by test_outputs_match_h200 alone, and a program still waiting for
# its H200 rows (compare.PENDING / PENDING_NCU, both empty today) has no counters to compare yet;
# test_pending_programs_have_no_ncu_rows keeps those lists honest.
COUNTER_PROGRAMS = [p for p in PROGRAMS if p not in compare.OUTPUTS_ONLY and p not in compare.PENDING
                    and not (p in compare.PENDING_NCU and p not in compare.load_reference(REFERENCE))]


@pytest.mark.parametrize("program", COUNTER_PROGRAMS)
def test_counters_match_h200_ncu(results, program):
    reference = compare.load_reference(REFERENCE)
    assert program in reference, f"{program} has no ncu rows in {REFERENCE.name}"
    misses = _misses(program, results[program]["launches"], reference[program])
    assert not misses, "\n".join(misses)


def test_pending_programs_have_no_ncu_rows():
    """A program listed as pending or outputs-only while its H200 rows are in h200-ncu.json would
    have counters nobody compares: move it back to the compared ones."""
    reference = compare.load_reference(REFERENCE)
    for program in PROGRAMS:
        if program not in COUNTER_PROGRAMS:
            assert program not in reference, f"{program} has ncu rows now: compare them (compare.PENDING, PENDING_NCU, OUTPUTS_ONLY)"
    assert set(COUNTER_PROGRAMS) | compare.OUTPUTS_ONLY == set(PROGRAMS), "a program is held to neither counters nor outputs"


@pytest.mark.parametrize("program", PROGRAMS)
def test_outputs_match_h200(results, program):
    """What the program prints: `result` digests identical, `values` within compare.OUTPUT_ULPS.
    Every program's outputs are recorded (benchmarks/h200/validation_outputs.sh, then
    `compare.py --outputs OUT/validation_outputs/run --write-outputs sim/validation/h200-outputs.json`)."""
    gpu = compare.load_outputs_reference().get(program)
    assert gpu, f"{program}: no outputs recorded on the H200 in {compare.OUTPUTS_REFERENCE.name}"
    rows, problems = compare.compare_outputs(program, results[program]["output"], gpu)
    misses = problems + [f"{name}: {shown}" for _, name, _, shown, passed in rows if passed is False]
    assert not misses, "\n".join(misses)
    # Every line the simulator prints is one the GPU printed too: a new output is recorded, not ignored.
    extra = set(compare.parse_outputs(results[program]["output"])) - set(gpu)
    assert not extra, f"{program}: printed on the simulator only (record it on the H200): {sorted(extra)}"


@pytest.mark.parametrize("program", PROGRAMS)
def test_validation_programs_print_outputs(results, program):
    """Every program prints what compare.py --outputs compares (digests of what its kernels wrote),
    so an H200 run can hold it to the GPU's results (a program that prints nothing could not fail)."""
    assert compare.parse_outputs(results[program]["output"]), f"{program} printed no result/values lines"


def _without_time(result: dict) -> dict:
    return {"exit_code": result["exit_code"], "output": result["output"], "events": result["events"],
            "launches": [{k: v for k, v in launch.items() if k != "seconds"} for launch in result["launches"]]}


@pytest.mark.parametrize("program", ["histogram", "c3_transpose"])
def test_deterministic(programs, results, program):
    """The same counters (per launch and per line), samples and results on every run, whatever
    the number of host threads."""
    first = _without_time(results[program])
    again = _without_time(run_with_output(programs[program]))
    one_thread = _without_time(run_with_output(programs[program], threads=1))
    assert again == first
    assert one_thread == first


def test_shared_wavefronts_match_ncu_per_instruction(results):
    """Where the aggregate shared-wavefront counters carry wavefronts no instruction issued (C3's
    partial edge tiles), ncu's per-SASS-instruction wavefronts (SourceCounters) must equal the
    simulator's exactly: issue 14, item 2."""
    evidence = json.loads((VALIDATION / "h200-source-counters.json").read_text())["programs"]
    for program, launches in evidence.items():
        sim = results[program]["launches"]
        assert len(sim) == len(launches), program
        for s, n in zip(sim, launches):
            m = s["metrics"]
            got = m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] + m["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
            assert got == n["wavefronts"], f"{program} {n['kernel']} {n['grid']}: sim {got}, ncu {n['wavefronts']}"


def test_shared_loads_match_the_sass_level_count(results):
    """Where the H200's smsp__inst_executed_op_shared_ld counts ptxas's never-executed LDS (a known
    deviation), the LDS that ran (smsp__sass_inst_executed_op_shared_ld, kept as extra) must equal
    the simulator's count exactly, launch by launch."""
    reference = compare.load_reference(REFERENCE)
    checked = 0
    for program, launches in reference.items():
        for index, (s, n) in enumerate(zip(results[program]["launches"], launches)):
            want = n.get("extra", {}).get("smsp__sass_inst_executed_op_shared_ld.sum")
            if want is None:
                continue
            got = s["metrics"].get("smsp__inst_executed_op_shared_ld.sum", 0)
            assert got == want, f"{program} #{index} {s['kernel']}: sim {got}, H200 (SASS level) {want}"
            checked += 1
    assert checked >= 23, f"only {checked} launches carry the SASS-level count"


def test_tensor_core_outputs_are_bit_exact():
    """The H200 run measured every output line bit-exact, so no line may carry a tolerance."""
    assert set(compare.OUTPUT_ULPS.values()) == {0}
    gpu = compare.load_outputs_reference()
    for program in ["hgemm_mma_pipeline", "hgemm_wmma", "ldmatrix_tiles", "cp_async_stages", "tc_numerics"]:
        assert gpu.get(program), f"{program}: no H200 outputs in {compare.OUTPUTS_REFERENCE.name}"
    assert {name.split("_")[0] for name in gpu["tc_numerics"]} >= {"mma", "wmma", "cvt", "fma", "neg", "abs"}


def test_known_deviations_still_deviate(results):
    """A KNOWN row that starts to agree with ncu means the simulator was fixed: drop the row."""
    reference = compare.load_reference(REFERENCE)
    for program, index, metric in compare.KNOWN_DEVIATIONS:
        rows, _ = compare.compare_program(program, results[program]["launches"], reference[program])
        verdicts = [r[7] for r in rows if r[1] == index and r[3] == metric]
        assert verdicts == ["known"], f"{program} #{index} {metric}: now {verdicts}; remove it from KNOWN_DEVIATIONS"
