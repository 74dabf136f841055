#!/usr/bin/env bash
# Issue 10 on the H200: the GPU backend's diagnoses (the simulator's replay), its watchdog, its
# speed, and verdict/diagnosis parity with the simulator over every golden case.
#
#   OUT=/some/dir bash benchmarks/h200/gpupath.sh      # writes $OUT/gpupath/
#   GPUPATH_CASES="c4/output-not-written g1/output-not-written" OUT=... bash benchmarks/h200/gpupath.sh
#       only those golden cases (their problems' builds, no timings, every case's failed rows kept)
#
# Needs, carried with the tree (both git-ignored): .gtest/ (a copy of /usr/src/googletest: the GPU
# image has no libgtest-dev) and .whl/ (pydantic and its four companions for Python 3.12: the image
# has no pydantic). What it measures: benchmarks/h200/gpupath_run.py's docstring. Every step is
# timed; a failing step is printed and the script goes on. About 2-3 minutes on one H200 (16 cores).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
O="${OUT:-/tmp}/gpupath"
mkdir -p "$O"
T0=$(date +%s)
step() { echo "== [$(( $(date +%s) - T0 )) s] $*" | tee -a "$O/log.txt"; }

step "environment"
{
  date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv 2>&1
  nvcc --version | tail -2; cmake --version | head -1; python3 --version; nproc
  command -v compute-sanitizer
} > "$O/env.txt" 2>&1
cat "$O/env.txt"

step "python packages and GoogleTest sources the image lacks (.whl/, .gtest/)"
source "$ROOT/benchmarks/h200/judge_env.sh"

step "doctor"
python3 practice/judge.py doctor 2>&1 | tee -a "$O/log.txt"

step "builds, must-show timings, golden parity (gpupath_run.py)"
# GPUPATH_BACKEND=sim (with DRILLS_GPU_STANDIN=sim: gpu) tries the script on a machine without a GPU
timeout -k 5 "${GPUPATH_LIMIT:-160}" python3 benchmarks/h200/gpupath_run.py "$O" --backend "${GPUPATH_BACKEND:-gpu}" \
  --jobs "${GPUPATH_JOBS:-8}" --deadline "${GPUPATH_DEADLINE:-135}" --cases "${GPUPATH_CASES:-}" 2>&1 | tee "$O/run.txt"
echo "gpupath_run.py rc=${PIPESTATUS[0]}" | tee -a "$O/log.txt"

step "tables (again, from what the run left, in case it was stopped)"
python3 benchmarks/h200/gpupath_run.py "$O" --backend "${GPUPATH_BACKEND:-gpu}" --tables-only > /dev/null 2>&1 || echo "no tables"
tail -45 "$O/parity.md" 2>/dev/null; cat "$O/timings.md" 2>/dev/null

step "done"
ls -la "$O" | head -30
