// A kernel that never finishes is stopped after DRILLS_SIM_WATCHDOG seconds (CTest sets 1) and
// leaves the error a GPU's watchdog gives.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>

#include "test_kernels.h"

TEST(Watchdog, HangingKernelTimesOut) {
#ifdef DRILLS_SIM_ENGINE_STUB
  GTEST_SKIP() << "needs the engine: this build links a stub in place of sim/engine";
#endif
  int* flag;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&flag, sizeof(int)));
  ASSERT_EQ(cudaSuccess, cudaMemset(flag, 0, sizeof(int)));
  auto start = std::chrono::steady_clock::now();
  testing::internal::CaptureStderr();
  launch_spin(flag);
  std::string err = testing::internal::GetCapturedStderr();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(cudaErrorLaunchTimeout, cudaDeviceSynchronize());
  EXPECT_LT(seconds, 20.0);
  EXPECT_NE(std::string::npos, err.find("drills-sim: kernel spin(int volatile*) <<<(1,1,1), (32,1,1)>>> failed: "))
      << err;
}
