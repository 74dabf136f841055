// What benchmarks/g1_bench.cu and the sweep groups (benchmarks/g1_sweep.cu) share.
#pragma once

#include <cuda_fp16.h>

#include <utility>
#include <vector>

using HgemmFn = void (*)(const __half* A, const __half* B, float* C, int M, int N, int K);

// One tuning configuration of the reference's pipelined kernel (solutions/g1_hgemm.cu, Pipeline<>).
struct SweepConfig {
  const char* name;  // "BMxBNxBK_wWMxWN_sS_gG_pP": block tile, warps, stages, block-order group
  HgemmFn run;       // the aligned path only: the sweep's shapes are multiples of 8
  int smem_bytes;
  int threads;
};

// Each sweep group, compiled on its own (-DG1_SWEEP_GROUP=n) so that the groups build in parallel.
void g1_sweep_group_0(std::vector<SweepConfig>& out);
void g1_sweep_group_1(std::vector<SweepConfig>& out);
void g1_sweep_group_2(std::vector<SweepConfig>& out);
void g1_sweep_group_3(std::vector<SweepConfig>& out);
void g1_sweep_group_4(std::vector<SweepConfig>& out);

// The golden cases' base learner file (benchmarks/g1_learner.cu): M, N, K multiples of 16 only.
void g1_learner_variants(std::vector<std::pair<const char*, HgemmFn>>& out);
