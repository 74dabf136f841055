#!/usr/bin/env bash
# Issues 10 and 17 ("warm simulator judge <= 3 s, first judge of a new path <= 10 s, on a 2-core
# machine"), measured on the GPU host's CPUs with the judge held to two of them (taskset -c 0,1):
# the 2-core laptop of a GPU-less learner, without the other work of a shared machine.
#
#   OUT=/some/dir bash benchmarks/h200/fastjudge.sh      # writes $OUT/fastjudge/
#
# Needs, carried with the tree like gpupath.sh: .gtest/ (the image has no libgtest-dev) and .whl/
# (pydantic and its companions). Steps, each timed, none stopping the others:
#   1. the shared simulator build of #78 on every core (not measured against the target);
#   2. five warm `judge.py 78 --solution --backend sim` on 2 cores: wall, CPU (user+sys, children
#      included), the judge's own "where the time went";
#   3. the same with DRILLS_TEST_SHARDS=1 (one test process, as before the shards);
#   4. two first judges of never-judged paths (copies of the reference) on 2 cores;
#   5. while time is left (FASTJUDGE_DEADLINE, 160 s): the same warm judge of 71 and 77.
# Backend sim throughout: no GPU is used. At most about 3 minutes in all (FASTJUDGE_LIMIT, 175 s).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O="${OUT:-/tmp}/fastjudge"
mkdir -p "$O"
rm -f "$O/timings.csv"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }

step "environment"
{ date -u; nproc; lscpu | grep -E "Model name|^CPU\(s\)"; python3 --version; nvcc --version | tail -1
  env | grep -E "^PYTHON|^DRILLS" ; } > "$O/env.txt" 2>&1
cat "$O/env.txt"

if ls .whl/*.whl > /dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/fastjudge-site .whl/*.whl \
    > "$O/pip.txt" 2>&1 || { echo "pip install of .whl/ failed:"; tail -5 "$O/pip.txt"; }
  export PYTHONPATH=/tmp/fastjudge-site${PYTHONPATH:+:$PYTHONPATH}
fi
[ -f .gtest/CMakeLists.txt ] && export DRILLS_GTEST_SOURCE="$ROOT/.gtest"
export PYTHONUNBUFFERED=1

step "1. shared simulator build of 78 (every core)"
DRILLS_BUILD_JOBS=$(nproc) timeout -k 5 120 python3 practice/judge.py 78 --solution --backend sim --verbose > "$O/build78.txt" 2>&1
echo "rc=$?" | tee -a "$O/log.txt"; tail -3 "$O/build78.txt"
python3 practice/judge.py 78 --solution --backend sim > /dev/null 2>&1  # caches warm (bytecode, prediction)

step "2-5. timings on 2 cores"
REM=$(( ${FASTJUDGE_LIMIT:-175} - ($(date +%s) - T0) )); [ "$REM" -lt 20 ] && REM=20  # the whole script: about 3 minutes
FASTJUDGE_OUT="$O" FASTJUDGE_T0="$T0" timeout -k 5 "$REM" python3 - <<'PY' 2>&1 | tee -a "$O/log.txt"
import csv, os, re, resource, shutil, statistics, subprocess, sys, time
from pathlib import Path
out = Path(os.environ["FASTJUDGE_OUT"]); t0 = float(os.environ["FASTJUDGE_T0"])
deadline = float(os.environ.get("FASTJUDGE_DEADLINE", "160"))
rows = []

def judge(label, args, env_extra=None):
    env = dict(os.environ, **(env_extra or {}))
    before = resource.getrusage(resource.RUSAGE_CHILDREN); t = time.monotonic()
    p = subprocess.run(["taskset", "-c", "0,1", sys.executable, "practice/judge.py", *args, "--backend", "sim", "--verbose"],
                       env=env, capture_output=True, text=True)
    wall = time.monotonic() - t; after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    m = re.search(r"Where the time went:(?:[^\n]|\n(?!\n|drills:))*", p.stdout + p.stderr)
    where = re.sub(r"\s+", " ", m.group(0))[:400] if m else ""
    row = {"label": label, "args": " ".join(args), "rc": p.returncode, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
           "where": where}
    rows.append(row)
    new_file = not (out / "timings.csv").exists()
    with open(out / "timings.csv", "a", newline="") as f:  # row by row: a stopped run keeps what it measured
        w = csv.DictWriter(f, fieldnames=list(row))
        if new_file:
            w.writeheader()
        w.writerow(row)
    print(f"{label}: rc={p.returncode} wall {wall:.2f} s cpu {cpu:.2f} s | {where}", flush=True)
    return row

def left():
    return deadline - (time.time() - t0)

def summary(label):
    r = [x for x in rows if x["label"] == label]
    if r:
        print(f"SUMMARY {label}: n={len(r)} wall median {statistics.median(x['wall_s'] for x in r):.2f} "
              f"min {min(x['wall_s'] for x in r):.2f} | cpu median {statistics.median(x['cpu_s'] for x in r):.2f}", flush=True)

for i in range(5):
    if i and left() < 20: break
    judge("warm78", ["78", "--solution"])
summary("warm78")
for i in range(5):
    if left() < 60: break
    judge("warm78-1shard", ["78", "--solution"], {"DRILLS_TEST_SHARDS": "1"})
summary("warm78-1shard")
for i in range(2):
    if left() < 30: break
    new = Path(f"/tmp/fastjudge-new-{os.getpid()}-{i}/c3_transpose.cu")
    new.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy("solutions/c3_transpose.cu", new)
    judge("first78", ["78", "--file", str(new)])
summary("first78")
for n in ("71", "77"):
    if left() < 45: break
    b = subprocess.run([sys.executable, "practice/judge.py", n, "--solution", "--backend", "sim"], capture_output=True,
                       env=dict(os.environ, DRILLS_BUILD_JOBS=str(os.cpu_count())))
    print(f"build {n}: rc={b.returncode}", flush=True)
    for i in range(3):
        if left() < 10: break
        judge(f"warm{n}", [n, "--solution"])
    summary(f"warm{n}")
PY
echo "timings rc=${PIPESTATUS[0]}" | tee -a "$O/log.txt"
step "done"
