// One kernel launch: the checks a driver makes before it starts, the engine run, and what a
// failed run turns into (a sticky error, a stderr line, a report record).
#include <algorithm>
#include <cstdio>
#include <exception>

#include "report.h"
#include "runtime.h"

namespace simrt {

namespace {

// The error a GPU would give for each kind of failure the engine detects.
cudaError_t cuda_error_for(const std::string& kind) {
  if (kind == "out-of-bounds") return cudaErrorIllegalAddress;
  if (kind == "misaligned") return cudaErrorMisalignedAddress;
  if (kind == "watchdog" || kind == "deadlock") return cudaErrorLaunchTimeout;
  if (kind == "barrier-divergence" || kind == "sync-mask" || kind == "unsupported" ||
      kind == "trap")
    return cudaErrorIllegalInstruction;
  return cudaErrorLaunchFailure;   // shared-race and anything new: the launch was stopped
}

std::string dims(const dim3& d) {
  return "(" + std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z) + ")";
}

sim::Dim3 to_sim(const dim3& d) { return sim::Dim3{d.x, d.y, d.z}; }

// A launch the driver refuses: returned at once, like CUDA, and reported for the judge. CUDA 13 on
// an H200 answers cudaErrorInvalidValue for every refusal checked here: block and grid sizes, the
// kernel's __launch_bounds__, shared memory (benchmarks/h200-launch-refusals-2026-12-02.md).
cudaError_t refuse(const KernelRecord& k, dim3 grid, dim3 block, cudaError_t e,
                   const std::string& why) {
  fprintf(stderr, "drills-sim: launch of %s <<<%s, %s>>> refused: %s (%s)\n",
          k.demangled.c_str(), dims(grid).c_str(), dims(block).c_str(), why.c_str(),
          cudaGetErrorName(e));
  sim::LaunchReport r;
  r.kernel = k.name;
  r.grid = to_sim(grid);
  r.block = to_sim(block);
  sim::SimError err;
  err.kind = "launch-configuration";
  err.message = why + " (" + cudaGetErrorName(e) + ")";
  r.errors.push_back(err);
  report_launch(k.demangled, r);
  return fail(e);
}

}  // namespace

cudaError_t launch(KernelRecord* k, dim3 grid, dim3 block, void** args, size_t shared,
                   cudaStream_t stream) {
  SIMRT_ENTER();
  Runtime& r = rt();
  if (!k) return fail(cudaErrorInvalidDeviceFunction);
  if (!valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  if (!ensure_loaded(*k->module)) return fail(cudaErrorInvalidPtx);
  sim::Module& module = *k->module->module;
  if (!module.has_kernel(k->name)) {
    fprintf(stderr, "drills-sim: kernel %s is registered but not in the module's PTX\n",
            k->name.c_str());
    return fail(cudaErrorInvalidDeviceFunction);
  }

  // PTX the simulator cannot run: the launch fails as a GPU's does when its driver cannot compile
  // the module (cudaErrorInvalidPtx, not sticky), and the reason quotes the PTX line.
  const std::string missing = module.unsupported(k->name);
  if (!missing.empty()) {
    fprintf(stderr, "drills-sim: cannot run kernel %s: %s (cudaErrorInvalidPtx)\n", k->demangled.c_str(),
            missing.c_str());
    sim::LaunchReport r;
    r.kernel = k->name;
    r.grid = to_sim(grid);
    r.block = to_sim(block);
    sim::SimError err;
    err.kind = "unsupported";
    err.message = missing;
    r.errors.push_back(err);
    report_launch(k->demangled, r);
    report_unsupported(missing);
    return fail(cudaErrorInvalidPtx);
  }

  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 ||
      block.z > 64 || threads > 1024)
    return refuse(*k, grid, block, cudaErrorInvalidValue,
                  "a block may have at most 1024 threads and dimensions (1024, 1024, 64), and none "
                  "may be 0; this one has " + std::to_string(threads) + " threads");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535 ||
      grid.z > 65535)
    return refuse(*k, grid, block, cudaErrorInvalidValue,
                  "grid dimensions must be 1..2147483647 in x and 1..65535 in y and z");

  KernelInfo info;
  auto found = k->module->info.kernels.find(k->name);
  if (found != k->module->info.kernels.end()) info = found->second;
  if (info.max_threads && threads > static_cast<uint64_t>(info.max_threads))
    return refuse(*k, grid, block, cudaErrorInvalidValue,
                  "the kernel's __launch_bounds__ allow " + std::to_string(info.max_threads) +
                      " threads per block, the launch asks for " + std::to_string(threads));
  const uint64_t optin = r.device.shared_per_block_optin;
  const uint64_t dynamic_limit =
      k->max_dynamic_shared >= 0
          ? static_cast<uint64_t>(k->max_dynamic_shared)
          : (r.device.shared_per_block > info.static_shared_bytes
                 ? r.device.shared_per_block - info.static_shared_bytes
                 : 0);
  if (shared > dynamic_limit || info.static_shared_bytes + shared > optin)
    return refuse(*k, grid, block, cudaErrorInvalidValue,
                  std::to_string(shared) + " bytes of dynamic shared memory (plus " +
                      std::to_string(info.static_shared_bytes) +
                      " static) exceed the limit of " + std::to_string(dynamic_limit) +
                      " bytes; more than 48 KiB needs cudaFuncSetAttribute("
                      "cudaFuncAttributeMaxDynamicSharedMemorySize)");

  sim::LaunchParams p;
  p.kernel = k->name;
  p.grid = to_sim(grid);
  p.block = to_sim(block);
  p.dynamic_shared_bytes = shared;
  p.args = args;
  p.host_threads = r.host_threads;
  p.watchdog_seconds = r.watchdog_seconds;
  p.sample_blocks = r.sample_blocks;
  p.resident_blocks = uint64_t(r.device.sm_count) * uint64_t(std::max(1, blocks_per_sm(*k, int(threads), shared)));
  p.latency = r.latency;

  sim::LaunchReport report;
  const double start = now_seconds();
  try {
    report = module.launch(p, r.memory);
  } catch (const std::exception& e) {
    report = sim::LaunchReport{};
    sim::SimError err;
    err.kind = "unsupported";
    err.message = e.what();
    report.errors.push_back(err);
  }
  const double elapsed = now_seconds() - start;
  if (report.kernel.empty()) report.kernel = k->name;
  report.grid = p.grid;
  report.block = p.block;
  if (report.seconds <= 0) report.seconds = elapsed;
  report_launch(k->demangled, report);

  if (!report.errors.empty()) {
    const sim::SimError& e = report.errors.front();
    const cudaError_t code = cuda_error_for(e.kind);
    // The engine's message names the thread, the source line and the memory involved.
    fprintf(stderr, "drills-sim: kernel %s <<<%s, %s>>> failed: %s: %s (%s)\n",
            k->demangled.c_str(), dims(grid).c_str(), dims(block).c_str(), e.kind.c_str(),
            e.message.c_str(), cudaGetErrorName(code));
    if (e.kind == "unsupported") report_unsupported(e.message);
    r.sticky = code;
  }
  // Like a GPU, the launch itself succeeds; the fault surfaces in the calls that follow.
  return cudaSuccess;
}

}  // namespace simrt
