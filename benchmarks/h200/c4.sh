#!/usr/bin/env bash
# C4 (SGEMM) on one H200, in one run of about 4 minutes. Run from the repository root:
#   OUT=/some/dir bash benchmarks/h200/c4.sh
# Writes to $OUT/c4/:
#   env.txt           GPU, driver, clocks, nvcc, torch
#   build.log         the builds; ptxas.txt: registers, shared memory and spills of every kernel
#   check.csv/.log    every ladder variant, cuBLAS and every sweep configuration against a float64
#                     host reference (bound γ_K Σ|a||b|) on odd, aligned, misaligned and perf shapes
#   ladder.csv/.log   ladder + cuBLAS (default and pedantic math) at the four perf shapes: ms, TFLOP/s,
#                     % of cuBLAS timed in the same run
#   sweep.csv/.log    the tuning sweep: 18 block/warp tile configurations × 1 or 2 stages × 4 block
#                     orders at the four perf shapes; split K 1/2/4/8 at 128×4096×4096
#   torch.csv         torch.matmul with TF32 off at the same shapes (a second denominator)
#   ncu_ladder.csv    Nsight Compute (--clock-control none) on every ladder kernel at 2048³ and on
#                     sgemm_fast and cuBLAS at 4096³: FMA pipe, shared wavefronts, conflicts, stalls
#   sanitizer.txt     compute-sanitizer memcheck and racecheck of every kernel on small odd shapes
#   sass.txt          instruction counts of the key kernels (FFMA, LDS.128, ...)
# A step that fails is reported and the next one runs.
#
# LIGHT=1 (about a minute): the final reference only. The sweep shrinks to sgemm_fast's configurations
# and their nearest rivals (-DSWEEP_CANDIDATES); no torch, no ncu, no SASS; sanitizers on one shape.
set -u
LIGHT=${LIGHT:-0}
export PATH="$PATH:/usr/local/cuda/bin"
OUT=${OUT:-/tmp/c4-out}
D="$OUT/c4"
mkdir -p "$D"
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
B=$(mktemp -d)
SECONDS=0
step() { echo "== [$SECONDS s] $*" | tee -a "$D/steps.txt"; }
fail() { echo "!! FAILED: $*" | tee -a "$D/steps.txt"; }

step "environment"
{
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit --format=csv
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1
  date -u
} > "$D/env.txt" 2>&1

step "build (bench + sweep parts in parallel, -Xptxas -v; LIGHT=$LIGHT)"
FLAGS="-O3 -arch=sm_90 -std=c++17 -lineinfo -Xptxas -v"
nvcc $FLAGS -Xcompiler -fopenmp -c benchmarks/c4_sgemm_bench.cu -o "$B/bench.o" > "$B/ptxas_bench.txt" 2>&1 &
if [ "$LIGHT" = 1 ]; then PARTS=2; SWEEP_FLAGS=-DSWEEP_CANDIDATES; else PARTS=8; SWEEP_FLAGS=; fi
for p in $(seq 0 $((PARTS - 1))); do
  nvcc $FLAGS $SWEEP_FLAGS -DSWEEP_PART=$p -DSWEEP_PARTS=$PARTS -c benchmarks/c4_sgemm_sweep.cu -o "$B/sweep$p.o" \
    > "$B/ptxas_sweep$p.txt" 2>&1 &
done
wait
cat "$B"/ptxas_*.txt > "$D/build.log"
grep -E "error" "$D/build.log" && fail "compile errors (build.log)"
nvcc -arch=sm_90 -Xcompiler -fopenmp "$B"/bench.o "$B"/sweep*.o -lcublas -lgomp -o "$B/c4" >> "$D/build.log" 2>&1 \
  || fail "link (build.log)"
# registers / smem / spills, one line per kernel, names demangled
python3 - "$D/build.log" > "$D/ptxas.txt" 2>&1 <<'EOF' || fail "ptxas summary"
import re, subprocess, sys
name, rows = None, set()
for line in open(sys.argv[1]):
    m = re.search(r"Compiling entry function '(\S+)'", line)
    if m: name = m.group(1)
    m = re.search(r"Used (\d+) registers.*?(\d+) bytes smem", line)
    if m and name:
        rows.add((name, int(m.group(1)), int(m.group(2))))
    m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
    if m and name and (m.group(1) != "0" or m.group(2) != "0"):
        print("SPILL", name, line.strip())
for name, regs, smem in sorted(rows):
    dem = subprocess.run(["c++filt"], input=name, capture_output=True, text=True).stdout.strip()
    dem = re.sub(r"\(anonymous namespace\)::|sweep_copy::", "", dem)
    print(f"{regs:4d} regs {smem:6d} B smem  {dem}")
EOF
[ -x "$B/c4" ] || { fail "no binary; stopping"; exit 1; }

step "check: every variant and sweep configuration against float64"
timeout 150 "$B/c4" check "$D" > "$D/check.log" 2>&1 || fail "check (check.log): $(tail -1 "$D/check.log")"
tail -3 "$D/check.log"

step "ladder timing"
timeout 150 "$B/c4" ladder "$D" > "$D/ladder.log" 2>&1 || fail "ladder (ladder.log)"
cat "$D/ladder.log"

step "tuning sweep"
timeout 200 "$B/c4" sweep "$D" > "$D/sweep.log" 2>&1 || fail "sweep (sweep.log)"
cat "$D/sweep.log"
python3 - "$D/sweep.csv" > "$D/sweep_best.txt" 2>&1 <<'EOF' || fail "sweep summary"
import csv, collections, sys
rows = list(csv.DictReader(open(sys.argv[1])))
by_shape = collections.defaultdict(list)
for r in rows:
    by_shape[r["shape"]].append(r)
for shape, rs in by_shape.items():
    rs.sort(key=lambda r: float(r["median_ms"]))
    print(f"== {shape}: top 8")
    for r in rs[:8]:
        print(f"  {r['config']:34s} group {r['group']:>2s} slices {r['slices']}  {float(r['tflops']):6.2f} TFLOP/s  {r['pct_cublas']}% of cuBLAS")
# the best single configuration over the shapes without split K: highest minimum % of cuBLAS
score = collections.defaultdict(dict)
for r in rows:
    if r["slices"] == "1":
        score[(r["config"], r["group"])][r["shape"]] = float(r["pct_cublas"])
full = {k: v for k, v in score.items() if len(v) == len(by_shape)}
ranked = sorted(full.items(), key=lambda kv: -min(kv[1].values()))
print("== best worst-case over all shapes, no split K (config, group): min % of cuBLAS, per shape")
for (cfg, g), v in ranked[:8]:
    print(f"  {cfg:34s} group {g:>2s}  min {min(v.values()):5.1f}%  {v}")
EOF
cat "$D/sweep_best.txt"

if [ "$LIGHT" = 1 ]; then
  step "LIGHT: one sanitizer shape, no torch, ncu or SASS"
  for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$B/c4" once kernels 97 129 65 > "$B/san.txt" 2>&1
    rc=$?
    { echo "### $tool 97 129 65"; tail -5 "$B/san.txt"; echo "exit $rc"; } >> "$D/sanitizer.txt"
  done
  grep -E "^### |ERROR SUMMARY|RACECHECK SUMMARY|exit " "$D/sanitizer.txt"
  rm -rf "$B"
  step "done in $SECONDS s"
  exit 0
fi

step "torch.matmul, TF32 off"
timeout 90 python3 - > "$D/torch.csv" 2> "$D/torch.err" <<'EOF' || fail "torch (torch.err)"
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
print("shape,median_ms,tflops,torch")
for M, N, K in [(4096, 4096, 4096), (4096, 2048, 1024), (4095, 2047, 1023), (128, 4096, 4096)]:
    a = torch.rand(M, K, device="cuda") * 2 - 1
    b = torch.rand(K, N, device="cuda") * 2 - 1
    for _ in range(5): a @ b
    ts = []
    for _ in range(20):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); a @ b; e.record(); e.synchronize(); ts.append(s.elapsed_time(e))
    ts.sort(); ms = ts[len(ts) // 2]
    print(f"{M}x{N}x{K},{ms:.4f},{2 * M * N * K / ms / 1e9:.2f},{torch.__version__}")
EOF
cat "$D/torch.csv"

step "ncu (--clock-control none)"
METRICS=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,\
sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active,\
smsp__issue_active.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,\
launch__registers_per_thread,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,\
smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__inst_executed.sum,\
smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,\
l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,\
l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,\
smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_wait_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio,\
smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
# Fewer metrics when a name is unknown to this ncu: the run is kept rather than lost.
BASIC=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,\
smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__inst_executed_op_shared_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,\
l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
profile() {  # profile OUTFILE ARGS...
  local out=$1; shift
  timeout 120 ncu --clock-control none --csv --page raw --metrics "$METRICS" -k "regex:gemm|xmma|cutlass" \
    "$B/c4" once "$@" > "$out" 2>> "$D/ncu.err" && return 0
  echo "ncu with the full metric list failed for $*; retrying with the basic list" >> "$D/ncu.err"
  timeout 120 ncu --clock-control none --csv --page raw --metrics "$BASIC" -k "regex:gemm|xmma|cutlass" \
    "$B/c4" once "$@" > "$out" 2>> "$D/ncu.err" || fail "ncu $* (ncu.err)"
}
profile "$D/ncu_ladder.csv" kernels 2048 2048 2048
profile "$D/ncu_4096.csv" sgemm_fast,cublas_default_math,cublas_pedantic_math 4096 4096 4096
profile "$D/ncu_odd.csv" sgemm_fast,cublas_default_math 4095 2047 1023

step "compute-sanitizer memcheck + racecheck on small odd shapes"
{
  for tool in memcheck racecheck; do
    for shape in "97 129 65" "33 7 1" "1 130 67"; do
      echo "### $tool $shape"
      timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 "$B/c4" once kernels $shape > "$B/san.txt" 2>&1
      rc=$?
      tail -15 "$B/san.txt"
      echo "exit $rc"
    done
  done
} > "$D/sanitizer.txt" 2>&1
grep -E "^### |ERROR SUMMARY|RACECHECK SUMMARY|exit " "$D/sanitizer.txt"

step "SASS instruction counts"
{
  nvcc -arch=sm_90 -O3 -std=c++17 -cubin -Xptxas -v solutions/c4_sgemm.cu -o "$B/c4.cubin" 2> "$B/ptxas_solution.txt" \
    && cuobjdump -sass "$B/c4.cubin" > "$B/c4.sass" \
    && python3 benchmarks/c4_sass_counts.py "$B/c4.sass" "$B/ptxas_solution.txt"
} > "$D/sass.txt" 2>&1 || fail "sass (sass.txt)"

rm -rf "$B"
step "done in $SECONDS s"
