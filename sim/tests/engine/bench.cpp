// Simulated elements per second of the padded-tile transpose (32x32 tile, [32][33], 32x8 block,
// 4 elements a thread) at 2048x2048 on ONE host thread. Usage: engine_bench [N] [kernel] [threads]
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>

#include "test_memory.h"

int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2048;
  std::string kernel = argc > 2 ? argv[2] : "transpose_tile33";
  int threads = argc > 3 ? atoi(argv[3]) : 1;
  auto mod = sim::Module::parse(simtest::read_ptx("transpose.ptx"));
  simtest::TestMemory mem;
  std::vector<float> x(size_t(n) * n);
  for (size_t i = 0; i < x.size(); ++i) x[i] = float(i % 1000003);
  uint64_t dx = mem.upload(x), dy = mem.alloc(x.size() * 4);
  simtest::Args a;
  a.add(dy).add(dx).add(n).add(n);
  sim::LaunchParams lp;
  lp.kernel = kernel;
  lp.grid = {uint32_t((n + 31) / 32), uint32_t((n + 31) / 32), 1};
  lp.block = {32, 8, 1};
  lp.args = a.get();
  lp.host_threads = threads;
  auto t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  sim::LaunchReport r = mod->launch(lp, mem);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;  // the machine may be shared: CPU time too
  auto y = mem.download<float>(dy, x.size());
  size_t bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) bad += y[size_t(j) * n + i] != x[size_t(i) * n + j];
  printf("%s %dx%d on %d host thread(s): %.3f s wall, %.2f M elements/s; %.3f s CPU, %.2f M elements per CPU-second; "
         "%zu mismatches, %zu errors\n", kernel.c_str(), n, n, threads, s, double(n) * n / s / 1e6, cpu,
         double(n) * n / cpu / 1e6, bad, r.errors.size());
  if (!r.errors.empty()) printf("error: %s\n", r.errors[0].message.c_str());
  for (auto& [k, v] : r.metrics) printf("  %-60s %llu\n", k.c_str(), (unsigned long long)v);
  return bad || !r.errors.empty();
}
