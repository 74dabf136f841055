// Host code touching device memory dies as on a GPU, with the allocation named; an unsupported
// runtime call stops the program with its name.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <csignal>

namespace {

TEST(HostDeref, ReadingDeviceMemoryExitsWith4AndNamesTheAllocation) {
  float* d = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 64));
  EXPECT_EXIT(
      {
        volatile float x = d[3];
        (void)x;
      },
      ::testing::ExitedWithCode(4),
      "drills-sim: host code dereferenced device memory at 0x[0-9a-f]+ "
      "\\(cudaMalloc #[0-9]+ \\(64 bytes\\) \\+ 12\\)");
}

TEST(HostDeref, WritingPastTheEndNamesTheNearestAllocation) {
  int* d = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 256));
  EXPECT_EXIT({ static_cast<volatile int*>(d)[100] = 1; }, ::testing::ExitedWithCode(4),
              "device memory at 0x[0-9a-f]+ \\(in no allocation; 144 bytes past the end of "
              "cudaMalloc #[0-9]+ \\(256 bytes\\)\\)");
}

TEST(HostDeref, OtherFaultsKeepTheirSignal) {
  EXPECT_EXIT({ *static_cast<volatile int*>(nullptr) = 1; }, ::testing::KilledBySignal(SIGSEGV),
              "");
}

TEST(Unsupported, CallStopsWithItsName) {
  auto malloc_array = [] {
    cudaArray_t array;
    cudaChannelFormatDesc desc{};
    desc.x = 32;
    desc.f = cudaChannelFormatKindFloat;
    cudaMallocArray(&array, &desc, 16, 16);
  };
  EXPECT_EXIT(malloc_array(), ::testing::ExitedWithCode(3),
              "drills-sim: unsupported CUDA runtime call cudaMallocArray");
  EXPECT_EXIT({ cudaGraph_t g; cudaGraphCreate(&g, 0); }, ::testing::ExitedWithCode(3),
              "unsupported CUDA runtime call cudaGraphCreate");
}

}  // namespace
