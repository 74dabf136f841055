"""Run a built test binary (GoogleTest) or the pytest cases against a built library, with limits,
and turn their structured output into the result object's test rows."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from .. import ROOT, bytecode_env

OUTPUT_CAP = 64 * 1024  # keep this much of a run's output for the result's log
SIM_WATCHDOG_SECONDS = "10"  # a judged launch takes well under a second; a hang should not cost a minute


@dataclass
class Run:
    tests: list = field(default_factory=list)
    exit_code: int = 0
    timed_out: bool = False
    crashed: str = ""           # e.g. "killed by SIGSEGV", "" when the process ended normally
    output: str = ""
    sim_events: list = field(default_factory=list)
    running: str = ""           # the case in progress when the run was stopped or crashed (gtestrun.py)
    stopped: str = ""           # why the watchdog stopped it
    stopped_after: float = 0.0  # the limit it was stopped at, in seconds
    seconds: float = 0.0
    case_seconds: dict = field(default_factory=dict)  # GoogleTest's time per case


def _cap(text: str) -> str:
    return text if len(text) <= OUTPUT_CAP else "...\n" + text[-OUTPUT_CAP:]


def _exec(cmd: list[str], env: dict, timeout: float, cancel=None) -> tuple[int, str, bool]:
    """Run in its own process group so a timeout kills everything it started. `cancel` (a
    threading.Event) stops it early too: the judge's other run found a hang that this one would
    only wait for again."""
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    deadline = time.monotonic() + timeout
    while True:
        try:
            out, _ = proc.communicate(timeout=0.2 if cancel is not None else timeout)
            return proc.returncode, out.decode(errors="replace"), False
        except subprocess.TimeoutExpired:
            if time.monotonic() < deadline and not (cancel is not None and cancel.is_set()):
                continue
            os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return proc.returncode, out.decode(errors="replace"), True


def _crash_text(code: int) -> str:
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return ""


def read_sim_report(path: Path) -> list[dict]:
    """The simulator's JSON lines (launches, host faults); a torn last line is ignored."""
    events = []
    if not path.exists():
        return events
    for line in path.read_text(errors="replace").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return events


def base_env(backend: str, extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.pop("DRILLS_SIM_REPORT", None)
    if backend == "sim":
        env.setdefault("DRILLS_SIM_WATCHDOG", SIM_WATCHDOG_SECONDS)
    elif env.get("DRILLS_GPU_STANDIN") == "sim":  # a GPU has no watchdog: only the judge's stops a hang
        env["DRILLS_SIM_WATCHDOG"] = "100000"
    env.update(extra or {})
    return env


def _variant_and_shape(name: str):
    """"tiled_31x33" -> ("tiled", [31, 33]); "naive_7x33x1" -> ("naive", [7, 33, 1])."""
    m = re.match(r"(?P<variant>.+?)_(?P<dims>\d+(?:x\d+){1,2})$", name)
    if not m:
        return None, None
    return m["variant"], [int(v) for v in m["dims"].split("x")]


def _split_failure(text: str) -> tuple[str, str]:
    """GoogleTest's failure text: the first line after the location is the message; lines that
    look like "[r, c] expected X got Y" are the mismatches."""
    lines = [l for l in text.splitlines()[1:] if l.strip()]
    mism = [l.strip() for l in lines if re.match(r"\s*\[\d+, \d+\] expected", l)]
    rest = [l.strip() for l in lines if l.strip() not in mism]
    return " ".join(rest)[:500], "\n".join(mism)


def run_gtest(binary: Path, env: dict, timeout: float, evidence_keys=()) -> Run:
    """evidence_keys: the GoogleTest properties a row keeps as `evidence` (the manifest's
    [problem.diagnosis] evidence)."""
    with tempfile.TemporaryDirectory(prefix="drills-gtest-") as tmp:
        out_json = Path(tmp) / "gtest.json"
        report = Path(tmp) / "sim.jsonl"
        env = dict(env, DRILLS_SIM_REPORT=str(report))
        code, output, timed_out = _exec([str(binary), f"--gtest_output=json:{out_json}"], env, timeout)
        run = Run(exit_code=code, timed_out=timed_out, crashed=_crash_text(code), output=_cap(output),
                  sim_events=read_sim_report(report))
        if out_json.exists():
            run.tests = _gtest_rows(json.loads(out_json.read_text()), evidence_keys)
        return run


def _gtest_rows(doc: dict, evidence_keys=()) -> list[dict]:
    rows = []
    for suite in doc.get("testsuites", []):
        for case in suite.get("testsuite", []):
            full = case["name"]
            short = full.split("/")[-1]
            variant, shape = _variant_and_shape(short)
            row = {"name": f"{suite['name']}.{full}", "status": "pass", "message": "", "source": "gtest"}
            if variant:
                row["variant"], row["shape"] = variant, shape
            if case.get("result") == "SKIPPED":
                row["status"] = "skip"
                row["message"] = "skipped"
            elif case.get("failures"):
                row["status"] = "fail"
                msgs, mism = zip(*(_split_failure(f["failure"]) for f in case["failures"]))
                row["message"] = " | ".join(m for m in msgs if m)
                row["mismatches"] = "\n".join(m for m in mism if m)
            evidence = {k: case[k] for k in evidence_keys if k in case}
            if evidence:
                row["evidence"] = evidence
            rows.append(row)
    return rows


def run_pytest(test_file: Path, library: Path, backend: str, env: dict, timeout: float, cancel=None) -> Run:
    """The problem's pytest cases (Hypothesis shapes included) against one C ABI library."""
    with tempfile.TemporaryDirectory(prefix="drills-pytest-") as tmp:
        junit = Path(tmp) / "junit.xml"
        report = Path(tmp) / "sim.jsonl"
        # Only the plugin the cases need: a machine's other pytest plugins (anyio, trio, xdist,
        # benchmark, ...) cost more start-up than the cases themselves.
        # Compiled test modules go to build/pycache, never beside the tests (drills.bytecode_env).
        env = bytecode_env(dict(env, DRILLS_SUBJECT_LIB=str(library), DRILLS_BACKEND=backend,
                                DRILLS_SIM_REPORT=str(report), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"))
        plugins = ["-p", "_hypothesis_pytestplugin"] if importlib.util.find_spec("_hypothesis_pytestplugin") else []
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *plugins, f"--junitxml={junit}",
               str(test_file)]
        code, output, timed_out = _exec(cmd, env, timeout, cancel)
        run = Run(exit_code=code, timed_out=timed_out, crashed=_crash_text(code), output=_cap(output),
                  sim_events=read_sim_report(report))
        if junit.exists():
            run.tests = _junit_rows(junit)
        return run


def _junit_rows(path: Path) -> list[dict]:
    rows = []
    for case in ET.parse(path).getroot().iter("testcase"):
        row = {"name": f"pytest.{case.get('name')}", "status": "pass", "message": "", "source": "pytest"}
        for child in case:
            if child.tag == "skipped":
                row["status"], row["message"] = "skip", child.get("message", "skipped")
            elif child.tag in ("failure", "error"):
                row["status"] = "fail" if child.tag == "failure" else "error"
                text = (child.get("message") or "") + "\n" + (child.text or "")
                row["message"] = text.strip()[:800]
                mism = re.findall(r"\[\d+, \d+\] expected \S+ got \S+", text)
                if mism:
                    row["mismatches"] = "\n".join(dict.fromkeys(mism))
        rows.append(row)
    return rows
