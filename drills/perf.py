"""GPU timing: each variant against the same-shape copy kernel and cudaMemcpy, in one run.

CUDA events around each call, warm-up first, the median of many calls, fresh random inputs,
bytes = read + write. The denominators are measured here, on this GPU, now: never a spec sheet.
Runs in its own process (`python -m drills.perf ...`) so a crash cannot take the judge down.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from .build import Subject, build, subject_for
from .capi import REPS, WARMUP, Lib

TORCH_SNIPPET = r"""
import json, sys, torch
M, N, warmup, reps = map(int, sys.argv[1:5])
x = torch.rand(M, N, device="cuda") * 2 - 1
def t(f):
    for _ in range(warmup): f()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize(); times.append(a.elapsed_time(b))
    times.sort(); return times[len(times) // 2]
print(json.dumps({"transpose_ms": t(lambda: x.t().contiguous()), "clone_ms": t(lambda: x.clone()),
                  "version": torch.__version__}))
"""


def gbps(nbytes: int, ms: float) -> float:
    return nbytes / (ms * 1e-3) / 1e9


def torch_times(M: int, N: int) -> dict | None:
    try:
        p = subprocess.run([sys.executable, "-c", TORCH_SNIPPET, str(M), str(N), str(WARMUP), str(REPS)],
                           capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (json.JSONDecodeError, IndexError):
        return None


def measure(subject_lib: Path, reference_lib: Path, shapes, variants, bound: str) -> dict:
    import numpy as np
    subj, ref = Lib(subject_lib), Lib(reference_lib)
    out = {"warmup": WARMUP, "reps": REPS, "statistic": "median", "shapes": [], "variants": []}
    for M, N in shapes:
        nbytes = M * N * 4
        moved = 2 * nbytes
        host = np.random.default_rng(M * 7919 + N).uniform(-1, 1, (M, N)).astype(np.float32)
        host[host == 0] = 0.5  # never zeros
        x, y = ref.upload(host), ref.alloc(nbytes)
        del host
        memcpy_ms = ref.memcpy_ms(y, x, nbytes)
        copy_ms = ref.median_ms(ref.entry(bound), x, y, M, N)
        row = {"shape": [M, N], "bytes": moved, "memcpy_gbps": gbps(moved, memcpy_ms),
               "copy_kernel_gbps": gbps(moved, copy_ms)}
        torch = torch_times(M, N)
        if torch:
            row["torch_transpose_gbps"] = gbps(moved, torch["transpose_ms"])
            row["torch_clone_gbps"] = gbps(moved, torch["clone_ms"])
            row["torch_version"] = torch["version"]
        out["shapes"].append(row)
        for name in variants:
            fn = subj.entry(name)
            if not fn:
                continue
            ms = subj.median_ms(fn, x, y, M, N)
            v = {"name": name, "shape": [M, N], "ms": ms, "gbps": gbps(moved, ms),
                 "pct_copy_kernel": 100 * copy_ms / ms, "pct_memcpy": 100 * memcpy_ms / ms}
            if torch:
                v["vs_torch"] = torch["transpose_ms"] / ms
            out["variants"].append(v)
        ref.free(x)
        ref.free(y)
    return out


def measure_subject(problem, subject: Subject) -> dict:
    """Time the subject's variants; the reference library supplies the copy kernel."""
    spec = problem.perf
    if not spec:
        return {}
    reference = subject_for(problem, problem.path("solution"), subject.backend)
    if reference.build_dir != subject.build_dir or reference.name != subject.name:
        outcome = build(reference)
        if not outcome.ok:
            return {"error": "the reference did not build: " + outcome.log[-500:]}
    shapes = [s for s in spec.get("shapes", [])]
    cmd = [sys.executable, "-m", "drills.perf", "--subject", str(subject.capi_library),
           "--reference", str(reference.capi_library), "--bound", spec.get("bound", ""),
           "--shapes", ",".join(shapes), "--variants", ",".join(spec.get("variants", []))]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=1200, cwd=Path(__file__).parent.parent)
    if p.returncode != 0:
        return {"error": (p.stdout + p.stderr)[-2000:]}
    return json.loads(p.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m drills.perf")
    ap.add_argument("--subject", required=True)
    ap.add_argument("--reference", required=True)
    ap.add_argument("--bound", required=True)
    ap.add_argument("--shapes", required=True)
    ap.add_argument("--variants", required=True)
    a = ap.parse_args(argv)
    shapes = [tuple(int(v) for v in s.split("x")) for s in a.shapes.split(",") if s]
    res = measure(Path(a.subject), Path(a.reference), shapes, [v for v in a.variants.split(",") if v], a.bound)
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
