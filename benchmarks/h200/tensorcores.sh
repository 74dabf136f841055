#!/usr/bin/env bash
# The H200 side of the simulator's tensor-core support (issue 12), in one call of under 3 minutes.
# Run on the GPU machine from the repository root:
#
#     OUT=/some/folder bash benchmarks/h200/tensorcores.sh
#
# It builds sim/validation's tensor-core programs with nvcc -O3 -arch=sm_90 -lineinfo and, through
# sim/validation/run_ncu.sh, writes under $OUT/tensorcores/:
#   run/PROG.txt        each program's output without the profiler: `result NAME DIGEST` lines (bit
#                       patterns that must match the simulator's) and `values NAME W ...` lines (the
#                       bit patterns themselves: every half-precision form of the engine's fixtures
#                       on 4096 inputs, and mma/wmma on random inputs, whose difference from the
#                       simulator in ulps is what issue 12 asks to state)
#   ncu.csv, raw/       Nsight Compute counters of every launch (--clock-control none): the existing
#                       global/shared names plus the tensor-core ones in $EXTRA below
#   metrics.txt         which of those names this ncu has (MISSING ones were not collected)
#   query-metrics.txt   `ncu --query-metrics`; query-metrics-tensor.txt: its lines about LDSM, STSM,
#                       LDGSTS, the tensor pipe and tensor ops, to confirm or correct the names
#   sass/PROG.sass      cuobjdump -sass (what ptxas made of wmma, ldmatrix, cp.async)
#   env.txt, summary.txt
# Programs: hgemm_mma_pipeline (mma.sync + ldmatrix + 3-stage cp.async GEMM, swizzled and plain
# shared tiles), hgemm_wmma (nvcuda::wmma GEMMs from global and shared memory, f16 accumulators,
# fragment registers), ldmatrix_tiles (ldmatrix x1/x2/x4/.trans, stmatrix, movmatrix on plain,
# swizzled and padded tiles), cp_async_stages (2/3/4-stage pipelines, .ca 4/8, zero fill), and
# tc_numerics (outputs only, not profiled).
# Ran on 2026-12-01 (NVIDIA H200, driver 580.159.04, ncu 2025.3.1): its results are checked in as
# sim/validation/h200-ncu.json (counters), h200-outputs.json (outputs) and tensorcores-table.md; the
# names below are the ones that ncu lists. To redo it, on the development machine:
#   python3 sim/validation/compare.py --ncu-csv OUT/tensorcores/ncu.csv --write-json sim/validation/h200-ncu.json
#   python3 sim/validation/compare.py --outputs OUT/tensorcores/run --write-outputs sim/validation/h200-outputs.json
#   python3 sim/validation/compare.py --program hgemm_mma_pipeline ... --table-md sim/validation/tensorcores-table.md
set +e
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEST=${OUT:-$PWD/out}/tensorcores
mkdir -p "$DEST"
start=$SECONDS

EXTRA=(
  # the simulator's names
  smsp__inst_executed_pipe_tensor_op_hmma.sum
  smsp__sass_inst_executed_op_ldsm.sum smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
  smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
  smsp__sass_inst_executed_op_shared_stsm.sum smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum
  smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_stsm.sum
  smsp__sass_inst_executed_op_ldgsts.sum
  l1tex__t_requests_pipe_lsu_mem_global_op_ldgsts_cache_access.sum l1tex__t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_access.sum
  smsp__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum
  smsp__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum
  smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
  smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldgsts.sum
  # stand-ins compare.py accepts when a name above is missing (compare.py ALIASES)
  sm__inst_executed_pipe_tensor_op_hmma.sum smsp__inst_executed_pipe_tensor.sum
  sm__sass_inst_executed_op_ldsm.sum sm__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
  sm__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum
  sm__sass_l1tex_t_requests_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum
  sm__sass_l1tex_t_sectors_pipe_lsu_mem_global_op_ldgsts_cache_bypass.sum
  # to learn how ncu books these (all shared wavefronts; math ops per HMMA)
  l1tex__data_pipe_lsu_wavefronts_mem_shared.sum smsp__sass_inst_executed_op_shared_ld.sum
  sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum
  sm__ops_path_tensor_src_bf16_dst_fp32.sum
)

PROGRAMS="hgemm_mma_pipeline hgemm_wmma ldmatrix_tiles cp_async_stages tc_numerics" \
RUN_ONLY="tc_numerics" EXTRA_METRICS="${EXTRA[*]}" PROFILE_BUDGET=140 OUT="$DEST" \
  timeout 170 bash "$ROOT/sim/validation/run_ncu.sh" > "$DEST/run_ncu.log" 2>&1
rc=$?
echo "run_ncu.sh exit $rc after $((SECONDS - start)) s" | tee "$DEST/summary.txt"
grep -Ei 'ldsm|stsm|ldgsts|pipe_tensor|hmma|ops_path_tensor' "$DEST/query-metrics.txt" > "$DEST/query-metrics-tensor.txt" 2>/dev/null
{
  echo "--- metrics asked for"; cat "$DEST/metrics.txt" 2>/dev/null
  echo "--- program runs"
  for f in "$DEST"/run/*.txt; do
    [ -f "$f" ] || continue
    echo "$(basename "$f" .txt): $(grep -c '^result' "$f") result lines, $(grep -c '^values' "$f") values lines, $(tail -1 "$f")"
  done
  echo "--- ncu rows per program"
  [ -f "$DEST/ncu.csv" ] && cut -d, -f1 "$DEST/ncu.csv" | sort | uniq -c
  echo "--- run_ncu.sh log (last lines)"; tail -20 "$DEST/run_ncu.log"
} >> "$DEST/summary.txt" 2>&1
cat "$DEST/summary.txt"
echo "tensorcores.sh: wrote $DEST in $((SECONDS - start)) s"
exit 0
