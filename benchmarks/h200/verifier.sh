#!/usr/bin/env bash
# Issue 16 item 1 on the H200: record and verify on the GPU backend. The checker (<slug>_checker,
# built in build/gpu with the real CUDA runtime: it allocates and copies, launches no kernel) must
# confirm the reference's passes, including the GPU-only shapes (C3 8192x8192: 256 MB records over
# the socket), and must refuse a wrong C3 file whose report a late listener rewrote as all-pass.
#
#   OUT=/some/dir bash benchmarks/h200/verifier.sh      # writes $OUT/verifier/
#
# Carried like gpupath.sh: .gtest/ (GoogleTest sources) and .whl/ (pydantic & co.) when the image
# lacks them. Measures, per judge call (C3 reference cold and warm, the forged file, the same file
# without the attack): verdict, GoogleTest rows pass/fail/unconfirmed, the judge's phase timings,
# its CPU seconds and wall time (/usr/bin/time, time.txt); then the checker alone with nothing
# recorded. The "before" is benchmarks/h200-gpupath-2026-12-02-final.md (same judge call, warm, no
# checker yet): reference #78 gpu --no-perf, tests 9.5 s, total 10.9 s; compare reference-warm's.
# About 2 minutes (the cold build of C3's GPU tree, test + checker, is most of it); VERIFIER_BACKEND=sim
# tries it without a GPU. Never stops at a failure: each step's rc is printed.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O="${OUT:-/tmp}/verifier"
mkdir -p "$O"
BACKEND="${VERIFIER_BACKEND:-gpu}"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }

step "environment"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1; nvcc --version | tail -1; nproc; } > "$O/env.txt" 2>&1
cat "$O/env.txt"
if ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/verifier-site .whl/*.whl \
    > "$O/pip.txt" 2>&1 || echo "pip install of .whl/ failed" | tee -a "$O/log.txt"
  export PYTHONPATH=/tmp/verifier-site${PYTHONPATH:+:$PYTHONPATH}
fi
[ -f .gtest/CMakeLists.txt ] && export DRILLS_GTEST_SOURCE="$ROOT/.gtest"
export DRILLS_BUILD_JOBS=$(nproc) PYTHONUNBUFFERED=1

summary() {  # $1: name of the JSON file written by a judge call
  python3 - "$O/$1.json" <<'PY' 2>&1 | tee -a "$O/summary.txt"
import json, sys, collections
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(sys.argv[1], "no result:", e); sys.exit(0)
rows = [t for t in d.get("tests", []) if t["source"] == "gtest"]
c = collections.Counter(t["status"] for t in rows)
unconfirmed = sum(1 for t in rows if t.get("checker"))
print(sys.argv[1].rsplit("/", 1)[-1], d["status"], "|", d["message"]["en"][:160])
print("   gtest rows:", dict(c), "unconfirmed:", unconfirmed, "| timings:", d.get("timings"))
PY
}

judge() {  # $1: output name; rest: judge arguments
  local name=$1; shift
  step "judge $name: $*"
  /usr/bin/time -f "$name: CPU %U+%S s, wall %e s, max RSS %M KB" -a -o "$O/time.txt" \
    timeout -k 5 "${VERIFIER_STEP_LIMIT:-100}" python3 practice/judge.py --lang en test 78 --backend "$BACKEND" --json "$@" \
    > "$O/$name.json" 2> "$O/$name.err"
  echo "   rc=$?" | tee -a "$O/log.txt"
  summary "$name"
}

step "the wrong C3 file that forges its report (as tests/test_forgery.py builds it)"
python3 - <<'PY' 2>&1 | tee -a "$O/log.txt"
import hashlib
from pathlib import Path
root = Path(".").resolve()
text = (root / "solutions/c3_transpose.cu").read_text()
store = "if (r < M && c < N) y[(int64_t)c * M + r] = x[(int64_t)r * N + c];"
wrong = text.replace(store, store.replace("= x[", "= -x["), 1)
wrong = wrong.replace("void transpose_naive(const float* x,", "void transpose_naive_real(const float* x,", 1)
attack = root / "tests/attacks/forge_protocol.inc"
out = root / "build/attacks/c3_transpose.cu"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(wrong + f'\n// attacks {hashlib.sha256(attack.read_bytes()).hexdigest()[:16]}\n#include "{attack}"\n')
print("wrote", out, "ok" if wrong.count("_real(") == 1 and "= -x[" in wrong else "FIXTURE STALE")
PY

judge reference-cold --solution --no-perf
judge reference-warm --solution --no-perf
DRILLS_ATTACK=late-listener judge forged-late-listener --file build/attacks/c3_transpose.cu --no-perf
judge wrong-honest --file build/attacks/c3_transpose.cu --no-perf

step "checker alone, nothing recorded (every case must fail)"
CHK=build/gpu/c3_transpose_checker
[ "$BACKEND" = sim ] && CHK=build/sim/c3_transpose_checker
timeout 60 "$CHK" --gtest_filter='C3/Transpose.*naive_1x*' 2>&1 | tail -4 | tee -a "$O/log.txt"

cat "$O/time.txt" 2>/dev/null
step "done"
