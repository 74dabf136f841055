// The JSON lines written to $DRILLS_SIM_REPORT (CTest sets it to a file of this test's own).
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_kernels.h"

namespace {

std::string report_text() {
  std::ifstream in(getenv("DRILLS_SIM_REPORT"));
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class Report : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(nullptr, getenv("DRILLS_SIM_REPORT"));
    // The library holds the file open for appending, so truncating it starts it afresh.
    ASSERT_EQ(0, truncate(getenv("DRILLS_SIM_REPORT"), 0));
  }
};

TEST_F(Report, RefusedLaunchIsRecorded) {
  EXPECT_EQ(cudaErrorInvalidValue, launch_with_block(dim3(2048)));
  std::string text = report_text();
  EXPECT_NE(std::string::npos, text.find("{\"event\":\"launch\",\"kernel\":\"void fill<float>(float*, "
                                         "float, int)\",\"mangled\":\"_Z4fillIfEvPT_S0_i\","
                                         "\"grid\":[1,1,1],\"block\":[2048,1,1],"))
      << text;
  EXPECT_NE(std::string::npos, text.find("\"kind\":\"launch-configuration\"")) << text;
  EXPECT_EQ('\n', text.back());
}

TEST_F(Report, HostDerefIsRecordedBeforeTheProcessDies) {
  float* d = nullptr;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 64));
  EXPECT_EXIT(
      {
        volatile float x = d[1];
        (void)x;
      },
      ::testing::ExitedWithCode(4), "dereferenced device memory");
  std::string text = report_text();
  EXPECT_NE(std::string::npos, text.find("{\"event\":\"host-deref-device-pointer\",\"address\":"))
      << text;
  EXPECT_NE(std::string::npos, text.find("\"offset\":4,\"inside\":true")) << text;
}

TEST_F(Report, UnsupportedCallIsRecorded) {
  EXPECT_EXIT({ cudaGraph_t g; cudaGraphCreate(&g, 0); }, ::testing::ExitedWithCode(3),
              "cudaGraphCreate");
  EXPECT_NE(std::string::npos,
            report_text().find("{\"event\":\"unsupported\",\"what\":\"cudaGraphCreate\"}\n"));
}

#ifndef DRILLS_SIM_ENGINE_STUB
TEST_F(Report, LaunchCarriesMetricsAndLines) {
  float* d;
  ASSERT_EQ(cudaSuccess, cudaMalloc(&d, 1000 * sizeof(float)));
  ASSERT_EQ(cudaSuccess, launch_fill(d, 1.0f, 1000));
  std::string text = report_text();
  EXPECT_NE(std::string::npos, text.find("\"kernel\":\"void fill<float>(float*, float, int)\""));
  EXPECT_NE(std::string::npos, text.find("\"grid\":[8,1,1],\"block\":[128,1,1],\"seconds\":"));
  EXPECT_NE(std::string::npos, text.find("\"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum\":32"))
      << text;
  EXPECT_NE(std::string::npos, text.find("\"lines\":[{\"file\":")) << text;
  EXPECT_NE(std::string::npos, text.find("\"errors\":[]}")) << text;
}
#endif

}  // namespace
