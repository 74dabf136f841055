"""The one result object every view renders: the terminal, `--json`, the web app and the grader.
Its JSON Schema is drills/result.schema.json (published; the tests validate every result against it).

Version 1 (JSON):
{
  "version": 1,
  "problem": <number>,
  "file": "mine/c3_transpose.cu",            # what was judged, relative to the repo when inside it
  "status": "pass" | "fail" | "error",        # error: compile error, crash, timeout, unsupported, bad usage
  "message": {"zh": "...", "en": "..."},     # one line: the verdict and the first reason
  "backend": {"kind": "gpu" | "sim", "device": "NVIDIA H200"},
  "tests": [{"name": "tiled_31x33", "status": "pass|fail|error|skip", "message": "...",
             "shape": [31, 33], "variant": "tiled", "mismatches": "[r, c] expected X got Y ...",
             "evidence": {"wrong": "12", "unwritten": "0", "output_is_input_copied": "0"},
             "absent": true}],                 # a skip of a variant the file does not define (not the learner's case)
  "checks": [{"id": "shared-memory-used", "status": "pass|fail|error", "severity": "fail|note", "message": {"zh","en"},
              "title": {"zh","en"}, "entry": "transpose_tiled", "shape": [1024, 2048],
              "diagnosis": "no-shared-memory",             # raised when the check fails
              "lines": [{"file","line","op","per_request","ideal","kernel"}]}],   # per-line rules: failing lines
  "diagnoses": [{"id": "missing-barrier", "message": {"zh","en","key"}, "facts": {...}, "file": "mine/c3_transpose.cu", "line": 42,
                 "replay": {"tool": "simulator", "case": "C3/Transpose...tiled_31x33"}}],   # replay: on a GPU, found by
                                              # running the case on a simulator build (drills/pipeline/replay.py)
                                              # ids and their order: drills/pipeline/diagnose.py
  "counters": [{"entry": "transpose_tiled", "shape": [M, N], "kernel": "...", "grid": [x,y,z], "block": [x,y,z],
                "metrics": {...}, "static_shared_bytes": 4224,
                "lines": [{"file","line","metrics","sample",          # sample: one warp's 32 lane addresses
                           "requests": {"global_st": n, ...},       # global_ld|global_st|shared_ld|shared_st
                           "per_request": {"global_st": 4.0, ...},  # sectors (global) / wavefronts (shared)
                           "ideal": {"global_st": 4.0, ...}}]}],    # from the simulator's technique probe
                                                                    # (drills/pipeline/probe.py, drills/pipeline/counters.py)
  "perf": {"shapes": [...], "memcpy_gbps": {...}, "variants": [{"name", "shape", "ms", "gbps",
           "pct_copy_kernel", "pct_memcpy", "vs_torch",
           "outside_ms", "confirmed"}],                  # on a GPU: this process's clock (timecheck.py)
           "unconfirmed": [{"name", "shape", "why", "message"}],  # times it did not confirm: verdict error
           "torch": {...}} | null,
  "log": "the tail of the build or run output, for errors",
  "seconds": 3.2,
  "timings": {"build": 0.9, "tests": 1.2, "probe": 0.8, "total": 3.2}   # where the time went (--verbose);
                                              # build-sim and replay run beside the GPU's build and tests
}
Exit codes: 0 pass, 1 fail, 2 error.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

from . import RESULT_VERSION
from .messages import render_result, say

EXIT_CODES = {"pass": 0, "fail": 1, "error": 2}


def msg(zh: str, en: str) -> dict:
    return {"zh": zh, "en": en}


@dataclass
class Result:
    problem: int | None
    file: str = ""
    status: str = "error"
    message: dict = field(default_factory=lambda: msg("", ""))
    backend: dict = field(default_factory=dict)
    tests: list = field(default_factory=list)
    checks: list = field(default_factory=list)
    diagnoses: list = field(default_factory=list)
    counters: list = field(default_factory=list)
    perf: Any = None
    log: str = ""
    seconds: float = 0.0
    timings: dict = field(default_factory=dict)  # seconds per phase (build, tests, replay, probe, perf, ...)
    version: int = RESULT_VERSION

    def to_dict(self) -> dict:
        d = asdict(self)
        return {"version": d.pop("version"), **d}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.status]

    def diagnose(self, id: str, *, key: str = "", file: str = "", line: int = 0, message: dict | None = None,
                 **facts) -> None:
        """Name a diagnosis (once per id) with the facts its message needs; the message is rendered
        last (drills/messages.py) from the catalogue key `key` (default diagnosis.<id>)."""
        if any(d["id"] == id for d in self.diagnoses):
            return
        plain = {k: v for k, v in facts.items() if isinstance(v, (str, int, float)) and not isinstance(v, bool)}
        self.diagnoses.append({"id": id, "message": message or say(key or f"diagnosis.{id}", file=file, line=line, **facts),
                               "facts": plain, "file": file, "line": line})


def error(problem: int | None, message: dict, file: str = "", log: str = "", diagnosis: str = "") -> Result:
    """An error result outside the judging pipeline (the grader's, the web app's, bad usage): its
    message (a catalogue reference, say(...), or plain {zh, en}) is rendered now."""
    r = error_say(problem, message, file, log, diagnosis)
    render_result(r)
    return r


def error_say(problem: int | None, message: dict, file: str = "", log: str = "", diagnosis: str = "") -> Result:
    """An error result of the pipeline: its message (say(...)) is rendered by the last stage."""
    r = Result(problem=problem, file=file, status="error", message=message, log=log)
    if diagnosis:
        r.diagnose(diagnosis, file=file, message=message)
    return r
