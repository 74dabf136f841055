#include "device_model.h"

#include <strings.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace simrt {

namespace {

constexpr size_t KiB = 1024, MiB = 1024 * KiB;

// Figures as cudaGetDeviceProperties reports them on the real boards (SXM/PCIe as named).
const DeviceModel kModels[] = {
    {"H200", "NVIDIA H200 (drills simulator)", 9, 0, 132, 143771 * MiB, 48 * KiB, 227 * KiB,
     228 * KiB, 1 * KiB, 65536, 2048, 32, 50 * MiB, 30 * MiB, 6144, 1980000, 3201000, 5, 1},
    {"H100", "NVIDIA H100 80GB HBM3 (drills simulator)", 9, 0, 132, 81079 * MiB, 48 * KiB,
     227 * KiB, 228 * KiB, 1 * KiB, 65536, 2048, 32, 50 * MiB, 30 * MiB, 5120, 1980000, 2619000,
     5, 1},
    {"A100", "NVIDIA A100-SXM4-80GB (drills simulator)", 8, 0, 108, 81038 * MiB, 48 * KiB,
     163 * KiB, 164 * KiB, 1 * KiB, 65536, 2048, 32, 40 * MiB, 30 * MiB, 5120, 1410000, 1593000,
     3, 0},
    {"T4", "Tesla T4 (drills simulator)", 7, 5, 40, 14931 * MiB, 48 * KiB, 64 * KiB, 64 * KiB, 0,
     65536, 1024, 16, 4 * MiB, 0, 256, 1590000, 5001000, 3, 0},
};

}  // namespace

std::string known_device_models() {
  std::string s;
  for (const auto& m : kModels) s += std::string(s.empty() ? "" : ", ") + m.key;
  return s;
}

const DeviceModel& device_model() {
  static const DeviceModel* chosen = [] {
    const char* want = getenv("DRILLS_SIM_DEVICE");
    if (!want || !*want) return &kModels[0];
    for (const auto& m : kModels)
      if (strcasecmp(m.key, want) == 0) return &m;
    fprintf(stderr, "drills-sim: unknown DRILLS_SIM_DEVICE=%s (known: %s)\n", want,
            known_device_models().c_str());
    exit(3);
  }();
  return *chosen;
}

void fill_properties(const DeviceModel& m, cudaDeviceProp* p) {
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "%s", m.name);
  memcpy(p->uuid.bytes, "drills-simulator", 16);
  p->totalGlobalMem = m.global_mem;
  p->sharedMemPerBlock = m.shared_per_block;
  p->regsPerBlock = 65536;
  p->warpSize = 32;
  p->memPitch = 2147483647;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = 1024;
  p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 2147483647;
  p->maxGridSize[1] = 65535;
  p->maxGridSize[2] = 65535;
  p->totalConstMem = 65536;
  p->major = m.major;
  p->minor = m.minor;
  p->textureAlignment = 512;
  p->texturePitchAlignment = 32;
  p->multiProcessorCount = m.sm_count;
  p->canMapHostMemory = 1;
  p->surfaceAlignment = 512;
  p->concurrentKernels = 1;
  p->ECCEnabled = 1;
  p->asyncEngineCount = m.async_engines;
  p->unifiedAddressing = 1;
  p->memoryBusWidth = m.bus_width_bits;
  p->l2CacheSize = m.l2_bytes;
  p->persistingL2CacheMaxSize = m.persisting_l2_max;
  p->maxThreadsPerMultiProcessor = m.max_threads_per_sm;
  p->streamPrioritiesSupported = 1;
  p->globalL1CacheSupported = 1;
  p->localL1CacheSupported = 1;
  p->sharedMemPerMultiprocessor = m.shared_per_sm;
  p->regsPerMultiprocessor = m.regs_per_sm;
  p->managedMemory = 1;
  p->concurrentManagedAccess = 1;
  p->computePreemptionSupported = 1;
  p->cooperativeLaunch = 1;
  p->sharedMemPerBlockOptin = m.shared_per_block_optin;
  p->maxBlocksPerMultiProcessor = m.max_blocks_per_sm;
  p->accessPolicyMaxWindowSize = m.persisting_l2_max ? 134213632 : 0;
  p->reservedSharedMemPerBlock = m.reserved_shared_per_block;
  p->hostRegisterSupported = 1;
  p->memoryPoolsSupported = 1;
  p->clusterLaunch = m.cluster_launch;
  p->deviceNumaId = -1;
  p->hostNumaId = -1;
}

bool device_attribute(const DeviceModel& m, cudaDeviceAttr attr, int* v) {
  cudaDeviceProp p;
  fill_properties(m, &p);
  switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *v = p.maxThreadsPerBlock; return true;
    case cudaDevAttrMaxBlockDimX: *v = p.maxThreadsDim[0]; return true;
    case cudaDevAttrMaxBlockDimY: *v = p.maxThreadsDim[1]; return true;
    case cudaDevAttrMaxBlockDimZ: *v = p.maxThreadsDim[2]; return true;
    case cudaDevAttrMaxGridDimX: *v = p.maxGridSize[0]; return true;
    case cudaDevAttrMaxGridDimY: *v = p.maxGridSize[1]; return true;
    case cudaDevAttrMaxGridDimZ: *v = p.maxGridSize[2]; return true;
    case cudaDevAttrMaxSharedMemoryPerBlock: *v = static_cast<int>(p.sharedMemPerBlock); return true;
    case cudaDevAttrTotalConstantMemory: *v = static_cast<int>(p.totalConstMem); return true;
    case cudaDevAttrWarpSize: *v = 32; return true;
    case cudaDevAttrMaxPitch: *v = static_cast<int>(p.memPitch); return true;
    case cudaDevAttrMaxRegistersPerBlock: *v = p.regsPerBlock; return true;
    case cudaDevAttrClockRate: *v = m.clock_khz; return true;
    case cudaDevAttrTextureAlignment: *v = static_cast<int>(p.textureAlignment); return true;
    case cudaDevAttrGpuOverlap: *v = 1; return true;
    case cudaDevAttrMultiProcessorCount: *v = m.sm_count; return true;
    case cudaDevAttrKernelExecTimeout: *v = 0; return true;
    case cudaDevAttrIntegrated: *v = 0; return true;
    case cudaDevAttrCanMapHostMemory: *v = 1; return true;
    case cudaDevAttrComputeMode: *v = 0; return true;
    case cudaDevAttrSurfaceAlignment: *v = static_cast<int>(p.surfaceAlignment); return true;
    case cudaDevAttrConcurrentKernels: *v = 1; return true;
    case cudaDevAttrEccEnabled: *v = p.ECCEnabled; return true;
    case cudaDevAttrPciBusId: case cudaDevAttrPciDeviceId: case cudaDevAttrPciDomainId:
    case cudaDevAttrTccDriver: *v = 0; return true;
    case cudaDevAttrMemoryClockRate: *v = m.memory_clock_khz; return true;
    case cudaDevAttrGlobalMemoryBusWidth: *v = m.bus_width_bits; return true;
    case cudaDevAttrL2CacheSize: *v = m.l2_bytes; return true;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = m.max_threads_per_sm; return true;
    case cudaDevAttrAsyncEngineCount: *v = m.async_engines; return true;
    case cudaDevAttrUnifiedAddressing: *v = 1; return true;
    case cudaDevAttrTexturePitchAlignment: *v = static_cast<int>(p.texturePitchAlignment); return true;
    case cudaDevAttrComputeCapabilityMajor: *v = m.major; return true;
    case cudaDevAttrComputeCapabilityMinor: *v = m.minor; return true;
    case cudaDevAttrStreamPrioritiesSupported: *v = 1; return true;
    case cudaDevAttrGlobalL1CacheSupported: *v = 1; return true;
    case cudaDevAttrLocalL1CacheSupported: *v = 1; return true;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *v = static_cast<int>(m.shared_per_sm); return true;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *v = m.regs_per_sm; return true;
    case cudaDevAttrManagedMemory: *v = 1; return true;
    case cudaDevAttrIsMultiGpuBoard: *v = 0; return true;
    case cudaDevAttrMultiGpuBoardGroupID: *v = 0; return true;
    case cudaDevAttrHostNativeAtomicSupported: *v = 0; return true;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *v = m.major == 7 && m.minor == 5 ? 32 : 2; return true;
    case cudaDevAttrPageableMemoryAccess: *v = 0; return true;
    case cudaDevAttrConcurrentManagedAccess: *v = 1; return true;
    case cudaDevAttrComputePreemptionSupported: *v = 1; return true;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: *v = 1; return true;
    case cudaDevAttrCooperativeLaunch: *v = 1; return true;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *v = static_cast<int>(m.shared_per_block_optin); return true;
    case cudaDevAttrCanFlushRemoteWrites: *v = 0; return true;
    case cudaDevAttrHostRegisterSupported: *v = 1; return true;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables: *v = 0; return true;
    case cudaDevAttrDirectManagedMemAccessFromHost: *v = 0; return true;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *v = m.max_blocks_per_sm; return true;
    case cudaDevAttrMaxPersistingL2CacheSize: *v = m.persisting_l2_max; return true;
    case cudaDevAttrMaxAccessPolicyWindowSize: *v = p.accessPolicyMaxWindowSize; return true;
    case cudaDevAttrReservedSharedMemoryPerBlock: *v = static_cast<int>(m.reserved_shared_per_block); return true;
    case cudaDevAttrMemoryPoolsSupported: *v = 1; return true;
    case cudaDevAttrClusterLaunch: *v = m.cluster_launch; return true;
    case cudaDevAttrNumaConfig: *v = 0; return true;
    case cudaDevAttrNumaId: case cudaDevAttrHostNumaId: *v = -1; return true;
    case cudaDevAttrMpsEnabled: *v = 0; return true;
    default: return false;
  }
}

}  // namespace simrt
