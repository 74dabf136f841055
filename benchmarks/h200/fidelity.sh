#!/usr/bin/env bash
# What the simulator's instruction counts and time model (issue 14) need from one H200. Run on the GPU
# machine from the repository root:
#
#     OUT=/some/folder bash benchmarks/h200/fidelity.sh
#
# Writes under $OUT/fidelity/ (about 4 minutes; every step runs even when an earlier one failed):
#   status.txt          one line per step: name, exit code, seconds
#   env.txt             GPU, driver, clocks, nvcc and ncu versions
#   timing.csv          CUDA-event medians of every C1-C3 variant at its perf shapes and of the held-out
#                       transposes (benchmarks/h200/transpose_zoo.cuh) at 8192², with cudaMemcpy D2D
#                       and the copy kernels in the same run (fidelity_timing.cu)
#   ptxas/*.txt         ptxas -v of every program here (registers, shared memory per kernel)
#   sass/*.sass         cuobjdump -sass of the same programs: the SASS the counters come from
#   ncu/                sim/validation/run_ncu.sh: counters of every sim/validation program (ncu.csv)
#   source/*.csv        Nsight Compute's per-SASS-instruction counters (SourceCounters section:
#                       instructions executed, predicated-on threads, shared wavefronts and ideal) for
#                       C3's edge tiles and C2's reductions; source/*.ncu-rep the reports
#   perf/*.csv          ncu at the perf shapes, one launch per variant: duration, DRAM and L2 bytes,
#                       instructions, shared wavefronts, occupancy, clocks, stall reasons
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE="$ROOT/benchmarks/h200"
OUT_DIR=${OUT:-$PWD/out}/fidelity
mkdir -p "$OUT_DIR"/{ptxas,sass,source,perf,logs}
STATUS="$OUT_DIR/status.txt"
if [ -n "${FIDELITY_BIN:-}" ]; then
  BIN=$FIDELITY_BIN
else
  BIN=$(mktemp -d "${TMPDIR:-/tmp}/drills-fidelity-XXXXXX")
  trap 'rm -rf "$BIN"' EXIT
fi

find_tool() {  # find_tool NAME [CANDIDATE...]: the first that exists, or ""
  local name=$1; shift
  if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
  local c
  for c in "$@"; do [ -x "$c" ] && { echo "$c"; return; }; done
  echo ""
}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(find_tool nvcc "$CUDA_HOME/bin/nvcc")}
NCU=${NCU:-$(find_tool ncu "$CUDA_HOME/bin/ncu" /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu)}
CUOBJDUMP=$(find_tool cuobjdump "$CUDA_HOME/bin/cuobjdump")
export NVCC NCU

DEADLINE=${FIDELITY_DEADLINE:-290}  # seconds: a step is cut short or skipped past this

# step NAME LIMIT FUNCTION: run FUNCTION (in a child of this script, so `timeout` can stop it) for
# at most LIMIT seconds and never past the deadline; log its output; never stop the script.
step() {
  local name=$1 limit=$2 fn=$3
  local left=$((DEADLINE - SECONDS))
  [ "$left" -lt "$limit" ] && limit=$left
  if [ "$limit" -le 5 ]; then echo "$name skipped: out of time" | tee -a "$STATUS"; return 0; fi
  local t0=$SECONDS
  echo "== $name (limit ${limit}s, at ${SECONDS}s)"
  FIDELITY_BIN="$BIN" timeout "$limit" bash "${BASH_SOURCE[0]}" --inner "$fn" > "$OUT_DIR/logs/$name.txt" 2>&1
  local rc=$?
  echo "$name rc=$rc $((SECONDS - t0))s" | tee -a "$STATUS"
  [ $rc -eq 0 ] || tail -5 "$OUT_DIR/logs/$name.txt"
  return 0
}

env_info() {
  date -u +%Y-%m-%dT%H:%M:%SZ
  echo "nvcc: $NVCC"; "$NVCC" --version | tail -2
  echo "ncu: $NCU"; [ -n "$NCU" ] && "$NCU" --version | tail -1
  echo "cuobjdump: $CUOBJDUMP"
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,ecc.mode.current --format=csv
  nvidia-smi -q -d CLOCK,PERFORMANCE | sed -n 1,80p
}

# ---- build: the timing binaries and the validation programs, with ptxas -v and SASS ----
CFLAGS=(-O3 -arch=sm_90 -std=c++17 -lineinfo)
build_one() {  # build_one NAME SOURCES...: binary, ptxas -v, SASS
  local name=$1; shift
  "$NVCC" "${CFLAGS[@]}" -Xptxas -v "$@" -o "$BIN/$name" > "$OUT_DIR/ptxas/$name.txt" 2>&1 || { echo "build $name failed"; return 1; }
  [ -n "$CUOBJDUMP" ] && "$CUOBJDUMP" -sass "$BIN/$name" > "$OUT_DIR/sass/$name.sass" 2>&1
  return 0
}
build_all() {
  local pids=() rc=0
  build_one timing_c1 -DCHAPTER=1 "$HERE/fidelity_timing.cu" "$ROOT/solutions/c1_vector_add.cu" & pids+=($!)
  build_one timing_c2 -DCHAPTER=2 "$HERE/fidelity_timing.cu" "$ROOT/solutions/c2_reduction.cu" & pids+=($!)
  build_one timing_c3 -DCHAPTER=3 "$HERE/fidelity_timing.cu" "$ROOT/solutions/c3_transpose.cu" & pids+=($!)
  build_one timing_zoo -DCHAPTER=4 "$HERE/fidelity_timing.cu" & pids+=($!)
  for p in c2_reduction_ladder c3_edge_tiles c1_vector_add c3_transpose; do
    build_one "$p" "$ROOT/sim/validation/$p.cu" & pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=1; done
  ls -la "$BIN"
  return $rc
}

# ---- timing (CUDA events) ----
timing_all() {
  local first=1 b
  : > "$OUT_DIR/timing.csv"
  for b in timing_c3 timing_zoo timing_c1 timing_c2; do
    [ -x "$BIN/$b" ] || { echo "$b missing"; continue; }
    "$BIN/$b" --reps 30 --warmup 5 > "$BIN/$b.csv" 2> "$OUT_DIR/logs/$b.stderr.txt"
    echo "$b exit $?"
    if [ $first -eq 1 ]; then cat "$BIN/$b.csv"; first=0; else tail -n +2 "$BIN/$b.csv"; fi >> "$OUT_DIR/timing.csv"
  done
  cat "$OUT_DIR/timing.csv"
  grep -c FAIL "$OUT_DIR/timing.csv" && return 1
  return 0
}

# ---- Nsight Compute: the validation set's counters (sim/validation/run_ncu.sh) ----
ncu_validation() { OUT="$OUT_DIR/ncu" NCU_BUDGET=80 bash "$ROOT/sim/validation/run_ncu.sh"; }

# ---- per-SASS-instruction counters where PTX and SASS disagree ----
source_counters() {
  local p k
  for p in c3_edge_tiles c2_reduction_ladder; do
    [ -x "$BIN/$p" ] || continue
    (cd "$BIN" && "$NCU" --clock-control none --section SourceCounters --import-source no -f \
       -o "$OUT_DIR/source/$p" "./$p") > "$OUT_DIR/source/$p.log" 2>&1
    echo "$p: ncu exit $?"
    "$NCU" -i "$OUT_DIR/source/$p.ncu-rep" --page source --csv --print-source sass \
      > "$OUT_DIR/source/$p.sass.csv" 2> "$OUT_DIR/source/$p.sass.err"
    echo "$p: source page exit $? ($(wc -l < "$OUT_DIR/source/$p.sass.csv") lines)"
    "$NCU" -i "$OUT_DIR/source/$p.ncu-rep" --page raw --csv > "$OUT_DIR/source/$p.raw.csv" 2>&1
  done
  # One kernel per file as well, in case the source page prints only the first kernel.
  for k in transpose_tile transpose_vec4 strided_index_loop sequential_loop strided_unrolled divergent_unrolled; do
    for p in c3_edge_tiles c2_reduction_ladder; do
      [ -f "$OUT_DIR/source/$p.ncu-rep" ] || continue
      "$NCU" -i "$OUT_DIR/source/$p.ncu-rep" --page source --csv --print-source sass -k "regex:$k" \
        > "$OUT_DIR/source/$p.$k.sass.csv" 2>/dev/null
      [ -s "$OUT_DIR/source/$p.$k.sass.csv" ] || rm -f "$OUT_DIR/source/$p.$k.sass.csv"
    done
  done
  ls -la "$OUT_DIR/source"
}

# ---- the perf shapes under ncu: what bounds each launch ----
perf_metrics() {
  "$NCU" --query-metrics > "$OUT_DIR/perf/query-metrics.txt" 2>&1
  local want=(
    gpu__time_duration.sum sm__cycles_elapsed.avg.per_second dram__cycles_elapsed.avg.per_second
    sm__cycles_elapsed.max sm__cycles_active.avg smsp__cycles_active.avg
    dram__bytes_read.sum dram__bytes_write.sum
    lts__t_sectors_op_read.sum lts__t_sectors_op_write.sum lts__t_sectors_op_atom.sum lts__t_sectors_op_red.sum
    lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
    l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
    l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
    smsp__inst_executed.sum smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum
    smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum
    smsp__thread_inst_executed.sum
    sm__warps_active.avg.pct_of_peak_sustained_active sm__maximum_warps_per_active_cycle_pct
    smsp__issue_active.avg.pct_of_peak_sustained_active
    dram__throughput.avg.pct_of_peak_sustained_elapsed lts__throughput.avg.pct_of_peak_sustained_elapsed
    l1tex__throughput.avg.pct_of_peak_sustained_active sm__throughput.avg.pct_of_peak_sustained_elapsed
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
    smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
    smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
    smsp__average_warps_issue_stalled_lg_throttle_per_issue_active.ratio
    smsp__average_warps_issue_stalled_drain_per_issue_active.ratio
    smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
    smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
    smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
    launch__registers_per_thread launch__shared_mem_per_block_static launch__occupancy_limit_registers
    launch__occupancy_limit_shared_mem launch__occupancy_limit_warps launch__occupancy_limit_blocks
    launch__waves_per_multiprocessor launch__grid_size launch__block_size
  )
  local m list=()
  for m in "${want[@]}"; do
    if grep -Eq "^[[:space:]]*${m%%.*}([[:space:]]|\$)" "$OUT_DIR/perf/query-metrics.txt"; then list+=("$m")
    else echo "$m MISSING" >> "$OUT_DIR/perf/metrics-missing.txt"; fi
  done
  (IFS=,; echo "${list[*]}")
}
perf_ncu() {
  local metrics b
  metrics=$(perf_metrics)
  echo "metrics: $metrics"
  for b in timing_c3 timing_zoo timing_c1 timing_c2; do
    [ -x "$BIN/$b" ] || continue
    timeout 100 "$NCU" --clock-control none --cache-control all --csv --print-units base \
      --kernel-name "regex:^(?!zz_)" --metrics "$metrics" --log-file "$OUT_DIR/perf/$b.csv" \
      "$BIN/$b" --profile > "$OUT_DIR/perf/$b.stdout.txt" 2>&1
    echo "$b: ncu exit $? ($(grep -c '^"' "$OUT_DIR/perf/$b.csv" 2>/dev/null) rows)"
    if ! grep -q '^"' "$OUT_DIR/perf/$b.csv" 2>/dev/null; then  # the kernel filter not understood?
      timeout 100 "$NCU" --clock-control none --cache-control all --csv --print-units base \
        --metrics "$metrics" --log-file "$OUT_DIR/perf/$b.csv" "$BIN/$b" --profile > "$OUT_DIR/perf/$b.stdout.txt" 2>&1
      echo "$b (no kernel filter): ncu exit $? ($(grep -c '^"' "$OUT_DIR/perf/$b.csv" 2>/dev/null) rows)"
    fi
  done
}

if [ "${1:-}" = "--inner" ]; then "$2"; exit $?; fi

: > "$STATUS"
env_info > "$OUT_DIR/env.txt" 2>&1
head -12 "$OUT_DIR/env.txt"
step build 120 build_all
step timing 120 timing_all
if [ -n "$NCU" ]; then
  step ncu_validation 100 ncu_validation
  step source_counters 60 source_counters
  step perf_ncu 150 perf_ncu
else
  echo "ncu not found: counters, source counters and perf profiles skipped" | tee -a "$STATUS"
fi

echo "fidelity.sh: done in ${SECONDS}s; outputs in $OUT_DIR"
cat "$STATUS"
