#!/usr/bin/env bash
# Issue 16 item 1 on the H200: the C ABI library lives in a subject server (drills/pipeline/
# subject_server.py), a child process that gives up CAP_SYS_PTRACE and friends; pytest, the timing
# and `bench` talk to it over pipes. What a GPU must show, that the simulator cannot:
#   1. judge.py 78 --solution --backend gpu --json: pass, pytest rows present and passing, perf
#      numbers (the timing through the server)                                     -> judge78.json
#   2. pytest tests/test_c3_transpose.py on the GPU (the reference through the server) -> pytest_c3.txt
#   3. the same host function timed through the server and loaded the old way (ctypes in this
#      process), 8192x8192 and 4113x8197, transpose_tiled and copy_tiled: medians of 50 CUDA-event
#      samples each, interleaved 3 times; the server's capabilities            -> timing_parity.json
#   4. judge.py bench --json (cudaMemcpy d2d through the server)                 -> bench.json
#
#   OUT=/some/dir bash benchmarks/h200/remotelib.sh      # writes $OUT/remotelib/
#
# Needs, carried with the tree like gpupath.sh: .gtest/ and .whl/. Every step has its own time
# limit and a failing step does not stop the next. About 2-3 minutes on one H200 (16 cores).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O="${OUT:-/tmp}/remotelib"
mkdir -p "$O"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }

step "environment"
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
  nvcc --version | tail -1; python3 --version; nproc; id; grep -E "^Cap(Eff|Bnd)" /proc/self/status; } > "$O/env.txt" 2>&1
cat "$O/env.txt"

if ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/remotelib-site .whl/*.whl \
    > "$O/pip.txt" 2>&1 || { echo "pip install of .whl/ failed:"; tail -5 "$O/pip.txt"; }
  export PYTHONPATH=/tmp/remotelib-site${PYTHONPATH:+:$PYTHONPATH}
fi
[ -f .gtest/CMakeLists.txt ] && export DRILLS_GTEST_SOURCE="$ROOT/.gtest"
export PYTHONUNBUFFERED=1 DRILLS_BUILD_JOBS=$(nproc)

step "1. judge 78 --solution --backend gpu (builds; pytest and perf through the server)"
timeout -k 5 130 python3 practice/judge.py --lang en 78 --solution --backend gpu --json > "$O/judge78.json" 2> "$O/judge78.err"
echo "rc=$?" | tee -a "$O/log.txt"
python3 - "$O/judge78.json" <<'PY' 2>&1 | tee -a "$O/log.txt"
import collections, json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    sys.exit(f"no result: {e}")
print("status", d["status"], "|", d["message"]["en"][:200])
print(dict(collections.Counter((t["source"], t["status"]) for t in d["tests"])))
for v in (d.get("perf") or {}).get("variants", []):
    print(f"  perf {v['name']:26s} {'x'.join(map(str, v['shape'])):10s} {v['ms']:.4f} ms {v['gbps']:.0f} GB/s")
print("timings", d.get("timings"))
PY

step "2. pytest tests/test_c3_transpose.py on the GPU"
DRILLS_BACKEND=gpu timeout -k 5 60 python3 -m pytest -q -p no:cacheprovider tests/test_c3_transpose.py > "$O/pytest_c3.txt" 2>&1
echo "rc=$?" | tee -a "$O/log.txt"; tail -2 "$O/pytest_c3.txt" | tee -a "$O/log.txt"

step "3. timing through the server vs in-process ctypes"
timeout -k 5 60 python3 - "$O/timing_parity.json" <<'PY' 2>&1 | tee -a "$O/log.txt"
import ctypes, json, statistics, sys
from pathlib import Path
from drills import manifest
from drills.pipeline import build
from drills.pipeline.capi import REPS, WARMUP, Lib
p = manifest.find(manifest.load(), "c3_transpose")
lib_path = build.subject_for(p, p.path("solution"), "gpu").capi_library
out = {"library": str(lib_path), "warmup": WARMUP, "reps": REPS, "rows": []}
remote = Lib(lib_path)
status = Path(f"/proc/{remote._proc.pid}/status").read_text().splitlines()
out["server_caps"] = [l for l in status if l.startswith(("CapEff", "CapBnd", "NoNewPrivs"))]
local = ctypes.CDLL(str(lib_path))  # the old way, in this process
local.drills_time_variant.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong), ctypes.c_int, ctypes.c_int,
                                      ctypes.c_int, ctypes.POINTER(ctypes.c_float), ctypes.POINTER(ctypes.c_double)]
def in_process(name, dims):
    s, moved = (ctypes.c_float * REPS)(), ctypes.c_double()
    err = local.drills_time_variant(name.encode(), (ctypes.c_longlong * len(dims))(*dims), len(dims), WARMUP, REPS,
                                    s, ctypes.byref(moved))
    return statistics.median(s) if err == 0 else f"err {err}"
for dims in ([8192, 8192], [4113, 8197]):
    for name in ("transpose_tiled", "copy_tiled"):
        for rnd in range(3):
            ms_remote, moved = remote.time_variant(name, dims)
            ms_local = in_process(name, dims)
            row = {"name": name, "shape": dims, "round": rnd, "server_ms": ms_remote, "in_process_ms": ms_local,
                   "server_gbps": moved / ms_remote / 1e6}
            out["rows"].append(row)
            print(row)
Path(sys.argv[1]).write_text(json.dumps(out, indent=1))
print(out["server_caps"])
PY

step "4. judge.py bench --json (memcpy through the server)"
timeout -k 5 40 python3 practice/judge.py bench --json > "$O/bench.json" 2> "$O/bench.err"
echo "rc=$?" | tee -a "$O/log.txt"; cat "$O/bench.json" | tee -a "$O/log.txt"

step "done"
