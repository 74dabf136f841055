#!/usr/bin/env bash
# C5 long rows (issue 11): softmax_fast's candidates at 1024x65536 and 64x1048576, and softmax_fast
# as committed at the 7 perf shapes, each against the copy kernel of the same run. About 60-90 s.
# From the repository root:
#
#   OUT=/some/dir bash benchmarks/h200/softperf.sh     # results in $OUT/softperf/
#
# Needs nvcc (sm_90) and python3 with torch; no GoogleTest, no internet. Every step runs even when
# an earlier one failed; steps.txt says which failed.
#
#   env.txt      GPU, driver, nvcc, torch; SMs, L2, resident blocks and clusters of the candidates
#   ptxas.txt    -Xptxas -v of the build: registers, spills per kernel
#   check.csv    every candidate and softmax_fast against the float64 host reference at 37x65536,
#                3x1048576, 5x65532, 2x1048572, 3x65536, 2x65532 (uniform, x1000, -inf, late-maximum inputs)
#   time.csv     median of 30 CUDA-event timings after 3 warm-up calls (5 for the bounds), fresh random
#                input per variant: copy kernel, cudaMemcpy, softmax_fast at the 7 perf shapes, the
#                candidates at the long shapes; last column: 8 rows of that shape's output (after one
#                more call on NaN-poisoned y) against the host reference, worst error / tolerance
#   torch.csv    torch.softmax(x, dim=-1) at the 7 perf shapes, same statistic
#   summary.txt  per shape: copy kernel, softmax_fast, the candidates best first
#   ncu.csv      Nsight Compute (--clock-control none): DRAM bytes, L2 read hit rate, occupancy, time of
#                softmax_fast and of the smem-rows candidates at the long shapes
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${OUT:-/tmp/out}"
R="$OUT/softperf"
mkdir -p "$R"
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
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
  date -u +%Y-%m-%dT%H:%M:%SZ
  git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true
}
step env 30 bash -c "ROOT='$ROOT'; $(declare -f env_info); env_info" > "$R/env.txt" 2>&1

step build 120 nvcc -arch=sm_90 -O3 -std=c++17 -lineinfo -Xptxas -v -o "$B/softperf_bench" \
  "$ROOT/benchmarks/softperf_bench.cu" 2> "$R/ptxas.txt"

step info 20 "$B/softperf_bench" info >> "$R/env.txt" 2>&1
# softmax_fast first, then the candidates, then the pipelined ones, each group in its own process: a
# candidate that hangs cannot take the other groups' numbers with it.
step time-fast 40 "$B/softperf_bench" time 30 fast > "$R/time.csv" 2> "$R/time-fast.err"
# LIGHT=1: softmax_fast at the 7 shapes against the copy kernel and torch only (a re-timing of the
# committed dispatch), no candidates, no ncu.
if [ "${LIGHT:-0}" != 1 ]; then
step time-cand 50 "$B/softperf_bench" time 30 cand >> "$R/time.csv" 2> "$R/time-cand.err"
step time-pipe 30 "$B/softperf_bench" time 30 pipe >> "$R/time.csv" 2> "$R/time-pipe.err"
fi
step check 45 "$B/softperf_bench" check > "$R/check.csv" 2> "$R/check.err"

cat > "$B/torch_softmax.py" <<'EOF'
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
EOF
step torch 30 python3 "$B/torch_softmax.py" > "$R/torch.csv" 2> "$R/torch.err"

summarize() {
python3 - "$R" <<'EOF'
import csv, sys, collections
R = sys.argv[1]
rows = [r for r in csv.DictReader(open(f"{R}/time.csv")) if r.get("ms")]
try:
    torch = {r["shape"]: float(r["torch_softmax_ms"]) for r in csv.DictReader(open(f"{R}/torch.csv"))}
except (OSError, csv.Error, KeyError, ValueError):
    torch = {}
by = collections.defaultdict(list)
for r in rows: by[r["shape"]].append(r)
for shape, rs in by.items():
    copy = next(r for r in rs if r["name"] == "copy_vec4")
    print(f"== {shape}: copy kernel {copy['gbps']} GB/s ({copy['ms']} ms)" +
          (f"; torch.softmax {100 * float(copy['ms']) / torch[shape]:.1f}% of copy" if shape in torch else ""))
    rest = sorted((r for r in rs if r["kind"] not in ("bound",)), key=lambda r: float(r["ms"]))
    for r in rest:
        vs = f" {torch[shape] / float(r['ms']):.2f}x torch" if shape in torch else ""
        print(f"   {r['kind']:<10} {r['name']:<38} {r['ms']:>8} ms {r['pct_copy_kernel']:>6}% of copy{vs}  check {r['sample_worst_error_over_tolerance']}")
EOF
}
step summary 20 bash -c "R='$R'; $(declare -f summarize); summarize" > "$R/summary.txt" 2>&1
# Nsight Compute (--clock-control none), last: DRAM bytes over x's bytes, L2 read hit rate, warps
# active, for softmax_fast as committed and the smem-rows candidates.
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__grid_size,launch__block_size
run_ncu() {
  for pair in "softmax_fast|1024x65536" "smem-rows K1 T512 c16 s16|1024x65536" "softmax_fast|64x1048576" \
              "smem-rows K16 T512 c16 s16|64x1048576"; do
    echo "### ${pair%%|*} ${pair##*|}"
    ncu --clock-control none --csv --metrics "$METRICS" -k regex:'block_rows|reread|cluster_rows|smem_rows' \
      "$B/softperf_bench" one "${pair%%|*}" "${pair##*|}" 2>&1 | grep -v '^==PROF=='
  done
}
[ "${LIGHT:-0}" != 1 ] && step ncu 60 bash -c "B='$B' METRICS='$METRICS'; $(declare -f run_ncu); run_ncu" > "$R/ncu.csv" 2>&1

cat "$R/summary.txt"
echo "total seconds=$(( $(date +%s) - T0 ))" | tee -a "$STEPS" >&3
