#!/usr/bin/env bash
# Issue 16 on the H200: the technique checks' evidence comes from the judge's replay of the probe's
# op log (drills/pipeline/oplog_replay.py) on the GPU backend too (its checks run on a simulator
# build of the same file). Judges the C3, C4 and C5 references on the GPU (no timing) and the C3
# counter-forgery file of tests/test_counter_forgery.py with each attack; summary.txt has one line
# per run: status, each check's status, the judge's phase times.
#
#   OUT=/some/dir bash benchmarks/h200/probereplay.sh      # writes $OUT/probereplay/
#
# Needs .gtest/ and .whl/ carried with the tree (benchmarks/h200/judge_env.sh). About 3-4 minutes.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O="${OUT:-/tmp}/probereplay"
mkdir -p "$O"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }
step "environment"
{ date -u; nvidia-smi --query-gpu=name,driver_version --format=csv 2>&1; nvcc --version | tail -1; git log -1 --format=%H 2>/dev/null; } > "$O/env.txt"
source "$ROOT/benchmarks/h200/judge_env.sh"

step "the counter-forgery file (as tests/test_counter_forgery.py builds it)"
python3 - <<'PY' 2>&1 | tee -a "$O/log.txt"
from pathlib import Path
root = Path(".").resolve()
tiled = "void transpose_tiled(const float* x, float* y, int M, int N) {"
text = (root / "solutions/c3_transpose.cu").read_text().replace(tiled, tiled.replace("transpose_tiled(", "transpose_tiled_real("))
out = root / "build/attacks/counters/c3_transpose.cu"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(text + f'\n#include "{root}/tests/attacks/forge_counters.inc"\n')
print("wrote", out)
PY

judge() {  # name, attack (DRILLS_ATTACK, "" for none), then judge.py arguments
  local name=$1 attack=$2; shift 2
  step "judge $name"
  local t=$(date +%s.%N)
  DRILLS_ATTACK="$attack" timeout -k 5 240 python3 practice/judge.py --lang en test "$@" --backend gpu --no-perf --json > "$O/$name.json" 2> "$O/$name.err"
  local rc=$? secs=$(python3 -c "import time; print(round(time.time() - $t, 1))")
  python3 - "$O/$name.json" "$name" "$rc" "$secs" <<'PY' >> "$O/summary.txt"
import json, sys
path, name, rc, secs = sys.argv[1:]
try:
    d = json.load(open(path))
    checks = " ".join(f"{c['id']}={c['status']}" for c in d.get("checks", []))
    first = next((c["message"]["en"] for c in d.get("checks", []) if c["status"] != "pass"), "")
    print(f"{name}: rc={rc} {secs}s status={d['status']} backend={d.get('backend')} | {checks} | {d['message']['en'][:200]} | {first[:300]} | {d.get('timings')}")
except Exception as e:
    print(f"{name}: rc={rc} {secs}s no result ({e})")
PY
  tail -1 "$O/summary.txt"
}
F=build/attacks/counters/c3_transpose.cu
judge c3-solution "" 78 --solution
judge c4-solution "" 81 --solution
judge c5-solution "" 82 --solution
judge c3-attack-none "" 78 --file $F
judge c3-attack-report report 78 --file $F
judge c3-attack-smuggle smuggle 78 --file $F
judge c3-attack-oplog oplog 78 --file $F
judge c3-solution-warm "" 78 --solution
step "done"
