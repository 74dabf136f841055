#include <cuda_runtime.h>
#include <gtest/gtest.h>

const void* fatbin_probe_kernel();
const void* fatbin_marker_symbol();

// FATBIN_READABLE: 1 when the runtime must read this build's PTX (raw or zstd), 0 when it must
// refuse it (legacy compression).
TEST(Fatbin, PtxIsReadOrRefusedWithAReason) {
  cudaFuncAttributes a;
  int marker[3] = {};
#if FATBIN_READABLE
  ASSERT_EQ(cudaSuccess, cudaFuncGetAttributes(&a, fatbin_probe_kernel()));
  EXPECT_EQ(90, a.ptxVersion);
  ASSERT_EQ(cudaSuccess, cudaMemcpyFromSymbol(marker, fatbin_marker_symbol(), sizeof marker));
#ifndef DRILLS_SIM_ENGINE_STUB   // the stub engine does not initialise module variables
  EXPECT_EQ(11, marker[0]);
  EXPECT_EQ(33, marker[2]);
#endif
#else
  testing::internal::CaptureStderr();
  EXPECT_EQ(cudaErrorInvalidPtx, cudaFuncGetAttributes(&a, fatbin_probe_kernel()));
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(std::string::npos, err.find("legacy compression (flag 0x2000")) << err;
  EXPECT_EQ(cudaErrorInvalidSymbol,
            cudaMemcpyFromSymbol(marker, fatbin_marker_symbol(), sizeof marker));
#endif
}
