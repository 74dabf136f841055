// One kernel launch from the program: find the kernel, log it, and hand it to run_launch
// (launch_core.cpp: the driver's checks, the engine run, the report), which the replay shares.
#include <cstdio>

#include "launch_core.h"
#include "oplog.h"
#include "report.h"
#include "runtime.h"

namespace simrt {

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

  LaunchKernel target;
  target.module = &module;
  target.name = k->name;
  target.demangled = k->demangled;
  auto found = k->module->info.kernels.find(k->name);
  if (found != k->module->info.kernels.end()) target.info = found->second;
  target.max_dynamic_shared = k->max_dynamic_shared;

  if (oplog::on()) {
    oplog::host_visible();
    oplog::launch(k->module->index, k->name, grid, block, shared, module.param_sizes(k->name),
                  args);
  }
  if (oplog::record_only()) {
    // The judge replays the log; the driver's answer is all this process needs. No launch record:
    // nothing ran (a refusal is recorded as always).
    const cudaError_t refused = check_launch(target, grid, block, shared, r.device);
    return refused == cudaSuccess ? cudaSuccess : fail(refused);
  }
  const LaunchResult result =
      run_launch(target, grid, block, args, shared, r.settings, r.device, r.memory);
  if (oplog::on()) oplog::kernel_ran();
  if (result.fault != cudaSuccess) r.sticky = result.fault;
  // Like a GPU, a launch that ran returns cudaSuccess; a fault surfaces in the calls that follow.
  return result.returned == cudaSuccess ? cudaSuccess : fail(result.returned);
}

}  // namespace simrt
