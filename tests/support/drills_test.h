// Helpers shared by every chapter's GoogleTest file: device buffers, poisoning, seeded inputs,
// shapes from the environment (the judge's hidden cases), and mismatch reports.
#pragma once

#include <gtest/gtest.h>
#include <cuda_runtime.h>

#include "drills_record.h"
#include "drills_result_channel.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <climits>
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

// A shape list as the manifest writes it: "MxN,MxN,..." or, for vectors, "N" (= 1xN). Items that
// are not positive sizes are dropped.
inline std::vector<Shape> parse_shapes(const char* list) {
  std::vector<Shape> out;
  std::stringstream in(list ? list : "");
  std::string item;
  while (std::getline(in, item, ',')) {
    long long m = 0, n = 0;
    if (std::sscanf(item.c_str(), "%lldx%lld", &m, &n) != 2) {
      m = 1;
      if (std::sscanf(item.c_str(), "%lld", &n) != 1) continue;
    }
    if (m > 0 && n > 0 && m <= INT32_MAX && n <= INT32_MAX) out.emplace_back(int(m), int(n));
  }
  return out;
}

// Extra shapes the judge passes in DRILLS_EXTRA_SHAPES="MxN,MxN,..." (hidden cases when grading).
inline std::vector<Shape> extra_shapes() { return parse_shapes(std::getenv("DRILLS_EXTRA_SHAPES")); }

#if defined(DRILLS_PUBLIC_SHAPES) && defined(DRILLS_GPU_SHAPES)
// Every shape a test binary runs: the manifest's public shapes (CMake passes them in), its GPU-only
// shapes (too large for the simulator's time budget: compiled in only for GPU builds) and the
// judge's extra shapes.
inline std::vector<Shape> test_shapes() {
  std::vector<Shape> s = parse_shapes(DRILLS_PUBLIC_SHAPES);
#ifndef DRILLS_BACKEND_SIM
  for (const Shape& g : parse_shapes(DRILLS_GPU_SHAPES)) s.push_back(g);
#endif
  for (const Shape& e : extra_shapes()) s.push_back(e);
  return s;
}

// The same for a problem on vectors: each shape's element count (shapes over 2^31 - 1 dropped).
inline std::vector<int> test_lengths(bool public_only = false) {
  std::vector<int> out;
  for (const Shape& s : public_only ? parse_shapes(DRILLS_PUBLIC_SHAPES) : test_shapes()) {
    const long long n = 1LL * s.first * s.second;
    if (n <= INT32_MAX) out.push_back(int(n));
  }
  return out;
}
#endif

// The manifest's tolerance for this problem (CMake passes it from practice/problems.toml):
// |got - want| <= atol + rtol * |want|; both 0 compares bit for bit.
#ifndef DRILLS_RTOL
#define DRILLS_RTOL 0.0
#endif
#ifndef DRILLS_ATOL
#define DRILLS_ATOL 0.0
#endif
inline bool close_enough(float want, float got) {
  if (want == got) return true;
  if (std::isnan(want) || std::isnan(got)) return false;
  const double diff = std::fabs(static_cast<double>(got) - static_cast<double>(want));
  return diff <= DRILLS_ATOL + DRILLS_RTOL * std::fabs(static_cast<double>(want));
}

// Compare a rows×cols row-major result with its reference within the manifest's tolerance (NaN
// never matches). On failure the message lists the first few mismatches as "[r, c] expected X got Y".
inline ::testing::AssertionResult matrices_equal(const std::vector<float>& expected,
                                                 const std::vector<float>& got, int rows, int cols,
                                                 int max_report = 8) {
  size_t bad = 0;
  std::ostringstream msg;
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const size_t i = static_cast<size_t>(r) * cols + c;
      if (close_enough(expected[i], got[i])) continue;
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
