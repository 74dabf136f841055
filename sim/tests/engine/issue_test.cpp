// Instruction counts as the SASS issues them (sim/engine/issue.cpp), on ptx/issue.cu: numbers an
// H200 gives for the same code (issue 14: 1,056,768 shared loads for the strided-index reduction
// over 2^21 floats = 129 a block).
#include <gtest/gtest.h>

#include "test_memory.h"

namespace {

sim::LaunchReport run(const std::string& kernel, uint32_t blocks) {
  auto mod = sim::Module::parse(simtest::read_ptx("issue.ptx"));
  simtest::TestMemory mem;
  std::vector<float> x(blocks * 256);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 7);
  uint64_t dx = mem.upload(x), dp = mem.alloc(blocks * 4);
  simtest::Args a;
  a.add(dx).add(dp);
  sim::LaunchParams lp;
  lp.kernel = kernel;
  lp.grid = {blocks, 1, 1};
  lp.block = {256, 1, 1};
  lp.args = a.get();
  lp.host_threads = 1;
  auto r = mod->launch(lp, mem);
  EXPECT_TRUE(r.errors.empty()) << r.errors[0].message;
  auto p = mem.download<float>(dp, blocks);
  for (uint32_t b = 0; b < blocks; ++b) {
    float want = 0;
    for (int i = 0; i < 256; ++i) want += x[b * 256 + i];
    EXPECT_EQ(p[b], want) << kernel << " block " << b;
  }
  return r;
}

uint64_t metric(const sim::LaunchReport& r, const char* name) {
  auto it = r.metrics.find(name);
  return it == r.metrics.end() ? 0 : it->second;
}

TEST(IssueModel, PredicatedBodyIssuedByEveryWarp) {
  auto r = run("strided_index_loop", 2);
  // 8 warps x 8 rounds x 2 loads, every warp every round, plus s[0] for warp 0 (the body after
  // `@P EXIT`), per block. Wavefronts come from active lanes only and do not change.
  EXPECT_EQ(metric(r, "smsp__inst_executed_op_shared_ld.sum"), 2u * 129u);
  EXPECT_EQ(metric(r, "smsp__inst_executed_op_shared_st.sum"), 2u * (8u + 8u * 8u));
  EXPECT_EQ(metric(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 2u * 95u);
}

TEST(IssueModel, AdjacentSharedLoadsAreOneWideLoad) {
  auto r = run("strided_unrolled", 1);
  // Round d = 1 reads s[2t] and s[2t + 1] as one LDS.64 (8 warps x 1 instead of x 2), 2
  // wavefronts each (two half-warp phases, no conflict) instead of 2 x 2.
  EXPECT_EQ(metric(r, "smsp__inst_executed_op_shared_ld.sum"), 8u * 15u + 1u);
  EXPECT_EQ(metric(r, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"), 87u);
}

}  // namespace
