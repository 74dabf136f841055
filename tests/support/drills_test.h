// Helpers shared by every chapter's GoogleTest file: device buffers, poisoning, seeded inputs,
// shapes from the environment (the judge's hidden cases), and mismatch reports.
#pragma once

#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace drills {

#define DRILLS_CUDA_OK(call)                                                          \
  do {                                                                                \
    cudaError_t err_ = (call);                                                        \
    ASSERT_EQ(err_, cudaSuccess) << #call << ": " << cudaGetErrorName(err_) << ": "  \
                                 << cudaGetErrorString(err_);                         \
  } while (0)

// A device buffer of T. Freed on scope exit; never copied.
template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > 0 && cudaMalloc(&ptr_, count_ * sizeof(T)) != cudaSuccess) ptr_ = nullptr;
  }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }
  size_t count() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }
  bool ok() const { return count_ == 0 || ptr_ != nullptr; }

 private:
  T* ptr_ = nullptr;
  size_t count_;
};

// 0xFF bytes are a NaN as float and double, so an element the kernel never wrote cannot
// compare equal to anything.
template <class T>
cudaError_t poison(DeviceBuffer<T>& buf) { return cudaMemset(buf.get(), 0xFF, buf.bytes()); }

// The seed for generated inputs: DRILLS_SEED when the judge sets it (hidden cases), else fixed.
inline uint32_t seed() {
  const char* s = std::getenv("DRILLS_SEED");
  return s ? static_cast<uint32_t>(std::strtoul(s, nullptr, 10)) : 20261129u;
}

// Random floats in [-1, 1) that are never zero: a zero input hides unwritten outputs.
inline std::vector<float> random_floats(size_t n, uint32_t salt) {
  std::mt19937 gen(seed() * 2654435761u + salt);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) {
    do x = dist(gen); while (x == 0.0f);
  }
  return v;
}

using Shape = std::pair<int, int>;  // (rows, cols)

inline std::string shape_name(const Shape& s) {
  return std::to_string(s.first) + "x" + std::to_string(s.second);
}

// Extra shapes the judge passes in DRILLS_EXTRA_SHAPES="MxN,MxN,..." (hidden cases when grading).
inline std::vector<Shape> extra_shapes() {
  std::vector<Shape> out;
  const char* s = std::getenv("DRILLS_EXTRA_SHAPES");
  if (!s) return out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    int m = 0, n = 0;
    if (std::sscanf(item.c_str(), "%dx%d", &m, &n) == 2 && m > 0 && n > 0) out.emplace_back(m, n);
  }
  return out;
}

// Compare a rows×cols row-major result with its reference, bit for bit (NaN never matches).
// On failure the message lists the first few mismatches as "[r, c] expected X got Y".
inline ::testing::AssertionResult matrices_equal(const std::vector<float>& expected,
                                                 const std::vector<float>& got, int rows, int cols,
                                                 int max_report = 8) {
  size_t bad = 0;
  std::ostringstream msg;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const size_t i = static_cast<size_t>(r) * cols + c;
      if (expected[i] == got[i]) continue;
      if (bad < static_cast<size_t>(max_report))
        msg << "\n  [" << r << ", " << c << "] expected " << expected[i] << " got " << got[i];
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << static_cast<size_t>(rows) * cols
                                       << " elements differ (output is " << rows << "x" << cols
                                       << ")" << msg.str();
}

}  // namespace drills
