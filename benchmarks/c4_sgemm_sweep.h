// The tuning sweep's registry: benchmarks/c4_sgemm_sweep.cu (compiled in several parts, in parallel)
// adds one entry per configuration of the reference's register-tile kernel; c4_sgemm_bench.cu
// checks and times them all.
#pragma once

#include <string>
#include <vector>

using SweepRun = void (*)(const float* A, const float* B, float* C, int M, int N, int K, int group, int slices);

struct SweepConfig {
  std::string name;  // "BMxBNxBK_wWMxWN_lLMxLN_sSTAGES_bMINBLOCKS"
  int bm, bn, bk, wm, wn, lm, stages, min_blocks, threads;
  SweepRun run;
};

std::vector<SweepConfig>& sweep_registry();
