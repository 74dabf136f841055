// Multiply-adds per second inside mma.sync on ONE host thread: `iters` back-to-back
// mma.m16n8k16 per warp (2048 multiply-adds each), 4 warps a block.
// Usage: engine_bench_tensor [blocks] [iters]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "test_memory.h"

int main(int argc, char** argv) {
  const int blocks = argc > 1 ? atoi(argv[1]) : 64;
  const int iters = argc > 2 ? atoi(argv[2]) : 1000;
  auto mod = sim::Module::parse(simtest::read_ptx("tensor.ptx"));
  simtest::TestMemory mem;
  std::vector<uint16_t> a(256, 0x3c00), b(128, 0x3c00);  // ones
  uint64_t da = mem.upload(a), db = mem.upload(b), dd = mem.alloc(size_t(blocks) * 128 * 16);
  simtest::Args args;
  args.add(da).add(db).add(dd).add(iters);
  sim::LaunchParams lp;
  lp.kernel = "mma_loop";
  lp.grid = {uint32_t(blocks), 1, 1};
  lp.block = {128, 1, 1};
  lp.args = args.get();
  lp.host_threads = 1;
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  sim::LaunchReport r = mod->launch(lp, mem);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
  const double macs = double(blocks) * 4 * iters * 2048;
  auto d = mem.download<float>(dd, 4);
  printf("mma.m16n8k16 x %.0f: %.3f s wall, %.3f s CPU, %.2f G multiply-adds per CPU-second; D[0] = %g (want %d); %zu errors\n",
         macs / 2048, s, cpu, macs / cpu / 1e9, d[0], 16 * iters, r.errors.size());
  if (!r.errors.empty()) printf("error: %s\n", r.errors[0].message.c_str());
  return r.errors.empty() && d[0] == float(16 * iters) ? 0 : 1;
}
