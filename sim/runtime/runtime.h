// State of the simulated CUDA runtime, shared by the files that implement its API.
// One device, one context: every API call takes the runtime lock, so a launch (which runs to
// completion inside the call) never overlaps an allocation change and the engine may call
// DeviceMemory::translate without locking.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "device_memory.h"
#include "device_model.h"
#include "engine/engine.h"
#include "launch_core.h"
#include "ptx_info.h"

namespace simrt {

struct ModuleRecord;

struct KernelRecord {
  const void* host_fun = nullptr;   // the host stub nvcc registered
  std::string name;                 // mangled, as in the PTX
  std::string demangled;
  ModuleRecord* module = nullptr;
  int max_dynamic_shared = -1;      // cudaFuncAttributeMaxDynamicSharedMemorySize; -1: default
  int preferred_carveout = -1;
};

struct VarRecord {
  const void* host_var = nullptr;   // the host shadow nvcc registered (what cudaMemcpyToSymbol gets)
  std::string name;                 // as in the PTX
  uint64_t size = 0;
  bool constant = false;
  ModuleRecord* module = nullptr;
};

struct ModuleRecord {
  const void* wrapper = nullptr;
  uint32_t index = 0;               // registration order (the op log names modules by it)
  bool loaded = false;              // parse attempted
  std::string error;                // why it cannot be used ("" when fine)
  std::string ptx;
  std::unique_ptr<sim::Module> module;
  PtxInfo info;
  std::vector<std::unique_ptr<KernelRecord>> kernels;
  std::vector<std::unique_ptr<VarRecord>> vars;
  std::unordered_map<std::string, sim::Symbol> symbols;
};

struct Stream {
  unsigned flags = 0;
  int priority = 0;
};

struct Event {
  unsigned flags = 0;
  bool recorded = false;
  double seconds = 0;               // host steady-clock time at record
};

class Runtime {
 public:
  std::recursive_mutex mu;
  DeviceMemoryImpl memory;
  const DeviceModel& device;
  LaunchSettings settings;          // DRILLS_SIM_THREADS, _WATCHDOG, _SAMPLE_BLOCKS, _LATENCY

  std::vector<std::unique_ptr<ModuleRecord>> modules;
  std::unordered_map<const void*, KernelRecord*> kernels;   // by host stub
  std::unordered_map<const void*, VarRecord*> vars;         // by host shadow
  std::set<Stream*> streams;
  std::set<Event*> events;
  cudaError_t sticky = cudaSuccess;
  uint64_t malloc_count = 0;
  int current_device = 0;
  unsigned device_flags = 0;

  Runtime();
};

Runtime& rt();

// Parses the module on first need; false (with record.error set and reported) when it cannot.
bool ensure_loaded(ModuleRecord& m);
KernelRecord* kernel_for(const void* host_fun);
// Device address of a registered __device__/__constant__ variable; 0 when unknown.
VarRecord* var_for(const void* host_var);
uint64_t var_address(VarRecord& v);

// Last-error bookkeeping, as CUDA does it: every failing call records its error for
// cudaGetLastError; a sticky error (a kernel fault) is returned by every later call.
cudaError_t fail(cudaError_t e);
cudaError_t sticky_error();
double now_seconds();

// Stream handles: 0, cudaStreamLegacy, cudaStreamPerThread, or one cudaStreamCreate returned.
bool valid_stream(cudaStream_t s);

cudaError_t launch(KernelRecord* k, dim3 grid, dim3 block, void** args, size_t shared,
                   cudaStream_t stream);

// Prints "drills-sim: unsupported CUDA runtime call NAME", reports it and exits with code 3.
[[noreturn]] void unsupported_call(const char* name);

}  // namespace simrt

// Entering an API call: take the runtime lock, and fail with the sticky error when there is one.
#define SIMRT_ENTER()                                   \
  std::lock_guard<std::recursive_mutex> lock_(simrt::rt().mu); \
  if (cudaError_t sticky_ = simrt::sticky_error()) return sticky_
#define SIMRT_LOCK() std::lock_guard<std::recursive_mutex> lock_(simrt::rt().mu)
