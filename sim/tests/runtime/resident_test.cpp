// Blocks that wait for every other block of the grid (a persistent kernel's grid barrier) finish
// on one host thread whenever the GPU would hold the whole grid at once (SMs x the occupancy the
// runtime reports), and stop at the watchdog, as they hang on the GPU, when it would not.
// CTest runs each test in its own process with DRILLS_SIM_THREADS=1 and a short watchdog.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "test_kernels.h"

namespace {

int resident_blocks(int threads) {
  int per_sm = 0;
  cudaDeviceProp prop;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel_all_arrive(), threads, 0) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, 0) != cudaSuccess)
    return 0;
  return prop.multiProcessorCount * per_sm;
}

// The launch's error, and how many blocks arrived.
cudaError_t run(int blocks, int threads, unsigned* arrived_out, std::vector<unsigned>* seen_out) {
  unsigned *arrived = nullptr, *seen = nullptr;
  if (cudaMalloc(&arrived, sizeof(unsigned)) || cudaMalloc(&seen, sizeof(unsigned) * blocks) ||
      cudaMemset(arrived, 0, sizeof(unsigned)) || cudaMemset(seen, 0xff, sizeof(unsigned) * blocks))
    return cudaErrorUnknown;
  cudaError_t e = launch_all_arrive(arrived, seen, blocks, threads);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    seen_out->resize(size_t(blocks));
    e = cudaMemcpy(arrived_out, arrived, sizeof(unsigned), cudaMemcpyDeviceToHost);
    if (e == cudaSuccess) e = cudaMemcpy(seen_out->data(), seen, sizeof(unsigned) * blocks, cudaMemcpyDeviceToHost);
    cudaFree(arrived);
    cudaFree(seen);
  }
  return e;
}

TEST(Resident, AGridBarrierFinishesWhenTheWholeGridIsResident) {
#ifdef DRILLS_SIM_ENGINE_STUB
  GTEST_SKIP() << "needs the engine: this build links a stub in place of sim/engine";
#endif
  // 1024 threads: 2 blocks per SM (264 on the H200 model); 64 threads: 32 per SM (4224).
  for (int threads : {1024, 64}) {
    const int resident = resident_blocks(threads);
    ASSERT_GE(resident, 132 * 2);
    for (int blocks : {132, 133, resident}) {
      unsigned arrived = 0;
      std::vector<unsigned> seen;
      ASSERT_EQ(cudaSuccess, run(blocks, threads, &arrived, &seen)) << blocks << " blocks of " << threads;
      EXPECT_EQ(unsigned(blocks), arrived);
      for (int b = 0; b < blocks; ++b) ASSERT_EQ(unsigned(blocks), seen[size_t(b)]) << "block " << b;
    }
  }
}

TEST(Resident, OneBlockMoreThanTheGpuHoldsWaitsUntilTheWatchdog) {
#ifdef DRILLS_SIM_ENGINE_STUB
  GTEST_SKIP() << "needs the engine: this build links a stub in place of sim/engine";
#endif
  const int resident = resident_blocks(1024);
  ASSERT_GT(resident, 0);
  unsigned arrived = 0;
  std::vector<unsigned> seen;
  testing::internal::CaptureStderr();
  const cudaError_t e = run(resident + 1, 1024, &arrived, &seen);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(cudaErrorLaunchTimeout, e);
  EXPECT_NE(std::string::npos, err.find("watchdog")) << err;
}

}  // namespace
