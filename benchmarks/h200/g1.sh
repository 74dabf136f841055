#!/usr/bin/env bash
# G1 (GEMM on tensor cores, problem 84) on one H200, in one run of about 3 minutes:
#   1. build benchmarks/g1_bench.cu (the reference's ladder, cuBLAS, the mma.sync probe) and the five
#      sweep groups of benchmarks/g1_sweep.cu in parallel, for sm_90, with -Xptxas -v;
#   2. check: every ladder rung, every sweep configuration and the golden cases' base learner file
#      (benchmarks/g1_learner.cu) against a float64 host reference (odd shapes, K = 8192, all ones);
#   3. peak: mma.sync m16n8k16 (f32 accumulate) throughput with operands in registers;
#   4. time: the ladder and cublasGemmEx (f16 in, f32 out) at 4096³, 4096×2048×1024, 8192³, 2048³;
#   5. sweep: every configuration of the pipelined kernel at 4096³, 4096×2048×1024 and 8192³;
#   6. ncu --clock-control none on one launch of each rung, cuBLAS and the sweep's winner at 4096³;
#   7. compute-sanitizer racecheck and memcheck on small odd shapes.
# Results go to $OUT/g1/: summary.txt (the tables) and g1_all.tar.gz (every CSV and log).
# A failing step is reported and the rest still run.
#   OUT=/tmp/out bash benchmarks/h200/g1.sh
# LIGHT=1: only steps 1 (without the sweep groups), 2 and 4: the final reference's correctness and its
# ladder against cuBLAS, in well under a minute.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/out}
D="$OUT/g1"
W=$(mktemp -d /tmp/g1.XXXXXX)
mkdir -p "$D"
cd "$ROOT"
JOBS=$(nproc 2>/dev/null || echo 4)
LIGHT=${LIGHT:-0}
status() { echo "== $* ($(date +%T))" | tee -a "$W/steps.txt"; }
failed() { echo "!! FAILED: $*" | tee -a "$W/steps.txt"; }

status "environment"
{
  date -u
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv 2>&1
  nvcc --version | tail -2
  git -C "$ROOT" log -1 --format='commit %H %s' 2>/dev/null
} > "$W/env.txt" 2>&1

status "build (sm_90, -O3, ptxas -v)"
NVCC="nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas -v"
SWEEP_GROUPS="0 1 2 3 4"; BENCH_FLAGS=""
[ "$LIGHT" = 1 ] && { SWEEP_GROUPS=""; BENCH_FLAGS="-DG1_NO_SWEEP"; }
for g in $SWEEP_GROUPS; do
  ( $NVCC -DG1_SWEEP_GROUP=$g -c benchmarks/g1_sweep.cu -o "$W/sweep$g.o" > "$W/ptxas_sweep$g.txt" 2>&1 \
      || failed "sweep group $g did not compile (see ptxas_sweep$g.txt)" ) &
done
( $NVCC $BENCH_FLAGS -c benchmarks/g1_bench.cu -o "$W/bench.o" > "$W/ptxas_bench.txt" 2>&1 \
    || failed "g1_bench.cu did not compile (see ptxas_bench.txt)" ) &
( $NVCC -c benchmarks/g1_learner.cu -o "$W/learner.o" > "$W/ptxas_learner.txt" 2>&1 \
    || failed "g1_learner.cu did not compile (see ptxas_learner.txt)" ) &
wait
BENCH="$W/g1_bench"
nvcc -arch=sm_90 "$W"/bench.o "$W"/learner.o $(ls "$W"/sweep?.o 2>/dev/null) -lcublas -o "$BENCH" > "$W/link.txt" 2>&1 \
  || failed "link (see link.txt)"
# One line per kernel: the ladder from the bench, the aligned pipelined kernels from the sweep groups.
ptxas_lines() { grep -h -E "Compiling entry|registers|spill" "$@" | paste - - - | sed -E 's/ptxas info *: //g'; }
{ ptxas_lines "$W/ptxas_bench.txt"; ptxas_lines "$W"/ptxas_sweep?.txt | grep 'pipelined_kernel.*Lb1EE'; } \
  > "$W/ptxas_summary.txt" 2>/dev/null
if [ ! -x "$BENCH" ]; then
  failed "no benchmark binary: nothing else can run"
  tail -50 "$W"/ptxas_*.txt "$W/link.txt" > "$D/summary.txt" 2>&1
  tar -C "$W" -czf "$D/g1_all.tar.gz" . ; exit 1
fi
command -v cuobjdump > /dev/null && cuobjdump -sass "$W/bench.o" > "$W/bench.sass" 2>&1

status "check against the float64 host reference"
"$BENCH" check > "$W/check.csv" 2> "$W/check.err" || failed "check (see check.csv: rows with bad > 0)"

if [ "$LIGHT" != 1 ]; then
status "mma.sync peak"
"$BENCH" peak > "$W/peak.csv" 2> "$W/peak.err" || failed "peak"

fi

status "time the ladder against cuBLAS"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader >> "$W/env.txt" 2>&1
"$BENCH" time > "$W/time.csv" 2> "$W/time.err" || failed "time"

if [ "$LIGHT" != 1 ]; then

status "tuning sweep"
"$BENCH" sweep > "$W/sweep.csv" 2> "$W/sweep.err" || failed "sweep"
nvidia-smi --query-gpu=clocks.sm,power.draw,temperature.gpu --format=csv,noheader >> "$W/env.txt" 2>&1

# The sweep's best configuration at 4096³, profiled after the ladder.
BEST=$(awk -F, '$2==4096 && $3==4096 && $4==4096 && $1!="cublas" {print $8, $1}' "$W/sweep.csv" 2>/dev/null | sort -gr | head -1 | cut -d' ' -f2)

status "ncu (--clock-control none) at 4096^3, best sweep config: ${BEST:-none}"
METRICS=(
  gpu__time_duration.sum
  sm__throughput.avg.pct_of_peak_sustained_elapsed
  sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
  sm__inst_executed_pipe_tensor_op_hmma.sum
  smsp__inst_executed_op_ldsm.sum
  smsp__inst_executed_pipe_tensor_op_hmma.sum
  smsp__sass_inst_executed_op_ldsm.sum
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
  smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
  smsp__sass_inst_executed_op_ldgsts.sum
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
  # LDGSTS's global side exists only in SASS-level form, per cache mode (.cg is BYPASS, .ca ACCESS)
  # and for all LDGSTS; l1tex__t_* has the .ca form only, and l1tex__data_* has no LDSM form (the
  # smsp__sass_ LDSM names above are the ones): H200 `ncu --query-metrics --chip gh100`, ncu 2025.3.1.
  smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum
  smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum
  smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts.sum
  smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  smsp__inst_executed_op_ldgsts.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
  lts__t_sector_hit_rate.pct
  dram__bytes_read.sum
  dram__bytes_write.sum
  sm__warps_active.avg.pct_of_peak_sustained_active
  smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
  smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
  smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
  smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
  smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
  smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
  smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
  smsp__average_warps_issue_stalled_selected_per_issue_active.ratio
  smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
)
if command -v ncu > /dev/null; then
  # Keep only the names this ncu knows: one unknown name would fail the whole profile.
  ncu --query-metrics --chip gh100 > "$W/ncu_query.txt" 2>&1 || ncu --query-metrics > "$W/ncu_query.txt" 2>&1
  KNOWN=()
  for m in "${METRICS[@]}"; do
    base=${m%%.*}
    if grep -q "^$base[[:space:]]" "$W/ncu_query.txt"; then KNOWN+=("$m"); else echo "$m" >> "$W/ncu_unknown.txt"; fi
  done
  [ ${#KNOWN[@]} -eq 0 ] && KNOWN=("${METRICS[@]}")  # the query's format was not understood: try them all
  # The first two launches are the input generators; everything after them is a GEMM.
  ncu --clock-control none --launch-skip 2 --metrics "$(IFS=,; echo "${KNOWN[*]}")" --csv \
    "$BENCH" profile ${BEST:+"$BEST"} > "$W/ncu.csv" 2> "$W/ncu.err" || failed "ncu (see ncu.err)"
else
  failed "ncu not found"
fi

status "compute-sanitizer racecheck and memcheck (small odd shapes)"
if command -v compute-sanitizer > /dev/null; then
  compute-sanitizer --tool racecheck --racecheck-report all "$BENCH" small > "$W/racecheck.txt" 2>&1 || failed "racecheck (see racecheck.txt)"
  compute-sanitizer --tool memcheck "$BENCH" small > "$W/memcheck.txt" 2>&1 || failed "memcheck (see memcheck.txt)"
else
  failed "compute-sanitizer not found"
fi

fi  # LIGHT

status "summary"
python3 benchmarks/g1_summary.py "$W" > "$W/summary.txt" 2>&1 || failed "summary"
cat "$W/steps.txt" >> "$W/summary.txt"
cp "$W/summary.txt" "$D/summary.txt"
tar -C "$W" --exclude=g1_bench --exclude='*.o' -czf "$D/g1_all.tar.gz" .
cat "$D/summary.txt"
