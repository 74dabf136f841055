// One kernel launch as a driver and a GPU would do it: the driver's checks, the engine run, the
// report record and the error it leaves. Shared by the runtime (launch.cpp, inside the program)
// and drills_sim_replay (a separate process that re-runs a program's op log), so both record a
// launch alike.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "device_model.h"
#include "engine/engine.h"
#include "ptx_info.h"

namespace simrt {

// The environment knobs of a launch: DRILLS_SIM_THREADS, DRILLS_SIM_WATCHDOG,
// DRILLS_SIM_SAMPLE_BLOCKS, DRILLS_SIM_LATENCY.
struct LaunchSettings {
  int host_threads = 0;
  double watchdog_seconds = 60;
  uint64_t sample_blocks = 0;
  sim::Latencies latency;
};
LaunchSettings launch_settings_from_env();

std::string demangle(const std::string& mangled);

// The kernel to launch, as its module and the PTX scan know it.
struct LaunchKernel {
  sim::Module* module = nullptr;
  std::string name;                 // mangled
  std::string demangled;
  KernelInfo info;                  // static shared memory, launch bounds
  int max_dynamic_shared = -1;      // cudaFuncAttributeMaxDynamicSharedMemorySize; -1: default
};

struct LaunchResult {
  // What the launch call returns: cudaSuccess, or the error of a launch the driver refused
  // (bad configuration, PTX the engine cannot run). A refused launch did not run.
  cudaError_t returned = cudaSuccess;
  // The sticky error a fault in the kernel leaves (cudaSuccess when it ran clean).
  cudaError_t fault = cudaSuccess;
};

// The driver's checks alone: cudaSuccess, or the error of a refused launch, which is reported
// (report_launch, a line on stderr) as run_launch reports it.
cudaError_t check_launch(const LaunchKernel& k, dim3 grid, dim3 block, size_t shared,
                         const DeviceModel& device);

// Checks, runs and reports one launch (report_launch; a line on stderr for a refusal or a fault).
LaunchResult run_launch(const LaunchKernel& k, dim3 grid, dim3 block, void** args, size_t shared,
                        const LaunchSettings& settings, const DeviceModel& device,
                        sim::DeviceMemory& memory);

// cudaGetErrorName for the errors run_launch gives (the replay has no runtime library).
const char* launch_error_name(cudaError_t e);

constexpr int kAssumedRegistersPerThread = 32;   // PTX has no register allocation to read
// Blocks of the kernel one SM holds at once (cudaOccupancyMaxActiveBlocksPerMultiprocessor's
// answer); run_launch lets SMs x this many blocks wait for each other (LaunchParams::resident_blocks).
int blocks_per_sm(const DeviceModel& d, const KernelInfo& info, int block_size, size_t dynamic_shared);

}  // namespace simrt
