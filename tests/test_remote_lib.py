"""Issue 16, item 1 (pytest side): pytest, the timing and the probe never load the learner's library.

drills.pipeline.capi.Lib starts a subject server (drills/pipeline/subject_server.py) that loads the
library and answers over a pipe pair. One wrong C3 file (its transpose_tiled copies) carries the
attacks on the loading process (tests/attacks/remote_lib.inc); DRILLS_ATTACK picks the one that
runs, so it is built once and each test is a warm judge call or one pytest run.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import kernel_backend, library_for
from attack_judge import attack_file, judge_attack

from drills import manifest
from drills.pipeline import build as builder
from drills.pipeline import execute
from drills.pipeline.capi import Lib, SubjectDied

ROOT = Path(__file__).resolve().parent.parent
ATTACK = ROOT / "tests" / "attacks" / "remote_lib.inc"
PROBLEM = manifest.find(manifest.load(), "c3_transpose")
PYTEST_FILE = ROOT / "tests" / "test_c3_transpose.py"


@pytest.fixture(scope="module")
def sim():
    if kernel_backend() != "sim":
        pytest.skip("the attacks run on the simulator")


def judge(file: Path, attack: str = "", **env) -> tuple[dict, float]:
    # junit-exit: the GoogleTest program, the learner's process, prints to the judge's stdout
    return judge_attack(78, file, attack, ("--no-perf",), skip_printed=True, **env)


@pytest.fixture(scope="module")
def hostile(sim) -> tuple[Path, Path]:
    """(the wrong C3 file with the attacks, its C ABI library), built by a judge call without attack."""
    text = (ROOT / "solutions" / "c3_transpose.cu").read_text()
    wrong = text.replace("void transpose_naive(const float* x,", "void transpose_naive_real(const float* x,", 1)
    wrong = wrong.replace("void transpose_tiled(const float* x,", "void transpose_tiled_real(const float* x,", 1)
    assert wrong.count("_real(const float* x,") == 2, "the reference changed: update the fixture"
    path = attack_file(wrong, ATTACK, ROOT / "build" / "attacks" / "c3_transpose.cu")
    d, _ = judge(path)  # builds it; without an attack it is just wrong
    assert d["status"] == "fail", d["message"]["en"]
    tiled = [t for t in d["tests"] if t["source"] == "pytest" and "transpose_tiled]" in t["name"]]
    assert tiled and any(t["status"] == "fail" for t in tiled)
    return path, builder.subject_for(PROBLEM, path, "sim").capi_library


def pytest_rows(library: Path, attack: str, **env) -> tuple[execute.Run, float]:
    """tests/test_c3_transpose.py against `library`, run as the judge runs it (execute.run_pytest)."""
    env = execute.base_env("sim", dict(DRILLS_SIM_THREADS="1", DRILLS_ATTACK=attack, **env))
    started = time.monotonic()
    run = execute.run_pytest(PYTEST_FILE, library, "sim", env, 300)
    return run, time.monotonic() - started


def by_name(run: execute.Run) -> dict:
    return {t["name"]: t for t in run.tests}


def test_python_run_by_the_library_patches_only_its_own_process(hostile, tmp_path):
    path, library = hostile
    mark = tmp_path / "mark"
    # The attack has teeth: loaded into a Python process the old way, it patches that process's numpy.
    probe = ("import ctypes, sys, numpy; ctypes.CDLL(sys.argv[1]); "
             "print(numpy.array_equal(numpy.zeros(2), numpy.ones(2)))")
    p = subprocess.run([sys.executable, "-c", probe, str(library)], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, DRILLS_ATTACK="pyrun", DRILLS_ATTACK_MARK=str(tmp_path / "control")))
    assert p.stdout.strip().splitlines()[-1:] == ["True"], p.stdout + p.stderr
    # Judged: it runs in the subject server, where neither numpy nor pytest is; the wrong
    # transpose_tiled fails in pytest as in GoogleTest.
    d, seconds = judge(path, "pyrun", DRILLS_ATTACK_MARK=str(mark))
    assert d["status"] == "fail", d["message"]["en"]
    tiled = [t for t in d["tests"] if t["source"] == "pytest" and "transpose_tiled]" in t["name"]]
    assert any(t["status"] == "fail" and "elements differ" in t["message"] for t in tiled), tiled[:2]
    lines = mark.read_text().splitlines()
    assert any(" load " in line for line in lines) and any(" call " in line for line in lines), lines
    assert all("numpy-patched=False pytest-loaded=False" in line for line in lines), lines
    assert seconds < 120


def test_a_forged_frame_and_exit_from_the_library_is_no_pass(hostile):
    path, library = hostile
    run, seconds = pytest_rows(library, "junit-exit")
    assert not run.channel, run.channel  # pytest's own frame came, and only it
    rows = by_name(run)
    naive = [t for n, t in rows.items() if "transpose_naive" in n]
    assert naive and all(t["status"] == "fail" for t in naive), naive[:2]
    # it exits, or the reply pipe carries its frame first: either way the call fails, nothing passes
    assert all("the file's process" in t["message"] and "during transpose_naive" in t["message"] for t in naive)
    assert seconds < 180
    d, _ = judge(path, "junit-exit")
    assert d["status"] != "pass", d["message"]["en"]


KILL_WRAPPER = """
import json, sys
from pathlib import Path
from drills.pipeline import execute
env = execute.base_env("sim", dict(DRILLS_SIM_THREADS="1", DRILLS_ATTACK="junit-kill"))
run = execute.run_pytest(Path(sys.argv[1]), Path(sys.argv[2]), "sim", env, 300)
Path(sys.argv[3]).write_text(json.dumps({"tests": run.tests, "crashed": run.crashed, "channel": run.channel}))
"""


def test_a_forged_frame_then_killing_pytest_is_no_pass(hostile, tmp_path):
    """The server cannot open pytest's descriptors (pytest is not dumpable) nor those of the
    process that reads the channel (it has more capabilities than the server keeps, when root):
    its frame goes nowhere, and pytest killed sends none."""
    _, library = hostile
    out = tmp_path / "run.json"
    # in a process of its own: the attack writes into its grandparent's pipes where it can
    subprocess.run([sys.executable, "-c", KILL_WRAPPER, str(PYTEST_FILE), str(library), str(out)], cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    run = json.loads(out.read_text())
    assert not any(t["status"] == "pass" for t in run["tests"]), run["tests"][:3]
    assert run["crashed"] == "killed by SIGKILL" or run["channel"], run


@pytest.mark.skipif(not shutil.which("setpriv"), reason="needs setpriv (util-linux) to run without capabilities")
def test_without_capabilities_the_judge_s_end_of_the_channel_is_out_of_reach(hostile, tmp_path):
    """As a user who is not root (here: root without capabilities), the judge and the server
    are equals: only the judge's dumpable flag keeps the server out of its descriptors."""
    _, library = hostile
    out = tmp_path / "run.json"
    subprocess.run(["setpriv", "--inh-caps=-all", "--bounding-set=-all", sys.executable, "-c", KILL_WRAPPER,
                    str(PYTEST_FILE), str(library), str(out)], cwd=ROOT,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
    run = json.loads(out.read_text())
    assert not any(t["status"] == "pass" for t in run["tests"]), run["tests"][:3]
    assert run["crashed"] == "killed by SIGKILL" or run["channel"], run


def test_a_segfault_in_one_variant_leaves_the_others_to_their_own_results(hostile):
    _, library = hostile
    run, seconds = pytest_rows(library, "segv")
    assert not run.channel and not run.crashed, (run.channel, run.crashed)
    rows = by_name(run)
    naive = [t for n, t in rows.items() if "transpose_naive" in n]
    assert naive and all(t["status"] == "fail" for t in naive)
    assert all("the file's process died (SIGSEGV) during transpose_naive" in t["message"] for t in naive), naive[0]
    # the reference's optional variants pass after the crashes; the wrong transpose_tiled fails on
    # its values (a 1xN or Nx1 copy is its transpose)
    for variant in ("transpose_tiled_unpadded", "transpose_tiled_swizzled", "transpose_fast"):
        mine = [t for n, t in rows.items() if n.endswith(f"-{variant}]")]
        assert mine and all(t["status"] == "pass" for t in mine), (variant, mine[:2])
    tiled = [t for n, t in rows.items() if n.endswith("-transpose_tiled]") or "[transpose_tiled]" in n]
    assert any(t["status"] == "fail" and "elements differ" in t["message"] for t in tiled)
    assert all("died" not in t["message"] for t in tiled)
    assert all(t["status"] == "pass" for n, t in rows.items() if n.startswith("pytest.test_inplace_square"))
    assert seconds < 180


def test_the_server_answers_like_the_library_and_survives_its_crashes(sim):
    """The reference through the server: memory round trip, calls, a refused argument type, a
    crash (the server killed) answered by SubjectDied and a fresh server for the next call."""
    import ctypes
    lib = Lib(library_for(PROBLEM.slug))
    x = np.arange(6 * 5, dtype=np.float32).reshape(6, 5) + 1
    dx, dy = lib.upload(x), lib.alloc(x.nbytes)
    lib.poison(dy, x.nbytes)
    assert np.isnan(lib.download(dy, (5, 6))).all()
    lib.call("transpose_tiled", (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int), dx, dy, 6, 5)
    assert lib.sync() == 0
    assert np.array_equal(lib.download(dy, (5, 6)), x.T)
    assert lib.entry("transpose_naive") and not lib.entry("no_such_function")
    with pytest.raises(TypeError):
        lib.call("transpose_tiled", (ctypes.POINTER(ctypes.c_float),), None)
    with pytest.raises(TypeError):
        lib.call("transpose_tiled", (ctypes.c_int,), "6; import os")
    first = lib._proc.pid
    lib._proc.kill()
    with pytest.raises(SubjectDied, match=r"died \(SIGKILL\) during cudaDeviceSynchronize after transpose_tiled"):
        lib.sync()
    lib.free(dx)  # a pointer of the dead server: never sent to the new one
    lib.free(dy)
    assert lib.entry("transpose_tiled") and lib._proc.pid != first
    assert lib.sync() == 0
    lib.close()


def test_the_server_gets_no_channel_and_no_ptrace(sim, monkeypatch):
    r, w = os.pipe()
    try:
        monkeypatch.setenv("DRILLS_RESULT_FD", str(w))
        os.set_inheritable(w, True)
        lib = Lib(library_for(PROBLEM.slug))
        pid = lib._proc.pid
        fds = set(os.listdir(f"/proc/{pid}/fd"))
        environ = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
        status = dict(line.split(":\t", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                      if ":\t" in line)
        targets = {os.readlink(f"/proc/{pid}/fd/{fd}") for fd in fds}
        channel = os.readlink(f"/proc/self/fd/{w}")
        lib.close()
    finally:
        os.close(r)
        os.close(w)
    assert not any(e.startswith(b"DRILLS_RESULT_FD=") for e in environ)
    assert channel not in targets, targets
    assert status["NoNewPrivs"].strip() == "1"
    assert not int(status["CapEff"], 16) & (1 << 19)  # CAP_SYS_PTRACE
    assert not int(status["CapBnd"], 16) & (1 << 19)


@pytest.mark.parametrize("request_kind", ["sync", "upload"])
def test_a_child_holding_the_pipes_does_not_hide_the_server_s_death(sim, request_kind):
    """The server dies while another process (here this one, in the place of a child the library
    forked) holds its ends of both pipes open: no end of file comes and nobody reads, yet the
    request ends with SubjectDied within seconds, not at the judge's time limit."""
    lib = Lib(library_for(PROBLEM.slug))
    request_fd, reply_fd = Path(f"/proc/{lib._proc.pid}/cmdline").read_bytes().split(b"\0")[-3:-1]
    held = [os.open(f"/proc/{lib._proc.pid}/fd/{request_fd.decode()}", os.O_RDONLY),
            os.open(f"/proc/{lib._proc.pid}/fd/{reply_fd.decode()}", os.O_WRONLY)]
    try:
        lib._proc.kill()
        lib._proc.wait()
        started = time.monotonic()

        def waited_too_long(*_):
            raise TimeoutError("the request waited on a reply pipe that a live process holds open")
        previous = signal.signal(signal.SIGALRM, waited_too_long)
        signal.alarm(20)
        try:
            with pytest.raises(SubjectDied, match=r"died \(SIGKILL\)"):
                if request_kind == "sync":  # waits for a reply
                    lib.sync()
                else:  # 4 MiB: more than the request pipe holds, and nobody reads it
                    lib._ptrs.add(4096)
                    lib._ask("upload", "cudaMemcpy H2D", body=bytes(4 << 20), ptr=4096)
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)
        assert time.monotonic() - started < 10
    finally:
        for fd in held:
            os.close(fd)
    lib.close()


def test_the_timing_goes_through_the_server(sim):
    """perf.measure (the judge's GPU timing, here on the simulator's clock): every variant the
    library defines is timed in the server, an undefined one is left out, cudaMemcpy is timed."""
    from drills.pipeline import perf
    library = library_for(PROBLEM.slug)
    out = perf.measure(library, library, [(64, 96)], ["transpose_naive", "no_such_variant"], "copy_tiled")
    assert [v["name"] for v in out["variants"]] == ["transpose_naive"]
    assert out["variants"][0]["ms"] > 0 and out["shapes"][0]["memcpy_ms"] > 0
    assert out["shapes"][0]["bytes"] == 2 * 64 * 96 * 4


def test_the_library_printing_without_end_meets_the_judge_s_output_limit(hostile):
    """The server prints to the judge's end of pytest's output, not to pytest's capture file:
    a flood stops the run at the output limit instead of filling a temporary file until the
    time limit."""
    _, library = hostile
    run, seconds = pytest_rows(library, "flood")
    assert run.crashed.startswith("stopped after printing"), (run.crashed, run.channel, run.timed_out)
    assert seconds < 120
