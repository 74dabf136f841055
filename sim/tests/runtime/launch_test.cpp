// Real launches through the engine: results, explicit cudaLaunchKernel, streams, and the sticky
// error a faulting kernel leaves behind.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

#include "test_kernels.h"

namespace {

#define ASSERT_CUDA(call) ASSERT_EQ(cudaSuccess, (call))

class Launch : public ::testing::Test {
 protected:
  void SetUp() override {
#ifdef DRILLS_SIM_ENGINE_STUB
    GTEST_SKIP() << "needs the engine: this build links a stub in place of sim/engine";
#endif
    ASSERT_CUDA(cudaDeviceReset());
  }
};

TEST_F(Launch, VectorAdd) {
  const int n = 1000;
  std::vector<float> a(n), b(n), y(n, -1.0f);
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i);
    b[i] = 2.0f * i;
  }
  const float coef[4] = {0.5f, 0, 0, 0};
  ASSERT_CUDA(cudaMemcpyToSymbol(symbol_coef(), coef, sizeof coef));
  int zero = 0;
  ASSERT_CUDA(cudaMemcpyToSymbol(symbol_counter(), &zero, sizeof zero));
  float *da, *db, *dy;
  ASSERT_CUDA(cudaMalloc(&da, n * sizeof(float)));
  ASSERT_CUDA(cudaMalloc(&db, n * sizeof(float)));
  ASSERT_CUDA(cudaMalloc(&dy, n * sizeof(float)));
  ASSERT_CUDA(cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(db, b.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(launch_add(da, db, dy, n));
  ASSERT_CUDA(cudaDeviceSynchronize());
  ASSERT_CUDA(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) ASSERT_EQ(a[i] + b[i] * 0.5f, y[i]) << i;
  int counter = 0;
  ASSERT_CUDA(cudaMemcpyFromSymbol(&counter, symbol_counter(), sizeof counter));
  EXPECT_EQ(n, counter);
}

TEST_F(Launch, ExplicitLaunchKernelAndStream) {
  const int n = 300;
  float* d;
  ASSERT_CUDA(cudaMalloc(&d, n * sizeof(float)));
  float value = 3.25f;
  int count = n;
  void* args[] = {&d, &value, &count};
  cudaStream_t s;
  ASSERT_CUDA(cudaStreamCreate(&s));
  ASSERT_CUDA(cudaLaunchKernel(kernel_fill_float(), dim3((n + 127) / 128), dim3(128), args, 0, s));
  ASSERT_CUDA(cudaStreamSynchronize(s));
  std::vector<float> h(n);
  ASSERT_CUDA(cudaMemcpy(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (float v : h) ASSERT_EQ(3.25f, v);
  ASSERT_CUDA(cudaStreamDestroy(s));
}

TEST_F(Launch, DynamicSharedMemoryWithOptIn) {
  const int n = 64;
  std::vector<float> h(n), back(n);
  for (int i = 0; i < n; ++i) h[i] = static_cast<float>(i);
  float* d;
  ASSERT_CUDA(cudaMalloc(&d, n * sizeof(float)));
  ASSERT_CUDA(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaFuncSetAttribute(kernel_dynamic_shared(),
                                   cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
  ASSERT_CUDA(launch_dynamic(d, n, 100 * 1024));
  ASSERT_CUDA(cudaMemcpy(back.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) EXPECT_EQ(h[n - 1 - i], back[i]);
}

void check_transpose(cudaError_t (*launch)(const float*, float*, int, int), int m, int n) {
  std::vector<float> x(size_t(m) * n), y(size_t(m) * n, -7.0f);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 9973) * 0.25f;
  float *dx, *dy;
  ASSERT_CUDA(cudaMalloc(&dx, x.size() * sizeof(float)));
  ASSERT_CUDA(cudaMalloc(&dy, y.size() * sizeof(float)));
  ASSERT_CUDA(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(dy, y.data(), y.size() * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(launch(dx, dy, m, n));
  ASSERT_CUDA(cudaDeviceSynchronize());
  ASSERT_CUDA(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int r = 0; r < m; ++r)
    for (int c = 0; c < n; ++c)
      ASSERT_EQ(x[size_t(r) * n + c], y[size_t(c) * m + r]) << "[" << c << ", " << r << "]";
  ASSERT_CUDA(cudaFree(dx));
  ASSERT_CUDA(cudaFree(dy));
}

TEST_F(Launch, TransposeNaive) { check_transpose(launch_transpose_naive, 67, 131); }
TEST_F(Launch, TransposeTiled) { check_transpose(launch_transpose_tiled, 100, 150); }

TEST_F(Launch, FaultIsStickyUntilReset) {
  float* d;
  ASSERT_CUDA(cudaMalloc(&d, 64 * sizeof(float)));
  // The kernel has finished by the time cudaGetLastError runs (on a GPU it may still be running,
  // and then cudaDeviceSynchronize is where the fault shows first).
  EXPECT_EQ(cudaErrorIllegalAddress, launch_out_of_bounds(d, 64));
  EXPECT_EQ(cudaErrorIllegalAddress, cudaDeviceSynchronize());
  EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());
  EXPECT_EQ(cudaErrorIllegalAddress, cudaGetLastError());   // sticky: not cleared
  void* p;
  EXPECT_EQ(cudaErrorIllegalAddress, cudaMalloc(&p, 16));
  EXPECT_EQ(cudaErrorIllegalAddress, launch_add(d, d, d, 64));
  ASSERT_CUDA(cudaDeviceReset());
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  ASSERT_CUDA(cudaMalloc(&p, 16));
}

}  // namespace

#ifdef DRILLS_SIM_ENGINE_STUB
// With the stub engine every launch fails as "unsupported": enough to check the runtime's side of
// a failed launch (sticky error, reset) without the real engine.
TEST(StubEngine, FailedLaunchIsStickyUntilReset) {
  float* d;
  ASSERT_CUDA(cudaMalloc(&d, 64 * sizeof(float)));
  testing::internal::CaptureStderr();
  float value = 1.0f;
  int n = 64;
  void* args[] = {&d, &value, &n};
  // Like a GPU, the launch itself succeeds; the fault shows in the calls after it.
  EXPECT_EQ(cudaSuccess, cudaLaunchKernel(kernel_fill_float(), dim3(1), dim3(128), args, 0, 0));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string::npos, err.find("drills-sim: kernel void fill<float>(float*, float, int) "
                                        "<<<(1,1,1), (128,1,1)>>> failed: unsupported: stub engine"))
      << err;
  EXPECT_EQ(cudaErrorIllegalInstruction, cudaDeviceSynchronize());
  EXPECT_EQ(cudaErrorIllegalInstruction, cudaGetLastError());
  EXPECT_EQ(cudaErrorIllegalInstruction, cudaGetLastError());
  void* p;
  EXPECT_EQ(cudaErrorIllegalInstruction, cudaMalloc(&p, 16));
  ASSERT_CUDA(cudaDeviceReset());
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  ASSERT_CUDA(cudaMalloc(&p, 16));
}
#endif
