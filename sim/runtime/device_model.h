// The GPU the simulator pretends to be: an H200 unless DRILLS_SIM_DEVICE names another model.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace simrt {

struct DeviceModel {
  const char* key;                 // what DRILLS_SIM_DEVICE accepts (case-insensitive)
  const char* name;                // cudaDeviceProp::name
  int major, minor;
  int sm_count;
  size_t global_mem;
  size_t shared_per_block;         // without opt-in
  size_t shared_per_block_optin;
  size_t shared_per_sm;
  size_t reserved_shared_per_block;
  int regs_per_sm;
  int max_threads_per_sm;
  int max_blocks_per_sm;
  int l2_bytes;
  int persisting_l2_max;
  int bus_width_bits;
  int clock_khz, memory_clock_khz;
  int async_engines;
  int cluster_launch;
};

// The selected model; exits with code 3 when DRILLS_SIM_DEVICE names an unknown one.
const DeviceModel& device_model();
std::string known_device_models();

void fill_properties(const DeviceModel& m, cudaDeviceProp* p);
// false for an attribute the simulator does not know (cudaErrorInvalidValue).
bool device_attribute(const DeviceModel& m, cudaDeviceAttr attr, int* value);

}  // namespace simrt
