#!/usr/bin/env bash
# C5 at 64x1048576 (issue 11): softmax_fast as committed at the 7 perf shapes, and long-row candidates
# defined in the bench (persistent-block pipelines: stream_rows one- and two-barrier versions, with a
# no-exchange diagnostic; the split kernel; the whole-row block) at 1024x65536 and 64x1048576, each
# against the copy kernel timed in the same process, with correctness checks.
# About 60 s on one H200. From the repository root:
#
#   OUT=/some/dir bash benchmarks/h200/softsplit.sh     # results in $OUT/softsplit/
#   LIGHT=1 ...                                          # no candidates, no ncu: softmax_fast, check, torch
#
# Needs nvcc (sm_90) and python3 with torch; no GoogleTest, no internet. Every step runs even when an
# earlier one failed; steps.txt says which failed.
#
#   env.txt      GPU, driver, clocks, nvcc, torch, commit; SMs, L2, blocks each candidate keeps resident
#   ptxas.txt    -Xptxas -v of the build: registers, shared memory, spills per kernel
#   time.csv     median of 30 CUDA-event timings after 3 warm-up calls (5 for the bounds), fresh random
#                input per variant: copy kernel, cudaMemcpy, softmax_fast (7 shapes), candidates (2 shapes);
#                last column: 8 rows (4 of 1048576) of an extra call on NaN-poisoned y against the float64
#                host reference, worst error / the tolerance of tests/c5_softmax_test.cu (> 1 fails)
#   check.csv    softmax_fast and every candidate against the float64 host reference at 1x65540, 5x65540,
#                37x100000, 3x1048576, 2x1048572, 2x1081348 (uniform, x1000, -inf with an all -inf row,
#                late maximum, the first half of every row -inf), each called twice (both banks of exchange slots)
#   torch.csv    torch.softmax(x, dim=-1) at the 7 perf shapes, same statistic
#   summary.txt  per shape: copy kernel, then every variant fastest first, % of copy, x torch, check
#   ncu.csv      Nsight Compute (--clock-control none) at 64x1048576: time, DRAM bytes read/written,
#                warps active, for softmax_fast and the candidates named in NCU_CANDIDATES (spaces as _)
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${OUT:-/tmp/out}"
R="$OUT/softsplit"
B="$R/build"
mkdir -p "$B"
STEPS="$R/steps.txt"
: > "$STEPS"
T0=$(date +%s)

exec 3>&1
step() {  # step NAME TIMEOUT_S COMMAND...: run, record rc and seconds, never stop the script
  local name=$1 limit=$2 t rc
  shift 2
  t=$(date +%s)
  timeout "$limit" "$@"
  rc=$?
  echo "$name rc=$rc seconds=$(( $(date +%s) - t ))" | tee -a "$STEPS" >&3
  [ $rc -ne 0 ] && echo "FAILED: $name (rc=$rc)" | tee -a "$STEPS" >&3
  return 0
}

env_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem --format=csv
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
  date -u +%Y-%m-%dT%H:%M:%SZ
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true
}
step env 30 bash -c "ROOT='$ROOT'; $(declare -f env_info); env_info" > "$R/env.txt" 2>&1

step build 240 nvcc -arch=sm_90 -O3 -std=c++17 -lineinfo -Xptxas -v -o "$B/softsplit_bench" \
  "$ROOT/benchmarks/softperf_split_bench.cu" 2> "$R/ptxas.txt"

step info 20 "$B/softsplit_bench" info >> "$R/env.txt" 2>&1
# softmax_fast and the candidates in separate processes: a candidate that hangs cannot take
# softmax_fast's numbers with it.
step time-fast 45 "$B/softsplit_bench" time 30 fast > "$R/time.csv" 2> "$R/time-fast.err"
if [ "${LIGHT:-0}" != 1 ]; then
  step time-cand 90 bash -o pipefail -c "'$B/softsplit_bench' time 30 cand | tail -n +2" >> "$R/time.csv" 2> "$R/time-cand.err"
  # again, as a second sample of the same candidates in the same process order (run-to-run spread)
  [ "${TWICE:-0}" = 1 ] && step time-cand2 90 bash -o pipefail -c "'$B/softsplit_bench' time 30 cand | tail -n +2 | sed 's/,candidate,/,candidate (2nd),/; s/,diagnostic,/,diagnostic (2nd),/'" >> "$R/time.csv" 2> "$R/time-cand2.err"
fi
step check 150 "$B/softsplit_bench" check > "$R/check.csv" 2> "$R/check.err"

cat > "$B/torch_softmax.py" <<'PY'
import torch
shapes = [(4096, 8192), (16384, 16384), (65536, 1024), (262144, 128), (1024, 65536), (64, 1048576), (8192, 4097)]
def median_ms(f, warmup=5, reps=30):
    for _ in range(warmup): f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
print("shape,torch_softmax_ms,torch_copy_ms")
for r, c in shapes:
    x = torch.rand(r, c, device="cuda") * 2 - 1
    y = torch.empty_like(x)
    s = median_ms(lambda: torch.softmax(x, dim=-1))
    cp = median_ms(lambda: y.copy_(x))
    print(f"{r}x{c},{s:.4f},{cp:.4f}", flush=True)
    del x, y
    torch.cuda.empty_cache()
PY
step torch 40 python3 "$B/torch_softmax.py" > "$R/torch.csv" 2> "$R/torch.err"

summarize() {
python3 - "$R" <<'PY'
import csv, sys, collections
R = sys.argv[1]
rows = [r for r in csv.DictReader(open(f"{R}/time.csv")) if r.get("ms") and r.get("shape") != "shape"]
try:
    torch = {r["shape"]: float(r["torch_softmax_ms"]) for r in csv.DictReader(open(f"{R}/torch.csv"))}
except (OSError, csv.Error, KeyError, ValueError):
    torch = {}
by = collections.defaultdict(list)
for r in rows: by[r["shape"]].append(r)
for shape, rs in by.items():
    copies = [r for r in rs if r["name"] == "copy_vec4"]
    print(f"== {shape}: copy kernel " + ", ".join(f"{c['gbps']} GB/s ({c['ms']} ms)" for c in copies) +
          (f"; torch.softmax {100 * float(copies[0]['ms']) / torch[shape]:.1f}% of copy" if shape in torch and copies else ""))
    for r in sorted((r for r in rs if r["kind"] != "bound"), key=lambda r: float(r["ms"])):
        vs = f" {torch[shape] / float(r['ms']):.2f}x torch" if shape in torch else ""
        print(f"   {r['kind']:<10} {r['name']:<36} {r['ms']:>8} ms {r['pct_copy_kernel']:>6}% of copy{vs}  check {r['sample_worst_error_over_tolerance']}")
try:
    checks = list(csv.DictReader(open(f"{R}/check.csv")))
    fails = [c for c in checks if c["status"] != "pass"]
    print(f"check.csv: {len(checks) - len(fails)} pass, {len(fails)} not pass" + "".join(f"\n   {c}" for c in fails[:20]))
except (OSError, csv.Error, KeyError):
    print("check.csv: missing or unreadable")
PY
}
step summary 20 bash -c "R='$R'; $(declare -f summarize); summarize" > "$R/summary.txt" 2>&1

METRICS=gpu__time_duration.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size
run_ncu() {
  for name in softmax_fast ${NCU_CANDIDATES:-}; do
    [ "$name" != softmax_fast ] && name=${name//_/ }  # candidates' names with _ for spaces
    echo "### $name 64x1048576"
    ncu --clock-control none --csv --launch-skip 1 --launch-count 1 --metrics "$METRICS" \
      -k regex:'block_rows|stream_rows|pipe_rows|reg_rows|l2_tasks|l2s_tasks|tasks_rows|t2_kernel|pt_kernel|hy_kernel|taskcopy|l2read' "$B/softsplit_bench" one "$name" 64x1048576 2>&1 | grep -v '^==PROF=='
  done
}
[ "${LIGHT:-0}" != 1 ] && step ncu 120 bash -o pipefail -c "B='$B' METRICS='$METRICS'; $(declare -f run_ncu); run_ncu" > "$R/ncu.csv" 2>&1

cat "$R/summary.txt"
echo "total seconds=$(( $(date +%s) - T0 ))" | tee -a "$STEPS" >&3
