#!/usr/bin/env bash
# Ground truth for the simulator's counters: build every sim/validation/*.cu for the GPU and
# profile it with Nsight Compute. Run on a machine with a GPU (an H200), from the repository root:
#
#     OUT=/some/folder bash sim/validation/run_ncu.sh
#
# Optional environment:
#   PROGRAMS="a b"       only these programs (stems of sim/validation/*.cu); default: all of them
#   RUN_ONLY="c"         of those, programs that are only run (their output is what counts), not profiled
#   EXTRA_METRICS="m.sum n.sum"   more metrics to ask for when this ncu has them (listed in metrics.txt)
#   PROFILE_BUDGET=250   seconds after which programs not yet profiled are left out (and named)
#
# Writes under $OUT (default ./ncu-out):
#   ncu.csv            every program's ncu rows, one per (launch, metric), with a leading "Program"
#                      column; sim/validation/compare.py reads it
#   metrics.txt        the metric list asked for, and any name this ncu lacks or that was replaced
#                      by its SASS-level form (smsp__inst_executed_op_* -> smsp__sass_inst_executed_op_*)
#   query-metrics.txt  `ncu --query-metrics` on this machine
#   env.txt            GPU, driver, nvcc and ncu versions
#   run/PROG.txt       the program's own output and exit code without the profiler
#   raw/PROG.csv       ncu's log for PROG, as written
#   sass/PROG.sass     cuobjdump -sass of PROG (when cuobjdump is there), to explain PTX/SASS gaps
# NCU_BUDGET (seconds, default 250): programs not started by then are left out and reported.
# Exit status: 0 when every program built, ran clean and produced ncu rows; 1 otherwise (the files
# above are written either way).
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRC="$ROOT/sim/validation"
OUT=${OUT:-$PWD/ncu-out}
mkdir -p "$OUT/run" "$OUT/raw" "$OUT/sass"
BIN=$(mktemp -d "${TMPDIR:-/tmp}/drills-ncu-XXXXXX")
trap 'rm -rf "$BIN"' EXIT

find_tool() {  # find_tool NAME [CANDIDATE...]: the first that exists
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
if [ -z "$NVCC" ]; then
  echo "run_ncu.sh: needs nvcc (found '$NVCC')" | tee "$OUT/env.txt"
  exit 1
fi
# Without ncu (a machine with no GPU tools) the programs are still built and run, so the script can
# be checked as far as it goes; the exit status is 1.
[ -n "$NCU" ] || echo "run_ncu.sh: no ncu here: building and running only"

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nvcc: $NVCC"; "$NVCC" --version | tail -2
  echo "ncu: ${NCU:-none}"; [ -n "$NCU" ] && "$NCU" --version | tail -1
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm --format=csv 2>&1
} > "$OUT/env.txt" 2>&1
cat "$OUT/env.txt"

SELECTED=${PROGRAMS:-}
PROGRAMS=()
if [ -n "$SELECTED" ]; then
  for p in $SELECTED; do
    if [ -f "$SRC/$p.cu" ]; then PROGRAMS+=("$p"); else echo "run_ncu.sh: no $SRC/$p.cu"; fi
  done
else
  for f in "$SRC"/*.cu; do PROGRAMS+=("$(basename "$f" .cu)"); done
fi
run_only() { case " ${RUN_ONLY:-} " in *" $1 "*) return 0 ;; esac; return 1; }
status=0

# Build all programs in parallel.
for p in "${PROGRAMS[@]}"; do
  ( "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$BIN/$p" "$SRC/$p.cu" > "$BIN/$p.build.txt" 2>&1 ) &
done
wait
for p in "${PROGRAMS[@]}"; do
  if [ ! -x "$BIN/$p" ]; then
    echo "run_ncu.sh: $p did not build:"; cat "$BIN/$p.build.txt"; status=1
  elif [ -n "$CUOBJDUMP" ]; then
    "$CUOBJDUMP" -sass "$BIN/$p" > "$OUT/sass/$p.sass" 2>&1
  fi
done

# The metrics the simulator reports, checked against this ncu's list.
WANTED=(
  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_atom.sum l1tex__t_requests_pipe_lsu_mem_global_op_red.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum
  l1tex__t_sectors_pipe_lsu_mem_global_op_atom.sum l1tex__t_sectors_pipe_lsu_mem_global_op_red.sum
  l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
  l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
  smsp__inst_executed_op_shared_ld.sum smsp__inst_executed_op_shared_st.sum smsp__inst_executed_op_shared_atom.sum
  smsp__inst_executed_op_global_ld.sum smsp__inst_executed_op_global_st.sum
  # Not compared by compare.py; kept for the time model (sim/model): warp instructions issued,
  # duration, clock, registers.
  smsp__inst_executed.sum gpu__time_duration.sum sm__cycles_elapsed.avg.per_second
  launch__registers_per_thread
)
for m in ${EXTRA_METRICS:-}; do WANTED+=("$m"); done
: > "$OUT/query-metrics.txt"
if [ -n "$NCU" ]; then
  timeout 60 "$NCU" --query-metrics > "$OUT/query-metrics.txt" 2>&1 \
    || timeout 60 "$NCU" --query-metrics --chip gh100 > "$OUT/query-metrics.txt" 2>&1
fi
has_metric() { grep -Eq "^[[:space:]]*$1([[:space:]]|\$)" "$OUT/query-metrics.txt"; }
LIST=()
: > "$OUT/metrics.txt"
if ! grep -Eq '^(l1tex|smsp)__' "$OUT/query-metrics.txt"; then
  echo "ncu --query-metrics listed nothing usable; asking for every metric as named" | tee -a "$OUT/metrics.txt"
  LIST=("${WANTED[@]}")
else
  for m in "${WANTED[@]}"; do
    base=${m%%.*}
    sass=${base/smsp__inst_executed_op_/smsp__sass_inst_executed_op_}
    if has_metric "$base"; then
      LIST+=("$m"); echo "$m" >> "$OUT/metrics.txt"
      # Also ask for the SASS-level count when this ncu has it: compare.py uses it only as a stand-in.
      [ "$sass" != "$base" ] && has_metric "$sass" && LIST+=("$sass.sum")
    elif [ "$sass" != "$base" ] && has_metric "$sass"; then
      LIST+=("$sass.sum"); echo "$m MISSING, using $sass.sum" >> "$OUT/metrics.txt"
    else
      echo "$m MISSING, not collected" >> "$OUT/metrics.txt"
    fi
  done
fi
cat "$OUT/metrics.txt"
METRICS=$(IFS=,; echo "${LIST[*]}")

CSV="$OUT/ncu.csv"
: > "$CSV"
header_written=0
for p in "${PROGRAMS[@]}"; do
  [ -x "$BIN/$p" ] || continue
  if [ "$SECONDS" -gt "${PROFILE_BUDGET:-${NCU_BUDGET:-250}}" ]; then  # stay inside the time slot: report what is left out
    echo "run_ncu.sh: out of time, $p not profiled"; status=1; continue
  fi
  # The program alone: it must pass its own checks.
  ( cd "$BIN" && timeout 30 "./$p" ) > "$OUT/run/$p.txt" 2>&1
  rc=$?
  echo "exit code: $rc" >> "$OUT/run/$p.txt"
  [ "$rc" -eq 0 ] || { echo "run_ncu.sh: $p exited $rc without the profiler"; status=1; }
  if run_only "$p"; then echo "$p: run only (not profiled), exit $rc"; continue; fi
  if [ -z "$NCU" ]; then status=1; continue; fi
  # Under ncu. Values in base units, kernels by mangled name (what the simulator reports).
  timeout 90 "$NCU" --clock-control none --csv --print-units base --print-kernel-base mangled \
    --metrics "$METRICS" --log-file "$OUT/raw/$p.csv" "$BIN/$p" > "$OUT/raw/$p.stdout.txt" 2>&1
  rc=$?
  if ! grep -q '^"' "$OUT/raw/$p.csv" 2>/dev/null; then
    echo "run_ncu.sh: $p: no rows (ncu exit $rc); retrying with default print options"
    timeout 90 "$NCU" --clock-control none --csv --metrics "$METRICS" --log-file "$OUT/raw/$p.csv" \
      "$BIN/$p" > "$OUT/raw/$p.stdout.txt" 2>&1
    rc=$?
  fi
  rows=$(grep -c '^"' "$OUT/raw/$p.csv" 2>/dev/null || true)
  echo "$p: ncu exit $rc, $rows csv lines"
  if [ "${rows:-0}" -le 1 ]; then status=1; tail -5 "$OUT/raw/$p.csv" "$OUT/raw/$p.stdout.txt" 2>/dev/null; continue; fi
  [ "$rc" -eq 0 ] || status=1
  # Keep the CSV lines (they start with a quote), prefixed with the program; one header in all.
  awk -v prog="$p" -v need_header=$((1 - header_written)) '
    /^"/ { if (!seen++) { if (need_header) print "\"Program\"," $0; next } print "\"" prog "\"," $0 }
  ' "$OUT/raw/$p.csv" >> "$CSV"
  header_written=1
done

echo "run_ncu.sh: wrote $CSV ($(wc -l < "$CSV") lines); status $status"
exit $status
