// nvcc's registration and launch entry points (CUDA 13 ABI), and the module table behind them.
#include <cxxabi.h>
#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include "fatbin.h"
#include "launch_core.h"
#include "oplog.h"
#include "report.h"
#include "runtime.h"

namespace simrt {

namespace {

thread_local cudaError_t t_last_error = cudaSuccess;

struct CallConfig {
  dim3 grid, block;
  size_t shared = 0;
  cudaStream_t stream = nullptr;
};
thread_local std::vector<CallConfig> t_configs;

}  // namespace

Runtime::Runtime() : device(device_model()), settings(launch_settings_from_env()) {
  oplog::open_from_env();
}

Runtime& rt() {
  // Never destroyed: nvcc's atexit hooks and late API calls may run after static destructors.
  static Runtime* r = new Runtime;
  return *r;
}

cudaError_t fail(cudaError_t e) {
  if (e != cudaSuccess) t_last_error = e;
  return e;
}

cudaError_t sticky_error() {
  if (rt().sticky != cudaSuccess) t_last_error = rt().sticky;
  return rt().sticky;
}

double now_seconds() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

bool ensure_loaded(ModuleRecord& m) {
  if (m.loaded) return m.error.empty();
  m.loaded = true;
  PtxImage image = extract_ptx(m.wrapper);
  if (!image.error.empty()) {
    m.error = image.error;
  } else {
    m.ptx = std::move(image.text);
    m.info = scan_ptx(m.ptx);
    try {
      m.module = sim::Module::parse(m.ptx);
      // The replay finds this module in the library file by its PTX; its variables' ALLOC
      // records follow.
      if (oplog::on()) oplog::module(m.index, m.ptx);
      m.module->load_globals(rt().memory);
      for (const sim::Symbol& s : m.module->symbols()) m.symbols[s.name] = s;
    } catch (const std::exception& e) {
      m.error = e.what();
      m.module.reset();
    }
  }
  if (!m.error.empty()) {
    fprintf(stderr, "drills-sim: cannot load the device code: %s\n", m.error.c_str());
    report_unsupported(m.error);
  }
  return m.error.empty();
}

KernelRecord* kernel_for(const void* host_fun) {
  auto it = rt().kernels.find(host_fun);
  return it == rt().kernels.end() ? nullptr : it->second;
}

VarRecord* var_for(const void* host_var) {
  auto it = rt().vars.find(host_var);
  return it == rt().vars.end() ? nullptr : it->second;
}

uint64_t var_address(VarRecord& v) {
  if (!ensure_loaded(*v.module)) return 0;
  auto it = v.module->symbols.find(v.name);
  return it == v.module->symbols.end() ? 0 : it->second.address;
}

[[noreturn]] void unsupported_call(const char* name) {
  fprintf(stderr, "drills-sim: unsupported CUDA runtime call %s\n", name);
  fflush(stderr);
  report_unsupported(name);
  fflush(stdout);
  _exit(3);
}

}  // namespace simrt

using simrt::rt;

extern "C" {

void** CUDARTAPI __cudaRegisterFatBinary(void* fat_cubin) {
  SIMRT_LOCK();
  auto m = std::make_unique<simrt::ModuleRecord>();
  m->wrapper = fat_cubin;
  m->index = static_cast<uint32_t>(rt().modules.size());
  void** handle = reinterpret_cast<void**>(m.get());
  rt().modules.push_back(std::move(m));
  return handle;
}

void CUDARTAPI __cudaRegisterFatBinaryEnd(void** /*handle*/) {}

// Modules stay loaded until the process ends: atexit order puts this before late API calls.
void CUDARTAPI __cudaUnregisterFatBinary(void** /*handle*/) {}

// Only programs with __managed__ variables call it (through __nv_init_managed_rt), but every
// nvcc object references it.
char CUDARTAPI __cudaInitModule(void** /*handle*/) { return 1; }

void CUDARTAPI __cudaRegisterFunction(void** handle, const char* host_fun, char* /*device_fun*/,
                                      const char* device_name, int /*thread_limit*/,
                                      uint3* /*tid*/, uint3* /*bid*/, dim3* /*block*/,
                                      dim3* /*grid*/, int* /*warp_size*/) {
  SIMRT_LOCK();
  auto* m = reinterpret_cast<simrt::ModuleRecord*>(handle);
  auto k = std::make_unique<simrt::KernelRecord>();
  k->host_fun = host_fun;
  k->name = device_name;
  k->demangled = simrt::demangle(device_name);
  k->module = m;
  rt().kernels[host_fun] = k.get();
  m->kernels.push_back(std::move(k));
}

void CUDARTAPI __cudaRegisterVar(void** handle, char* host_var, char* /*device_address*/,
                                 const char* device_name, int /*ext*/, size_t size, int constant,
                                 int /*global*/) {
  SIMRT_LOCK();
  auto* m = reinterpret_cast<simrt::ModuleRecord*>(handle);
  auto v = std::make_unique<simrt::VarRecord>();
  v->host_var = host_var;
  v->name = device_name;
  v->size = size;
  v->constant = constant != 0;
  v->module = m;
  rt().vars[host_var] = v.get();
  m->vars.push_back(std::move(v));
}

void CUDARTAPI __cudaRegisterManagedVar(void**, void**, char*, const char*, int, size_t, int,
                                        int) {
  simrt::unsupported_call("__cudaRegisterManagedVar (__managed__ variables)");
}

void CUDARTAPI __cudaRegisterTexture(void**, const struct textureReference*, const void**,
                                     const char*, int, int, int) {
  simrt::unsupported_call("__cudaRegisterTexture (texture references)");
}

void CUDARTAPI __cudaRegisterSurface(void**, const struct surfaceReference*, const void**,
                                     const char*, int, int) {
  simrt::unsupported_call("__cudaRegisterSurface (surface references)");
}

unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared,
                                               struct CUstream_st* stream) {
  simrt::t_configs.push_back({grid, block, shared, stream});
  return 0;
}

cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared,
                                                 void* stream) {
  if (simrt::t_configs.empty()) return simrt::fail(cudaErrorMissingConfiguration);
  simrt::CallConfig c = simrt::t_configs.back();
  simrt::t_configs.pop_back();
  *grid = c.grid;
  *block = c.block;
  *shared = c.shared;
  *static_cast<cudaStream_t*>(stream) = c.stream;
  return cudaSuccess;
}

cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t* kernel, const void* host_fun) {
  SIMRT_LOCK();
  simrt::KernelRecord* k = simrt::kernel_for(host_fun);
  *kernel = reinterpret_cast<cudaKernel_t>(k);
  return k ? cudaSuccess : simrt::fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                         size_t shared, cudaStream_t stream) {
  return simrt::launch(reinterpret_cast<simrt::KernelRecord*>(kernel), grid, block, args, shared,
                       stream);
}

cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block,
                                              void** args, size_t shared, cudaStream_t stream) {
  return simrt::launch(reinterpret_cast<simrt::KernelRecord*>(kernel), grid, block, args, shared,
                       stream);
}

cudaError_t CUDARTAPI cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args,
                                       size_t shared, cudaStream_t stream) {
  simrt::KernelRecord* k;
  {
    SIMRT_LOCK();
    k = simrt::kernel_for(func);
  }
  if (!k) return simrt::fail(cudaErrorInvalidDeviceFunction);
  return simrt::launch(k, grid, block, args, shared, stream);
}

cudaError_t CUDARTAPI cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                            size_t shared, cudaStream_t stream) {
  return cudaLaunchKernel(func, grid, block, args, shared, stream);
}

cudaError_t CUDARTAPI cudaGetLastError(void) {
  SIMRT_LOCK();
  if (rt().sticky != cudaSuccess) return rt().sticky;
  cudaError_t e = simrt::t_last_error;
  simrt::t_last_error = cudaSuccess;
  return e;
}

cudaError_t CUDARTAPI cudaPeekAtLastError(void) {
  SIMRT_LOCK();
  if (rt().sticky != cudaSuccess) return rt().sticky;
  return simrt::t_last_error;
}

}  // extern "C"

// The judge's marks in the op log ("inputs are ready", "the entry point returned"): drills_sim_replay
// applies its own inputs at one and stops at another. A no-op without DRILLS_SIM_OPLOG.
extern "C" __attribute__((visibility("default"))) void drills_sim_mark(const char* text) {
  SIMRT_LOCK();
  if (simrt::oplog::on()) simrt::oplog::mark(text);
}
