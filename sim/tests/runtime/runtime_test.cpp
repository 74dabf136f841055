// The runtime API without running kernels: registration, memory, copies, errors, streams, events,
// device properties, symbols and the launch checks a driver makes before a kernel starts.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "test_kernels.h"

namespace {

#define ASSERT_CUDA(call) ASSERT_EQ(cudaSuccess, (call))

class Runtime : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_CUDA(cudaGetLastError()); }
  void TearDown() override { EXPECT_EQ(cudaSuccess, cudaPeekAtLastError()); }
};

TEST_F(Runtime, RegistersKernelsOfSeveralModules) {
  for (const void* k : {kernel_add(), kernel_fill_float(), kernel_shared_tile(),
                        kernel_dynamic_shared(), kernel_bounded(), kernel_transpose_naive(),
                        kernel_transpose_tiled()}) {
    cudaFuncAttributes a;
    ASSERT_CUDA(cudaFuncGetAttributes(&a, k));
    EXPECT_EQ(90, a.ptxVersion);
  }
}

TEST_F(Runtime, FuncAttributesFromThePtx) {
  cudaFuncAttributes a;
  ASSERT_CUDA(cudaFuncGetAttributes(&a, kernel_shared_tile()));
  EXPECT_EQ(32u * 33u * 4u, a.sharedSizeBytes);
  EXPECT_EQ(1024, a.maxThreadsPerBlock);
  EXPECT_EQ(48 * 1024 - 4224, a.maxDynamicSharedSizeBytes);
  ASSERT_CUDA(cudaFuncGetAttributes(&a, kernel_transpose_tiled()));
  EXPECT_EQ(4224u, a.sharedSizeBytes);
  ASSERT_CUDA(cudaFuncGetAttributes(&a, kernel_dynamic_shared()));
  EXPECT_EQ(0u, a.sharedSizeBytes);
  ASSERT_CUDA(cudaFuncGetAttributes(&a, kernel_bounded()));
  EXPECT_EQ(128, a.maxThreadsPerBlock);
}

TEST_F(Runtime, UnknownFunctionIsInvalidDeviceFunction) {
  cudaFuncAttributes a;
  EXPECT_EQ(cudaErrorInvalidDeviceFunction,
            cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(&strlen)));
  EXPECT_EQ(cudaErrorInvalidDeviceFunction, cudaPeekAtLastError());
  EXPECT_EQ(cudaErrorInvalidDeviceFunction, cudaGetLastError());
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
}

TEST_F(Runtime, DevicePointersAreAlignedAndNotHostMemory) {
  void* a = nullptr;
  void* b = nullptr;
  ASSERT_CUDA(cudaMalloc(&a, 1000));
  ASSERT_CUDA(cudaMalloc(&b, 3));
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(a) % 256);
  EXPECT_EQ(0u, reinterpret_cast<uintptr_t>(b) % 256);
  cudaPointerAttributes attr;
  ASSERT_CUDA(cudaPointerGetAttributes(&attr, a));
  EXPECT_EQ(cudaMemoryTypeDevice, attr.type);
  EXPECT_EQ(a, attr.devicePointer);
  EXPECT_EQ(nullptr, attr.hostPointer);
  int on_stack = 0;
  ASSERT_CUDA(cudaPointerGetAttributes(&attr, &on_stack));
  EXPECT_EQ(cudaMemoryTypeUnregistered, attr.type);
  ASSERT_CUDA(cudaFree(a));
  ASSERT_CUDA(cudaFree(b));
  ASSERT_CUDA(cudaFree(nullptr));
  EXPECT_EQ(cudaErrorInvalidValue, cudaFree(a));   // double free
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
}

TEST_F(Runtime, MallocZeroGivesNull) {
  void* p = reinterpret_cast<void*>(1);
  ASSERT_CUDA(cudaMalloc(&p, 0));
  EXPECT_EQ(nullptr, p);
}

TEST_F(Runtime, MemcpyRoundTripsEveryKind) {
  const int n = 1000;
  std::vector<float> h(n), back(n, -1.0f);
  for (int i = 0; i < n; ++i) h[i] = i * 0.5f;
  float *d1, *d2;
  ASSERT_CUDA(cudaMalloc(&d1, n * sizeof(float)));
  ASSERT_CUDA(cudaMalloc(&d2, n * sizeof(float)));
  ASSERT_CUDA(cudaMemcpy(d1, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy(d2, d1, n * sizeof(float), cudaMemcpyDeviceToDevice));
  ASSERT_CUDA(cudaMemcpy(back.data(), d2, n * sizeof(float), cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, back);

  std::fill(back.begin(), back.end(), -1.0f);
  ASSERT_CUDA(cudaMemcpy(d2, d1 + 10, 10 * sizeof(float), cudaMemcpyDefault));   // D2D, inferred
  ASSERT_CUDA(cudaMemcpy(back.data(), d2, 10 * sizeof(float), cudaMemcpyDefault));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(h[10 + i], back[i]);

  std::vector<float> copy(n);
  ASSERT_CUDA(cudaMemcpy(copy.data(), h.data(), n * sizeof(float), cudaMemcpyHostToHost));
  EXPECT_EQ(h, copy);

  cudaStream_t s;
  ASSERT_CUDA(cudaStreamCreate(&s));
  ASSERT_CUDA(cudaMemcpyAsync(d1, h.data() + 1, 4 * sizeof(float), cudaMemcpyHostToDevice, s));
  ASSERT_CUDA(cudaMemcpyAsync(back.data(), d1, 4 * sizeof(float), cudaMemcpyDeviceToHost, s));
  ASSERT_CUDA(cudaStreamSynchronize(s));
  for (int i = 0; i < 4; ++i) EXPECT_EQ(h[1 + i], back[i]);
  ASSERT_CUDA(cudaStreamDestroy(s));
  ASSERT_CUDA(cudaFree(d1));
  ASSERT_CUDA(cudaFree(d2));
}

TEST_F(Runtime, MemsetSetsBytes) {
  unsigned char* d;
  ASSERT_CUDA(cudaMalloc(&d, 256));
  ASSERT_CUDA(cudaMemset(d, 0xab, 256));
  ASSERT_CUDA(cudaMemsetAsync(d + 100, 0x01, 10, 0));
  std::vector<unsigned char> h(256);
  ASSERT_CUDA(cudaMemcpy(h.data(), d, 256, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i) EXPECT_EQ(i >= 100 && i < 110 ? 0x01 : 0xab, h[i]) << i;
  ASSERT_CUDA(cudaFree(d));
}

TEST_F(Runtime, CopiesOutsideAnAllocationAreRefused) {
  float* d;
  ASSERT_CUDA(cudaMalloc(&d, 64));
  std::vector<float> h(32);
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(d, h.data(), 65, cudaMemcpyHostToDevice));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(h.data(), d + 8, 64, cudaMemcpyDeviceToHost));
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemset(d, 0, 100));
  // Kind swapped: the "host" source is a device pointer.
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpy(h.data(), d, 64, cudaMemcpyHostToDevice));
  EXPECT_EQ(cudaErrorInvalidMemcpyDirection,
            cudaMemcpy(h.data(), d, 64, static_cast<cudaMemcpyKind>(7)));
  EXPECT_EQ(cudaErrorInvalidMemcpyDirection, cudaGetLastError());
  ASSERT_CUDA(cudaFree(d));
}

TEST_F(Runtime, PitchedCopies) {
  float* d;
  size_t pitch = 0;
  ASSERT_CUDA(cudaMallocPitch(reinterpret_cast<void**>(&d), &pitch, 10 * sizeof(float), 4));
  EXPECT_GE(pitch, 10 * sizeof(float));
  std::vector<float> h(40), back(40, 0);
  for (int i = 0; i < 40; ++i) h[i] = static_cast<float>(i);
  ASSERT_CUDA(cudaMemcpy2D(d, pitch, h.data(), 10 * sizeof(float), 10 * sizeof(float), 4,
                           cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaMemcpy2D(back.data(), 10 * sizeof(float), d, pitch, 10 * sizeof(float), 4,
                           cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, back);
  ASSERT_CUDA(cudaFree(d));
}

TEST_F(Runtime, PinnedAndManagedMemory) {
  float* h = nullptr;
  ASSERT_CUDA(cudaMallocHost(&h, 64 * sizeof(float)));
  h[0] = 1.0f;   // host memory: the host may touch it
  cudaPointerAttributes attr;
  ASSERT_CUDA(cudaPointerGetAttributes(&attr, h));
  EXPECT_EQ(cudaMemoryTypeHost, attr.type);
  void* mapped = nullptr;
  ASSERT_CUDA(cudaHostGetDevicePointer(&mapped, h, 0));
  EXPECT_EQ(h, mapped);
  ASSERT_CUDA(cudaFreeHost(h));

  void* alloc = nullptr;
  ASSERT_CUDA(cudaHostAlloc(&alloc, 100, cudaHostAllocDefault));
  ASSERT_CUDA(cudaFreeHost(alloc));

  int* m = nullptr;
  ASSERT_CUDA(cudaMallocManaged(&m, 16 * sizeof(int)));
  m[3] = 7;
  ASSERT_CUDA(cudaPointerGetAttributes(&attr, m));
  EXPECT_EQ(cudaMemoryTypeManaged, attr.type);
  ASSERT_CUDA(cudaFree(m));
}

TEST_F(Runtime, MemGetInfoCountsAllocations) {
  size_t free0, total;
  ASSERT_CUDA(cudaMemGetInfo(&free0, &total));
  EXPECT_GT(total, size_t{100} << 30);
  void* d;
  ASSERT_CUDA(cudaMalloc(&d, 1 << 20));
  size_t free1;
  ASSERT_CUDA(cudaMemGetInfo(&free1, &total));
  EXPECT_EQ(free0 - (1 << 20), free1);
  ASSERT_CUDA(cudaFree(d));
  void* huge;
  EXPECT_EQ(cudaErrorMemoryAllocation, cudaMalloc(&huge, total + 1));
  EXPECT_EQ(cudaErrorMemoryAllocation, cudaGetLastError());
}

TEST(Errors, NamesAndStringsAsCudaSpellsThem) {
  EXPECT_STREQ("cudaSuccess", cudaGetErrorName(cudaSuccess));
  EXPECT_STREQ("no error", cudaGetErrorString(cudaSuccess));
  EXPECT_STREQ("cudaErrorInvalidValue", cudaGetErrorName(cudaErrorInvalidValue));
  EXPECT_STREQ("invalid argument", cudaGetErrorString(cudaErrorInvalidValue));
  EXPECT_STREQ("out of memory", cudaGetErrorString(cudaErrorMemoryAllocation));
  EXPECT_STREQ("invalid configuration argument",
               cudaGetErrorString(cudaErrorInvalidConfiguration));
  EXPECT_STREQ("cudaErrorIllegalAddress", cudaGetErrorName(cudaErrorIllegalAddress));
  EXPECT_STREQ("an illegal memory access was encountered",
               cudaGetErrorString(cudaErrorIllegalAddress));
  EXPECT_STREQ("misaligned address", cudaGetErrorString(cudaErrorMisalignedAddress));
  EXPECT_STREQ("the launch timed out and was terminated",
               cudaGetErrorString(cudaErrorLaunchTimeout));
  EXPECT_STREQ("an illegal instruction was encountered",
               cudaGetErrorString(cudaErrorIllegalInstruction));
  EXPECT_STREQ("unspecified launch failure", cudaGetErrorString(cudaErrorLaunchFailure));
  EXPECT_STREQ("invalid device function", cudaGetErrorString(cudaErrorInvalidDeviceFunction));
  EXPECT_STREQ("cudaErrorUnknown", cudaGetErrorName(cudaErrorUnknown));
  EXPECT_STREQ("unrecognized error code", cudaGetErrorName(static_cast<cudaError_t>(12345)));
  EXPECT_STREQ("unrecognized error code", cudaGetErrorString(static_cast<cudaError_t>(12345)));
}

TEST_F(Runtime, StreamsAreInOrderAndAlwaysIdle) {
  cudaStream_t a, b;
  ASSERT_CUDA(cudaStreamCreate(&a));
  ASSERT_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  unsigned flags = 0;
  ASSERT_CUDA(cudaStreamGetFlags(b, &flags));
  EXPECT_EQ(unsigned{cudaStreamNonBlocking}, flags);
  EXPECT_EQ(cudaSuccess, cudaStreamQuery(a));
  int called = 0;
  ASSERT_CUDA(cudaLaunchHostFunc(a, [](void* p) { ++*static_cast<int*>(p); }, &called));
  EXPECT_EQ(1, called);
  ASSERT_CUDA(cudaStreamSynchronize(a));
  ASSERT_CUDA(cudaStreamSynchronize(0));
  ASSERT_CUDA(cudaStreamSynchronize(cudaStreamPerThread));
  ASSERT_CUDA(cudaStreamDestroy(a));
  ASSERT_CUDA(cudaStreamDestroy(b));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaStreamDestroy(a));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaGetLastError());
  ASSERT_CUDA(cudaDeviceSynchronize());
}

TEST_F(Runtime, EventsMeasureHostTime) {
  cudaEvent_t start, stop, untimed;
  ASSERT_CUDA(cudaEventCreate(&start));
  ASSERT_CUDA(cudaEventCreate(&stop));
  ASSERT_CUDA(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));
  float ms = -1;
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, start, stop));  // unrecorded
  ASSERT_CUDA(cudaGetLastError() == cudaErrorInvalidResourceHandle ? cudaSuccess : cudaErrorUnknown);
  ASSERT_CUDA(cudaEventRecord(start, 0));
  std::vector<float> h(1 << 16, 1.0f);
  void* d;
  ASSERT_CUDA(cudaMalloc(&d, h.size() * sizeof(float)));
  ASSERT_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(float), cudaMemcpyHostToDevice));
  ASSERT_CUDA(cudaEventRecord(stop, 0));
  ASSERT_CUDA(cudaEventSynchronize(stop));
  EXPECT_EQ(cudaSuccess, cudaEventQuery(stop));
  ASSERT_CUDA(cudaEventElapsedTime(&ms, start, stop));
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 10000.0f);
  ASSERT_CUDA(cudaEventRecord(untimed, 0));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventElapsedTime(&ms, start, untimed));
  cudaGetLastError();
  ASSERT_CUDA(cudaEventDestroy(start));
  ASSERT_CUDA(cudaEventDestroy(stop));
  ASSERT_CUDA(cudaEventDestroy(untimed));
  EXPECT_EQ(cudaErrorInvalidResourceHandle, cudaEventDestroy(stop));
  cudaGetLastError();
  ASSERT_CUDA(cudaFree(d));
}

TEST_F(Runtime, DevicePropertiesDescribeAnH200) {
  int count = 0, device = -1;
  ASSERT_CUDA(cudaGetDeviceCount(&count));
  EXPECT_EQ(1, count);
  ASSERT_CUDA(cudaGetDevice(&device));
  EXPECT_EQ(0, device);
  ASSERT_CUDA(cudaSetDevice(0));
  EXPECT_EQ(cudaErrorInvalidDevice, cudaSetDevice(1));
  EXPECT_EQ(cudaErrorInvalidDevice, cudaGetLastError());

  cudaDeviceProp p;
  ASSERT_CUDA(cudaGetDeviceProperties(&p, 0));
  EXPECT_STREQ("NVIDIA H200 (drills simulator)", p.name);
  EXPECT_EQ(9, p.major);
  EXPECT_EQ(0, p.minor);
  EXPECT_EQ(132, p.multiProcessorCount);
  EXPECT_EQ(32, p.warpSize);
  EXPECT_EQ(48u * 1024, p.sharedMemPerBlock);
  EXPECT_EQ(227u * 1024, p.sharedMemPerBlockOptin);
  EXPECT_EQ(50 * 1024 * 1024, p.l2CacheSize);
  EXPECT_EQ(1024, p.maxThreadsPerBlock);
  EXPECT_EQ(2048, p.maxThreadsPerMultiProcessor);

  int v = 0;
  ASSERT_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
  EXPECT_EQ(p.multiProcessorCount, v);
  ASSERT_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
  EXPECT_EQ(9, v);
  ASSERT_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  EXPECT_EQ(static_cast<int>(p.sharedMemPerBlockOptin), v);
  ASSERT_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrL2CacheSize, 0));
  EXPECT_EQ(p.l2CacheSize, v);
  ASSERT_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
  EXPECT_GT(v, 1000000);

  int version = 0;
  ASSERT_CUDA(cudaRuntimeGetVersion(&version));
  EXPECT_EQ(CUDART_VERSION, version);
  ASSERT_CUDA(cudaDriverGetVersion(&version));
  EXPECT_GE(version, CUDART_VERSION);
}

TEST_F(Runtime, SymbolsOfBothModules) {
  const float coef[4] = {2.0f, 3.0f, 4.0f, 5.0f};
  ASSERT_CUDA(cudaMemcpyToSymbol(symbol_coef(), coef, sizeof coef));
  float back[4] = {};
  ASSERT_CUDA(cudaMemcpyFromSymbol(back, symbol_coef(), sizeof back));
  EXPECT_EQ(0, memcmp(coef, back, sizeof coef));
  float one = 0;
  ASSERT_CUDA(cudaMemcpyFromSymbol(&one, symbol_coef(), sizeof one, 2 * sizeof(float)));
  EXPECT_EQ(4.0f, one);
  EXPECT_EQ(cudaErrorInvalidValue, cudaMemcpyToSymbol(symbol_coef(), coef, sizeof coef, 4));
  cudaGetLastError();

  float table[16];
  for (int i = 0; i < 16; ++i) table[i] = i * 1.5f;
  ASSERT_CUDA(cudaMemcpyToSymbol(symbol_table(), table, sizeof table, 0, cudaMemcpyHostToDevice));
  void* address = nullptr;
  ASSERT_CUDA(cudaGetSymbolAddress(&address, symbol_table()));
  size_t size = 0;
  ASSERT_CUDA(cudaGetSymbolSize(&size, symbol_table()));
  EXPECT_EQ(sizeof table, size);
  float via_address[16];
  ASSERT_CUDA(cudaMemcpy(via_address, address, sizeof via_address, cudaMemcpyDeviceToHost));
  EXPECT_EQ(0, memcmp(table, via_address, sizeof table));
  cudaPointerAttributes attr;
  ASSERT_CUDA(cudaPointerGetAttributes(&attr, address));
  EXPECT_EQ(cudaMemoryTypeDevice, attr.type);

  // Device to device through symbols.
  float* d;
  ASSERT_CUDA(cudaMalloc(&d, sizeof table));
  ASSERT_CUDA(cudaMemcpyFromSymbol(d, symbol_table(), sizeof table, 0, cudaMemcpyDeviceToDevice));
  ASSERT_CUDA(cudaMemcpy(via_address, d, sizeof table, cudaMemcpyDeviceToHost));
  EXPECT_EQ(0, memcmp(table, via_address, sizeof table));
  ASSERT_CUDA(cudaFree(d));

  int not_a_symbol = 0;
  EXPECT_EQ(cudaErrorInvalidSymbol, cudaMemcpyToSymbol(&not_a_symbol, coef, 4));
  EXPECT_EQ(cudaErrorInvalidSymbol, cudaGetLastError());
}

// Every refusal is cudaErrorInvalidValue, as CUDA 13 on an H200 answers
// (benchmarks/h200-launch-refusals-2026-12-02.md; tests/test_launch_refusals.py runs that program).
TEST_F(Runtime, RefusesBadLaunchConfigurations) {
  EXPECT_EQ(cudaErrorInvalidValue, launch_with_block(dim3(2048)));
  EXPECT_EQ(cudaSuccess, cudaGetLastError());
  EXPECT_EQ(cudaErrorInvalidValue, launch_with_block(dim3(1, 1, 65)));
  EXPECT_EQ(cudaErrorInvalidValue, launch_with_block(dim3(32, 33)));
  EXPECT_EQ(cudaErrorInvalidValue, launch_with_block(dim3(0)));
  EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());  // not sticky
  // More than 48 KiB of dynamic shared memory without opting in.
  EXPECT_EQ(cudaErrorInvalidValue, launch_dynamic(nullptr, 32, 64 * 1024));
  // Beyond what opting in allows.
  EXPECT_EQ(cudaErrorInvalidValue,
            cudaFuncSetAttribute(kernel_dynamic_shared(),
                                 cudaFuncAttributeMaxDynamicSharedMemorySize, 228 * 1024));
  cudaGetLastError();
  // __launch_bounds__(128) and 256 threads.
  void* args[] = {nullptr};
  EXPECT_EQ(cudaErrorInvalidValue, cudaLaunchKernel(kernel_bounded(), dim3(1), dim3(256), args, 0, 0));
  EXPECT_EQ(cudaErrorInvalidValue, cudaGetLastError());
  EXPECT_EQ(cudaErrorInvalidDeviceFunction,
            cudaLaunchKernel(reinterpret_cast<const void*>(&strlen), dim3(1), dim3(1), args, 0, 0));
  cudaGetLastError();
}

TEST_F(Runtime, Occupancy) {
  int blocks = 0;
  ASSERT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_add(), 256, 0));
  EXPECT_EQ(8, blocks);
  ASSERT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_shared_tile(), 1024, 0));
  EXPECT_EQ(2, blocks);
  ASSERT_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_dynamic_shared(), 32,
                                                            100 * 1024));
  EXPECT_EQ(2, blocks);
  int min_grid = 0, block = 0;   // the cuda_runtime.h template, built on the calls above
  ASSERT_CUDA(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, kernel_add()));
  EXPECT_EQ(0, block % 32);
  EXPECT_GT(block, 0);
  EXPECT_EQ(132 * (2048 / block > 8 ? 8 : 2048 / block), min_grid);
}

}  // namespace
