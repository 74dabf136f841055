#!/usr/bin/env bash
# H200 measurements that content/c1.md, c2.md and c3.md wait for (benchmarks/h200/README.md says
# which sentence each number backs). Self-contained: nvcc, ncu and a GPU; no gtest, no PyTorch.
# Writes everything to $OUT/chapters/ (default ./out/chapters). Under 3 minutes on an H200.
#   bash benchmarks/h200/chapters.sh
# Every step runs even when one before it failed; the summary at the end names the failures.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="${OUT:-$root/out}/chapters"
mkdir -p "$out"
failed=()
step() {  # step NAME COMMAND...: run, log to $out/NAME.log, remember a failure
  local name=$1; shift
  echo "== $name: $*"
  if "$@" >"$out/$name.log" 2>&1; then echo "   ok"; else echo "   FAILED (rc $?), see $name.log"; failed+=("$name"); fi
  tail -n 3 "$out/$name.log" | sed 's/^/   | /'
}

{
  date -u +%Y-%m-%dT%H:%M:%SZ
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,memory.total --format=csv 2>&1
  nvcc --version | tail -n 2
  ncu --version 2>&1 | tail -n 1
} >"$out/env.txt" 2>&1

build="$out/build"
mkdir -p "$build"
for b in c1 c2 c3; do
  step "build_$b" nvcc -O3 -arch=sm_90 -std=c++17 -lineinfo "$here/${b}_bench.cu" -o "$build/${b}_bench"
done

# Timings (CUDA events, median of 50 after 5 warm-ups, same-run cudaMemcpy; outputs checked).
step c1_times "$build/c1_bench"
step c2_times "$build/c2_bench"
step c3_times "$build/c3_bench"

NCU=(ncu --clock-control none --target-processes all --csv --print-units base)
# C2: what each ladder step issues. One call per variant at n = 2^24; the level-1 launch of each is
# the one with the largest grid. Warp instructions issued vs thread instructions executed shows
# predicated-off (idle) lanes that still issue.
step c2_ncu_ladder "${NCU[@]}" -k "regex:interleaved|sequential|first_add|warp_shuffle" \
  --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__thread_inst_executed.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,dram__bytes_read.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
  "$build/c2_bench" profile
step c2_ncu_stalls "${NCU[@]}" -k "regex:interleaved|sequential|first_add|warp_shuffle" --section WarpStateStats \
  "$build/c2_bench" profile
# C3: DRAM bytes and time of the copy and the [32][33] transpose in three block orders, 4113×8197,
# two launches each (the second is the one to read: caches warm as in the timed loop).
step c3_ncu_orders "${NCU[@]}" -k "regex:copy|transpose_tile_kernel" \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_write.sum \
  "$build/c3_bench" profile
# C3: the counter tables of content/c3.md §2 and §4.3 (M = 1024, N = 2048), to check against the anchors.
step c3_ncu_counters "${NCU[@]}" -k "regex:transpose" \
  --metrics l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,smsp__inst_executed_op_shared_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
  "$build/c3_bench" counters
# C1: DRAM throughput, occupancy and load instructions of each variant (two calls each, 2^28).
step c1_ncu "${NCU[@]}" -k "regex:add_|four_per_thread|grid_stride" \
  --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed_op_global_ld.sum \
  "$build/c1_bench" profile

echo
if [ ${#failed[@]} -eq 0 ]; then echo "chapters.sh: all steps ok; results in $out"; else echo "chapters.sh: failed steps: ${failed[*]}; results in $out"; fi
rm -rf "$build"
[ ${#failed[@]} -eq 0 ]
