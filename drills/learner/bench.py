"""`judge.py bench`: this GPU's device-to-device copy bandwidth, the denominator for GB/s."""

from __future__ import annotations

import json

from .. import manifest
from ..pipeline.build import build, subject_for
from ..pipeline.capi import Lib
from ..pipeline.perf import gbps
from ..pipeline.toolchain import gpu_name

SIZES_MIB = (64, 256, 1024)


def run_bench(lang: str, as_json: bool = False) -> int:
    name = gpu_name()
    if not name:
        print("drills: bench needs a GPU; none answers here (the simulator does not time kernels)")
        return 2
    # Any problem's C ABI library carries the memcpy timing; the lowest-numbered one is enough.
    problem = min(manifest.load().values(), key=lambda p: p.number)
    subject = subject_for(problem, problem.path("solution"), "gpu")
    outcome = build(subject, [subject.targets[1]])
    if not outcome.ok:
        print(outcome.log[-3000:])
        return 2
    lib = Lib(subject.capi_library)
    rows = []
    for mib in SIZES_MIB:
        nbytes = mib << 20
        src, dst = lib.alloc(nbytes), lib.alloc(nbytes)
        lib.poison(src, nbytes)
        ms = lib.memcpy_ms(dst, src, nbytes)
        rows.append({"mib": mib, "ms": ms, "gbps_read_plus_write": gbps(2 * nbytes, ms)})
        lib.free(src)
        lib.free(dst)
    if as_json:
        print(json.dumps({"device": name, "memcpy_d2d": rows}, indent=2))
    else:
        print(f"{name}: cudaMemcpy device to device (bytes read + written, median of events)")
        for r in rows:
            print(f"  {r['mib']:5d} MiB  {r['ms']:.3f} ms  {r['gbps_read_plus_write']:.0f} GB/s")
    return 0
