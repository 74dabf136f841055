// Device queries, synchronisation, reset, versions, kernel attributes and occupancy.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "oplog.h"
#include "runtime.h"

using simrt::fail;
using simrt::rt;

namespace simrt {
namespace {

KernelRecord* loaded_kernel(const void* func, cudaError_t* error) {
  KernelRecord* k = kernel_for(func);
  if (!k) {
    *error = fail(cudaErrorInvalidDeviceFunction);
    return nullptr;
  }
  if (!ensure_loaded(*k->module)) {
    *error = fail(cudaErrorInvalidPtx);
    return nullptr;
  }
  *error = cudaSuccess;
  return k;
}

KernelInfo info_of(const KernelRecord& k) {
  auto it = k.module->info.kernels.find(k.name);
  return it == k.module->info.kernels.end() ? KernelInfo{} : it->second;
}

}  // namespace

}  // namespace simrt

extern "C" {

cudaError_t CUDARTAPI cudaGetDeviceCount(int* count) {
  if (!count) return fail(cudaErrorInvalidValue);
  *count = 1;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDevice(int* device) {
  SIMRT_LOCK();
  if (!device) return fail(cudaErrorInvalidValue);
  *device = rt().current_device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaSetDevice(int device) {
  SIMRT_LOCK();
  if (device != 0) return fail(cudaErrorInvalidDevice);
  rt().current_device = device;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaInitDevice(int device, unsigned int /*device_flags*/,
                                     unsigned int /*flags*/) {
  return device == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice);
}

cudaError_t CUDARTAPI cudaSetDeviceFlags(unsigned int flags) {
  SIMRT_LOCK();
  rt().device_flags = flags;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceFlags(unsigned int* flags) {
  SIMRT_LOCK();
  if (!flags) return fail(cudaErrorInvalidValue);
  *flags = rt().device_flags;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
  SIMRT_LOCK();
  if (!prop) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  simrt::fill_properties(rt().device, prop);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  SIMRT_LOCK();
  if (!value) return fail(cudaErrorInvalidValue);
  if (device != 0) return fail(cudaErrorInvalidDevice);
  if (!simrt::device_attribute(rt().device, attr, value)) {
    fprintf(stderr, "drills-sim: cudaDeviceGetAttribute: attribute %d is not simulated\n",
            static_cast<int>(attr));
    return fail(cudaErrorInvalidValue);
  }
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  if (least) *least = 0;
  if (greatest) *greatest = -5;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
  if (!value) return fail(cudaErrorInvalidValue);
  switch (limit) {
    case cudaLimitStackSize: *value = 1024; return cudaSuccess;
    case cudaLimitPrintfFifoSize: *value = 1 << 20; return cudaSuccess;
    case cudaLimitMallocHeapSize: *value = 8 << 20; return cudaSuccess;
    default: return fail(cudaErrorUnsupportedLimit);
  }
}

// Accepted so programs that raise the printf buffer or stack run; the simulator needs neither.
cudaError_t CUDARTAPI cudaDeviceSetLimit(cudaLimit limit, size_t /*value*/) {
  if (limit == cudaLimitStackSize || limit == cudaLimitPrintfFifoSize) return cudaSuccess;
  return fail(cudaErrorUnsupportedLimit);
}

cudaError_t CUDARTAPI cudaDeviceSetCacheConfig(cudaFuncCache /*config*/) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaDeviceGetCacheConfig(cudaFuncCache* config) {
  if (config) *config = cudaFuncCachePreferNone;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFuncSetCacheConfig(const void* func, cudaFuncCache /*config*/) {
  SIMRT_LOCK();
  return simrt::kernel_for(func) ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
}

cudaError_t CUDARTAPI cudaDeviceSynchronize(void) {
  SIMRT_ENTER();
  return cudaSuccess;   // every operation ran to completion when it was enqueued
}

cudaError_t CUDARTAPI cudaDeviceReset(void) {
  SIMRT_LOCK();
  simrt::Runtime& r = rt();
  // Unlike a real GPU, a reset also clears a sticky error, so one faulting test does not fail
  // every test after it in the same process. Module variables keep their memory.
  r.sticky = cudaSuccess;
  if (simrt::oplog::on()) simrt::oplog::reset();
  r.memory.release_all_device();
  for (simrt::Stream* s : r.streams) delete s;
  for (simrt::Event* e : r.events) delete e;
  r.streams.clear();
  r.events.clear();
  for (auto& m : r.modules)
    for (auto& k : m->kernels) {
      k->max_dynamic_shared = -1;
      k->preferred_carveout = -1;
    }
  simrt::fail(cudaSuccess);
  cudaGetLastError();
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaDriverGetVersion(int* version) {
  if (!version) return fail(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaRuntimeGetVersion(int* version) {
  if (!version) return fail(cudaErrorInvalidValue);
  *version = CUDART_VERSION;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
  SIMRT_ENTER();
  if (!attr) return fail(cudaErrorInvalidValue);
  cudaError_t error;
  simrt::KernelRecord* k = simrt::loaded_kernel(func, &error);
  if (!k) return error;
  simrt::KernelInfo info = simrt::info_of(*k);
  const simrt::DeviceModel& d = rt().device;
  memset(attr, 0, sizeof *attr);
  attr->sharedSizeBytes = info.static_shared_bytes;
  attr->localSizeBytes = info.local_bytes;
  attr->maxThreadsPerBlock = info.max_threads ? std::min(info.max_threads, 1024) : 1024;
  attr->numRegs = simrt::kAssumedRegistersPerThread;
  attr->ptxVersion = k->module->info.version;
  attr->binaryVersion = d.major * 10 + d.minor;
  attr->maxDynamicSharedSizeBytes =
      k->max_dynamic_shared >= 0
          ? k->max_dynamic_shared
          : static_cast<int>(d.shared_per_block - std::min<uint64_t>(d.shared_per_block,
                                                                     info.static_shared_bytes));
  attr->preferredShmemCarveout = k->preferred_carveout;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
  SIMRT_ENTER();
  cudaError_t error;
  simrt::KernelRecord* k = simrt::loaded_kernel(func, &error);
  if (!k) return error;
  simrt::KernelInfo info = simrt::info_of(*k);
  switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
      if (value < 0 || info.static_shared_bytes + static_cast<uint64_t>(value) >
                           rt().device.shared_per_block_optin)
        return fail(cudaErrorInvalidValue);
      k->max_dynamic_shared = value;
      if (simrt::oplog::on())
        simrt::oplog::attr(k->module->index, k->name, static_cast<uint32_t>(attr), value);
      return cudaSuccess;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
      if (value < -1 || value > 100) return fail(cudaErrorInvalidValue);
      k->preferred_carveout = value;
      return cudaSuccess;
    default:
      fprintf(stderr, "drills-sim: cudaFuncSetAttribute: attribute %d is not simulated\n",
              static_cast<int>(attr));
      return fail(cudaErrorNotSupported);
  }
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int* num_blocks, const void* func, int block_size, size_t dynamic_shared,
    unsigned int /*flags*/) {
  SIMRT_ENTER();
  if (!num_blocks || block_size <= 0) return fail(cudaErrorInvalidValue);
  cudaError_t error;
  simrt::KernelRecord* k = simrt::loaded_kernel(func, &error);
  if (!k) return error;
  *num_blocks = simrt::blocks_per_sm(rt().device, simrt::info_of(*k), block_size, dynamic_shared);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* num_blocks,
                                                                    const void* func,
                                                                    int block_size,
                                                                    size_t dynamic_shared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(num_blocks, func, block_size,
                                                                dynamic_shared, 0);
}

}  // extern "C"
