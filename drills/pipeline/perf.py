"""GPU timing: each variant against the same-shape copy kernel and cudaMemcpy, in one run.

CUDA events around each call, warm-up first, the median of many calls, fresh random inputs,
bytes = read + write. The denominators are measured here, on this GPU, now: never a spec sheet.
Runs in its own process (`python -m drills.pipeline.perf ...`) so a crash cannot take the judge down.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from .build import Subject, shared_recipe, subject_for
from . import timecheck
from .capi import REPS, WARMUP, Lib
from ..messages import say

# PyTorch's version of the operation, timed the same way in its own process (its own CUDA runtime).
TORCH_SNIPPET = r"""
import json, sys, torch
dims = [int(v) for v in sys.argv[2].split("x")]
warmup, reps = int(sys.argv[3]), int(sys.argv[4])
x = torch.rand(*dims, device="cuda") * 2 - 1
y = torch.rand(*dims, device="cuda") * 2 - 1
op = eval("lambda x, y: " + sys.argv[1])
def t(f):
    for _ in range(warmup): f()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize(); times.append(a.elapsed_time(b))
    times.sort(); return times[len(times) // 2]
print(json.dumps({"op_ms": t(lambda: op(x, y)), "version": torch.__version__}))
"""


# The same, as a server: it imports torch and starts CUDA while the judge builds and tests (the
# import alone takes seconds), then times one "op<TAB>shape" per line of stdin, alone on the GPU.
TORCH_SERVER = r"""
import json, sys, torch
torch.zeros(1, device="cuda"); torch.cuda.synchronize()
print("ready", flush=True)
warmup, reps = int(sys.argv[1]), int(sys.argv[2])
for line in sys.stdin:
    op_text, shape = line.rstrip("\n").split("\t")
    dims = [int(v) for v in shape.split("x")]
    x = torch.rand(*dims, device="cuda") * 2 - 1
    y = torch.rand(*dims, device="cuda") * 2 - 1
    op = eval("lambda x, y: " + op_text)
    for _ in range(warmup): op(x, y)
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); op(x, y); b.record(); b.synchronize(); times.append(a.elapsed_time(b))
    times.sort()
    del x, y
    print(json.dumps({"op_ms": times[len(times) // 2], "version": torch.__version__}), flush=True)
"""


class TorchTimer:
    """PyTorch's times from a process started early (TORCH_SERVER); None answers when torch is not
    importable or the process died."""

    def __init__(self):
        self.proc = None
        from .execute import SPAWN_LOCK, own_child
        try:
            with SPAWN_LOCK:  # registered before any run's kill can look (execute.SPAWN_LOCK)
                self.proc = subprocess.Popen([sys.executable, "-c", TORCH_SERVER, str(WARMUP), str(REPS)],
                                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                             text=True, start_new_session=True)
                own_child(self.proc.pid)  # a server of ours, not an orphan of a run (execute.kill_run)
        except OSError:
            self.proc = None
        self.ready = None

    def times(self, op: str, dims) -> dict | None:
        if self.proc is None:
            return None
        try:
            if self.ready is None:  # whatever an import prints before our "ready" is not ours
                line = self.proc.stdout.readline()
                while line and line.strip() != "ready":
                    line = self.proc.stdout.readline()
                self.ready = bool(line)
            if not self.ready:
                return None
            self.proc.stdin.write(f"{op}\t{'x'.join(str(d) for d in dims)}\n")
            self.proc.stdin.flush()
            for line in self.proc.stdout:
                if line.startswith("{"):
                    return json.loads(line)
            return None
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def add_torch(out: dict, op: str, timer: TorchTimer) -> None:
    """PyTorch's row and each variant's ratio, from the early-started timer, after the subject's
    timing (so the two never share the GPU)."""
    for row in out.get("shapes", []):
        torch = timer.times(op, row["shape"])
        if not torch:
            return
        same = [v for v in out.get("variants", []) if v["shape"] == row["shape"]]
        op_bytes = same[0]["gbps"] * 1e9 * same[0]["ms"] * 1e-3 if same else row["bytes"]
        row.update(torch_op=op, torch_version=torch["version"], torch_ms=torch["op_ms"],
                   torch_gbps=gbps(op_bytes, torch["op_ms"]))
        for v in same:
            v["vs_torch"] = torch["op_ms"] / v["ms"]


def gbps(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


def torch_times(op: str, dims) -> dict | None:
    """PyTorch's time for `op` (an expression in x and y), or None when torch is not importable."""
    shape = "x".join(str(d) for d in dims)
    try:
        p = subprocess.run([sys.executable, "-c", TORCH_SNIPPET, op, shape, str(WARMUP), str(REPS)],
                           capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return None


def parse_shape(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.lower().split("x"))


def measure(subject_lib: Path, reference_lib: Path, shapes, variants, bound: str, torch_op: str = "",
            unit: str = "bytes", outside: bool = False) -> dict:
    """Each variant the subject defines, the reference's bound kernel and cudaMemcpy, per shape.
    unit "flops": the library reports operations per call; rates are then FLOP/s ("gbps" holds
    GFLOP/s) and there is no cudaMemcpy ceiling. outside: each time the subject reports is checked
    against this process's clock (timecheck); a time it does not confirm is listed under
    "unconfirmed" (the verdict is then `error`, and no tier comes from it)."""
    subj, ref = Lib(subject_lib), Lib(reference_lib)
    out = {"warmup": WARMUP, "reps": REPS, "statistic": "median", "unit": unit, "shapes": [], "variants": []}
    if outside:
        out["unconfirmed"] = []
    for dims in shapes:
        bound_ms, moved = ref.time_variant(bound, dims)
        # What one call of any variant moves at this shape, said by the reference, not by the file
        # (every variant of a problem moves the same, tests/*_capi.cu; the bound is the exception).
        expected = ref.moved(variants[0], dims) if outside and variants else None
        row = {"shape": list(dims), "bytes": moved, "copy_kernel_gbps": gbps(moved, bound_ms), "copy_kernel_ms": bound_ms}
        if unit == "bytes":
            half = int(moved // 2)  # cudaMemcpy reads and writes `half` bytes each
            src, dst = ref.alloc(half), ref.alloc(half)
            ref.poison(src, half)
            memcpy_ms = ref.memcpy_ms(dst, src, half)
            ref.free(src)
            ref.free(dst)
            row.update({"memcpy_gbps": gbps(moved, memcpy_ms), "memcpy_ms": memcpy_ms})
        torch = torch_times(torch_op, dims) if torch_op else None
        if torch:
            row["torch_op"] = torch_op
            row["torch_version"] = torch["version"]
        out["shapes"].append(row)
        op_bytes = moved  # what one call of the operation moves (a reduction reads only; an add reads 2, writes 1)
        for name in variants:
            if outside:
                timed = subj.time_variant_outside(name, dims)
                if timed is None:
                    continue
                problem = _unconfirmed(name, dims, timed, expected, moved, bound_ms)
                if problem is not None and problem["why"] == "below-outside":
                    # Once more before an error, and the second timing counts if it is confirmed: a
                    # busy host lengthens the outside time of an honest file, not the other way.
                    again = subj.time_variant_outside(name, dims)
                    if again is not None and _unconfirmed(name, dims, again, expected, moved, bound_ms) is None:
                        timed, problem = again, None
                ms, op_bytes = timed.ms, timed.moved
                if problem is not None:
                    out["unconfirmed"].append(problem)
            else:
                timed = subj.time_variant(name, dims)
                if timed is None:
                    continue
                ms, op_bytes = timed
            # Percentages compare bandwidths (bytes over time), so an operation that moves more or
            # fewer bytes than the copy is compared fairly; for a transpose they equal time ratios.
            v = {"name": name, "shape": list(dims), "ms": ms, "gbps": gbps(op_bytes, ms),
                 "pct_copy_kernel": 100 * gbps(op_bytes, ms) / row["copy_kernel_gbps"]}
            if "memcpy_gbps" in row:
                v["pct_memcpy"] = 100 * gbps(op_bytes, ms) / row["memcpy_gbps"]
            if torch:
                v["vs_torch"] = torch["op_ms"] / ms
            if outside:
                v.update(outside_ms=timed.outside_ms, outside_reps=timed.reps, confirmed=problem is None)
            out["variants"].append(v)
        if torch:
            row["torch_ms"] = torch["op_ms"]
            row["torch_gbps"] = gbps(op_bytes, torch["op_ms"])
    return out


def _unconfirmed(name: str, dims, timed, expected, bound_moved: float, bound_ms: float) -> dict | None:
    """None, or the row of out["unconfirmed"]: which variant, why, and the message."""
    shape = "x".join(str(d) for d in dims)
    facts = {"name": name, "shape": shape}
    if expected is not None and timed.moved != expected:
        return {**facts, "why": "moved-differs", "message": say("timing.moved-differs", moved=timed.moved,
                                                                expected=expected, **facts)}
    found = timecheck.judge(timed.ms, timed.outside_ms, timed.moved, bound_moved, bound_ms)
    if found.confirmed:
        return None
    if found.why == "too-slow":
        message = say("timing.too-slow", reps=timed.reps, reported=timed.ms, expected=timed.reps * timed.ms * 1e-3,
                      waited=timed.wall_many_s, **facts)
    elif found.why == "below-outside":
        message = say("timing.unconfirmed", reported=timed.ms, outside=timed.outside_ms, **facts)
    else:
        shortest = min(timed.ms, timed.outside_ms)
        bound_per_work = bound_ms / bound_moved * timed.moved  # the bound's time for this work
        message = say("timing.faster-than-bound", time=shortest, bound=bound_per_work,
                      factor=bound_per_work / max(shortest, 1e-9), **facts)
    return {**facts, "why": found.why, "reported_ms": timed.ms, "outside_ms": timed.outside_ms,
            "outside_reps": timed.reps, "message": message}


def confirm_timing(backend: str, grading: bool = False) -> bool:
    """Whether the times a file reports are checked against this process's clock (--outside,
    drills/pipeline/timecheck.py). In `grade` always: performance points are at stake. In `test`
    and `serve` only with DRILLS_CONFIRM_TIMING=1: it costs about 0.3 s per timed variant and shape
    (a warm GPU judge should stay near 10 s), and a forged time on a learner's own machine fools
    only the learner. Never on the simulator (nor the gpu stand-in, which builds for it): there a
    timed call is a time-model prediction, while the wall clock measures the simulation, thousands
    of times slower; the two are not comparable."""
    from .toolchain import gpu_standin
    if backend != "gpu" or gpu_standin():
        return False
    return grading or os.environ.get("DRILLS_CONFIRM_TIMING") == "1"


def measure_subject(problem, subject: Subject, torch_timer: TorchTimer | None = None, clock=None) -> dict:
    """Time the subject's variants; the reference library supplies the copy kernel. With a
    torch_timer (started early by the judge), PyTorch's times come from it, after ours."""
    spec = problem.perf
    if not spec:
        return {}
    reference = subject_for(problem, problem.path("solution"), subject.backend)
    if reference.build_dir != subject.build_dir or reference.name != subject.name:
        _, failed = shared_recipe(problem, subject.backend)  # built already, unless the reference changed
        if failed is not None:
            return {"error": "the reference did not build: " + failed.log[-500:]}
    cmd = [sys.executable, "-m", "drills.pipeline.perf", "--subject", str(subject.capi_library),
           "--reference", str(reference.capi_library), "--bound", spec.bound,
           "--shapes", ",".join(spec.shapes), "--variants", ",".join(spec.variants),
           "--torch", "" if torch_timer else spec.torch, "--unit", spec.unit]
    if confirm_timing(subject.backend):
        cmd.append("--outside")
    out, why = run_timing(cmd, 1200)
    if out is None:
        return {"error": why}
    if torch_timer and spec.torch:
        started = time.monotonic()
        add_torch(out, spec.torch, torch_timer)
        if clock is not None:
            clock.add("torch", time.monotonic() - started)
    return out


def run_timing(cmd: list[str], timeout: float) -> tuple[dict | None, str]:
    """Run this module's main (the learner's library inside) as the judge runs learner code
    (execute._exec): the times come over the result channel, never from the output, which the
    learner's code shares and could add a line of its own to. (times, "") or (None, why not)."""
    from .execute import _exec
    done = _exec(cmd, dict(os.environ), timeout)
    if done.timed_out:
        return None, f"timing took longer than {timeout:.0f} s"
    if done.flooded:
        return None, "timing was stopped: the library printed without end"
    try:
        if done.channel:
            raise ValueError(done.channel)
        return json.loads(done.report), ""
    except (ValueError, TypeError) as e:
        return None, f"timing gave no result ({e}; exit code {done.code}): {done.output[-1500:]}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m drills.pipeline.perf")
    ap.add_argument("--subject", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--bound", required=True)
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--variants", required=True)
    ap.add_argument("--torch", default="", help="PyTorch expression in x and y to compare with")
    ap.add_argument("--unit", default="bytes", choices=("bytes", "flops"), help="what the library reports per call")
    ap.add_argument("--outside", action="store_true", help="check each reported time against this process's clock")
    a = ap.parse_args(argv)
    shapes = [parse_shape(s) for s in a.shapes.split(",") if s]
    from .execute import result_fd, send_report
    channel = result_fd()
    res = measure(Path(a.subject), Path(a.reference), shapes, [v for v in a.variants.split(",") if v], a.bound,
                  a.torch, a.unit, a.outside)
    if channel is None:  # run by hand
        print(json.dumps(res))
    else:  # before the learner's library can run anything at exit
        send_report(channel, json.dumps(res).encode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
