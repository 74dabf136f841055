#include "launch_core.h"

#include <cxxabi.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "report.h"

namespace simrt {

namespace {

int env_int(const char* name, int fallback) {
  const char* v = getenv(name);
  if (!v || !*v) return fallback;
  int n = atoi(v);
  return n > 0 ? n : fallback;
}

double env_double(const char* name, double fallback) {
  const char* v = getenv(name);
  if (!v || !*v) return fallback;
  double d = atof(v);
  return d > 0 ? d : fallback;
}

// "alu=5,global=1000": the named fields of sim::Latencies; anything else is ignored.
void parse_latencies(const char* text, sim::Latencies& l) {
  if (!text) return;
  std::string s(text);
  for (size_t at = 0; at < s.size();) {
    size_t end = s.find(',', at);
    if (end == std::string::npos) end = s.size();
    const std::string item = s.substr(at, end - at);
    const size_t eq = item.find('=');
    if (eq != std::string::npos) {
      const std::string key = item.substr(0, eq);
      const uint32_t v = uint32_t(strtoul(item.c_str() + eq + 1, nullptr, 10));
      if (key == "alu") l.alu = v;
      else if (key == "sfu") l.sfu = v;
      else if (key == "shared") l.shared = v;
      else if (key == "global") l.global = v;
      else if (key == "warp") l.warp = v;
      else if (key == "barrier") l.barrier = v;
      else if (key == "loads" && v > 0) l.loads = v;
    }
    at = end + 1;
  }
}

// The cores this process may run on (a container's or taskset's share of the machine), not every
// core of the host: more threads than that only take turns. 0 when unknown (the engine then uses
// every core).
int usable_cores() {
#ifdef __linux__
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
#endif
  return 0;
}

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

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

// The report of a launch that never ran: its kernel, its configuration and why.
void report_not_run(const LaunchKernel& k, dim3 grid, dim3 block, const char* kind, const std::string& why) {
  sim::LaunchReport r;
  r.kernel = k.name;
  r.grid = to_sim(grid);
  r.block = to_sim(block);
  sim::SimError err;
  err.kind = kind;
  err.message = why;
  r.errors.push_back(err);
  report_launch(k.demangled, r);
}

// A launch the driver refuses: returned at once, like CUDA, and reported for the judge. CUDA 13 on
// an H200 answers cudaErrorInvalidValue for every refusal checked here: block and grid sizes, the
// kernel's __launch_bounds__, shared memory (benchmarks/h200-launch-refusals-2026-12-02.md).
cudaError_t refuse(const LaunchKernel& k, dim3 grid, dim3 block, cudaError_t e,
                   const std::string& why) {
  fprintf(stderr, "drills-sim: launch of %s <<<%s, %s>>> refused: %s (%s)\n",
          k.demangled.c_str(), dims(grid).c_str(), dims(block).c_str(), why.c_str(),
          launch_error_name(e));
  report_not_run(k, grid, block, "launch-configuration", why + " (" + launch_error_name(e) + ")");
  return e;
}

}  // namespace

LaunchSettings launch_settings_from_env() {
  LaunchSettings s;
  s.host_threads = env_int("DRILLS_SIM_THREADS", usable_cores());
  s.watchdog_seconds = env_double("DRILLS_SIM_WATCHDOG", 60.0);
  s.sample_blocks = uint64_t(env_int("DRILLS_SIM_SAMPLE_BLOCKS", 0));
  parse_latencies(getenv("DRILLS_SIM_LATENCY"), s.latency);
  return s;
}

std::string demangle(const std::string& mangled) {
  int status = 0;
  char* d = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !d) return mangled;
  std::string out(d);
  free(d);
  return out;
}

const char* launch_error_name(cudaError_t e) {
  switch (e) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorLaunchOutOfResources: return "cudaErrorLaunchOutOfResources";
    case cudaErrorInvalidPtx: return "cudaErrorInvalidPtx";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorMisalignedAddress: return "cudaErrorMisalignedAddress";
    case cudaErrorLaunchTimeout: return "cudaErrorLaunchTimeout";
    case cudaErrorIllegalInstruction: return "cudaErrorIllegalInstruction";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    default: return "unrecognized error code";
  }
}

int blocks_per_sm(const DeviceModel& d, const KernelInfo& info, int block_size, size_t dynamic_shared) {
  if (block_size > 1024 || (info.max_threads && block_size > info.max_threads)) return 0;
  const int warps = (block_size + 31) / 32;
  int blocks = std::min(d.max_blocks_per_sm, d.max_threads_per_sm / (warps * 32));
  blocks = std::min(blocks, d.regs_per_sm / (warps * 32 * kAssumedRegistersPerThread));
  const uint64_t shared = info.static_shared_bytes + dynamic_shared;
  if (shared > 0 || d.reserved_shared_per_block > 0)
    blocks = std::min<int>(blocks, static_cast<int>(d.shared_per_sm /
                                                    (shared + d.reserved_shared_per_block)));
  return std::max(blocks, 0);
}

cudaError_t check_launch(const LaunchKernel& k, dim3 grid, dim3 block, size_t shared,
                         const DeviceModel& device) {
  sim::Module& module = *k.module;

  // PTX the simulator cannot run: the launch fails as a GPU's does when its driver cannot compile
  // the module (cudaErrorInvalidPtx, not sticky), and the reason quotes the PTX line.
  const std::string missing = module.unsupported(k.name);
  if (!missing.empty()) {
    fprintf(stderr, "drills-sim: cannot run kernel %s: %s (cudaErrorInvalidPtx)\n",
            k.demangled.c_str(), missing.c_str());
    report_not_run(k, grid, block, "unsupported", missing);
    report_unsupported(missing);
    return cudaErrorInvalidPtx;
  }

  const uint64_t threads = uint64_t{block.x} * block.y * block.z;
  if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > 1024 || block.y > 1024 ||
      block.z > 64 || threads > 1024)
    return refuse(k, grid, block, cudaErrorInvalidValue,
                  "a block may have at most 1024 threads and dimensions (1024, 1024, 64), and none "
                  "may be 0; this one has " + std::to_string(threads) + " threads");
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 2147483647u || grid.y > 65535 ||
      grid.z > 65535)
    return refuse(k, grid, block, cudaErrorInvalidValue,
                  "grid dimensions must be 1..2147483647 in x and 1..65535 in y and z");

  const KernelInfo& info = k.info;
  if (info.max_threads && threads > static_cast<uint64_t>(info.max_threads))
    return refuse(k, grid, block, cudaErrorInvalidValue,
                  "the kernel's __launch_bounds__ allow " + std::to_string(info.max_threads) +
                      " threads per block, the launch asks for " + std::to_string(threads));
  const uint64_t optin = device.shared_per_block_optin;
  const uint64_t dynamic_limit =
      k.max_dynamic_shared >= 0
          ? static_cast<uint64_t>(k.max_dynamic_shared)
          : (device.shared_per_block > info.static_shared_bytes
                 ? device.shared_per_block - info.static_shared_bytes
                 : 0);
  if (shared > dynamic_limit || info.static_shared_bytes + shared > optin)
    return refuse(k, grid, block, cudaErrorInvalidValue,
                  std::to_string(shared) + " bytes of dynamic shared memory (plus " +
                      std::to_string(info.static_shared_bytes) +
                      " static) exceed the limit of " + std::to_string(dynamic_limit) +
                      " bytes; more than 48 KiB needs cudaFuncSetAttribute("
                      "cudaFuncAttributeMaxDynamicSharedMemorySize)");
  return cudaSuccess;
}

LaunchResult run_launch(const LaunchKernel& k, dim3 grid, dim3 block, void** args, size_t shared,
                        const LaunchSettings& settings, const DeviceModel& device,
                        sim::DeviceMemory& memory) {
  LaunchResult result;
  result.returned = check_launch(k, grid, block, shared, device);
  if (result.returned != cudaSuccess) return result;
  sim::Module& module = *k.module;

  sim::LaunchParams p;
  p.kernel = k.name;
  p.grid = to_sim(grid);
  p.block = to_sim(block);
  p.dynamic_shared_bytes = shared;
  p.args = args;
  p.host_threads = settings.host_threads;
  p.watchdog_seconds = settings.watchdog_seconds;
  p.sample_blocks = settings.sample_blocks;
  const int threads = int(uint64_t{block.x} * block.y * block.z);  // at most 1024: checked above
  p.resident_blocks = uint64_t(device.sm_count) * uint64_t(std::max(1, blocks_per_sm(device, k.info, threads, shared)));
  p.latency = settings.latency;

  sim::LaunchReport report;
  const double start = now_seconds();
  try {
    report = module.launch(p, memory);
  } catch (const std::exception& e) {
    report = sim::LaunchReport{};
    sim::SimError err;
    err.kind = "unsupported";
    err.message = e.what();
    report.errors.push_back(err);
  }
  const double elapsed = now_seconds() - start;
  if (report.kernel.empty()) report.kernel = k.name;
  report.grid = p.grid;
  report.block = p.block;
  if (report.seconds <= 0) report.seconds = elapsed;
  report_launch(k.demangled, report);

  if (!report.errors.empty()) {
    const sim::SimError& e = report.errors.front();
    const cudaError_t code = cuda_error_for(e.kind);
    // The engine's message names the thread, the source line and the memory involved.
    fprintf(stderr, "drills-sim: kernel %s <<<%s, %s>>> failed: %s: %s (%s)\n",
            k.demangled.c_str(), dims(grid).c_str(), dims(block).c_str(), e.kind.c_str(),
            e.message.c_str(), launch_error_name(code));
    if (e.kind == "unsupported") report_unsupported(e.message);
    result.fault = code;
  }
  return result;
}

}  // namespace simrt
