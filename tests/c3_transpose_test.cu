// C3: every transpose in the file under test against a host reference. The same file judges
// mine/c3_transpose.cu, solutions/c3_transpose.cu and any file given to the judge with --file.
//
// transpose_naive and transpose_tiled are the contract: a file without them does not link.
// The other functions are declared weak: tested when the file defines them, skipped (and never
// counted as a pass) when it does not.
#include "c3_transpose.h"
#include "support/drills_test.h"

#include <algorithm>
#include <set>
#include <string>

namespace {

using drills::Shape;
using Fn = void (*)(const float*, float*, int, int);

struct Variant {
  const char* name;
  Fn fn;  // nullptr when the file under test does not define it
};

std::vector<Variant> variants() {
  return {{"naive", transpose_naive},
          {"tiled", transpose_tiled},
          {"tiled_unpadded", transpose_tiled_unpadded},
          {"tiled_swizzled", transpose_tiled_swizzled},
          {"fast", transpose_fast}};
}

std::vector<float> host_transpose(const std::vector<float>& x, int M, int N) {
  std::vector<float> y(x.size());
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) y[static_cast<size_t>(c) * M + r] = x[static_cast<size_t>(r) * N + c];
  return y;
}

// Facts about a wrong output that the judge turns into named diagnoses (drills/pipeline/diagnose.py reads
// them by name; the judge never reads the learner's source). y is N×M.
void record_evidence(const std::vector<float>& x, const std::vector<float>& got,
                     const std::vector<float>& want, int M, int N) {
  constexpr int T = 32;  // the chapter's tile
  const int S = std::min(M, N);
  size_t unwritten = 0, wrong = 0, outside = 0, wrong_outside = 0, unswapped = 0, untransposed = 0;
  for (int r = 0; r < N; ++r) {
    for (int c = 0; c < M; ++c) {
      const size_t i = static_cast<size_t>(r) * M + c;
      const bool out_of_square = r >= S || c >= S;  // where swapped M/N bounds go wrong
      outside += out_of_square;
      if (std::isnan(got[i])) ++unwritten;
      if (got[i] == want[i]) continue;
      ++wrong;
      wrong_outside += out_of_square;
      // Each tile transposed, but written back at its own block position (y's tile (bi, bj)
      // holds x's tile (bi, bj) transposed): y[r][c] = x[(r/T)*T + c%T][(c/T)*T + r%T].
      const int sr = (r / T) * T + c % T, sc = (c / T) * T + r % T;
      if (sr < M && sc < N && got[i] == x[static_cast<size_t>(sr) * N + sc]) ++unswapped;
      // Each tile moved to its transposed position, but its contents not transposed:
      // y[r][c] = x[(c/T)*T + r%T][(r/T)*T + c%T].
      const int ur = (c / T) * T + r % T, uc = (r / T) * T + c % T;
      if (ur < M && uc < N && got[i] == x[static_cast<size_t>(ur) * N + uc]) ++untransposed;
    }
  }
  ::testing::Test::RecordProperty("wrong", std::to_string(wrong));
  ::testing::Test::RecordProperty("unwritten", std::to_string(unwritten));
  ::testing::Test::RecordProperty("output_is_input_copied", (got == x) ? "1" : "0");
  ::testing::Test::RecordProperty("outside_square", std::to_string(outside));
  ::testing::Test::RecordProperty("wrong_outside_square", std::to_string(wrong_outside));
  ::testing::Test::RecordProperty("wrong_matching_unswapped_tiles", std::to_string(unswapped));
  ::testing::Test::RecordProperty("wrong_matching_untransposed_tiles", std::to_string(untransposed));
}

struct Case {
  Variant variant;
  Shape shape;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.variant.name << " on " << drills::shape_name(c.shape); }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variant.name) + "_" + drills::shape_name(info.param.shape);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Variant& v : variants())
    for (const Shape& s : drills::test_shapes()) out.push_back({v, s});
  return out;
}

// Variants whose kernel did not finish once: their remaining cases fail at once instead of each
// waiting for the watchdog again.
std::set<std::string>& timed_out_variants() {
  static std::set<std::string> names;
  return names;
}

class Transpose : public ::testing::TestWithParam<Case> {
 protected:
  // A kernel fault is sticky for the whole process; reset so that the next case runs on a clean
  // device and reports its own result, not this one's error.
  void TearDown() override {
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaErrorLaunchTimeout) timed_out_variants().insert(GetParam().variant.name);
    if (err != cudaSuccess) cudaDeviceReset();
  }
};

TEST_P(Transpose, MatchesHostReference) {
  const Case& c = GetParam();
  if (c.variant.fn == nullptr) GTEST_SKIP() << c.variant.name << " is not defined in this file";
  if (timed_out_variants().count(c.variant.name))
    FAIL() << "not run: an earlier launch of " << c.variant.name << " did not finish";
  const int M = c.shape.first, N = c.shape.second;
  const size_t n = static_cast<size_t>(M) * N;
  ::testing::Test::RecordProperty("shape", drills::shape_name(c.shape));

  const std::vector<float> x = drills::random_floats(n, M * 31u + N);
  drills::DeviceBuffer<float> dx(n), dy(n);
  ASSERT_TRUE(dx.ok() && dy.ok()) << "cudaMalloc failed for " << M << "x" << N;
  DRILLS_CUDA_OK(cudaMemcpy(dx.get(), x.data(), dx.bytes(), cudaMemcpyHostToDevice));
  DRILLS_CUDA_OK(drills::poison(dy));

  c.variant.fn(dx.get(), dy.get(), M, N);
  DRILLS_CUDA_OK(cudaGetLastError());
  DRILLS_CUDA_OK(cudaDeviceSynchronize());

  std::vector<float> got(n);
  DRILLS_CUDA_OK(drills::download(got.data(), dy.get(), dy.bytes()));
  const std::vector<float> want = host_transpose(x, M, N);
  const auto same = drills::matrices_equal(want, got, N, M);
  if (!same) record_evidence(x, got, want, M, N);
  EXPECT_TRUE(same) << c.variant.name << " on x of " << M << "x" << N << " (y is " << N << "x" << M << ")";
}

INSTANTIATE_TEST_SUITE_P(C3, Transpose, ::testing::ValuesIn(cases()), case_name);

// The copy kernel is the chapter's upper bound; it must copy, or its speed means nothing.
TEST(C3Copy, CopiesEveryElement) {
  if (copy_tiled == nullptr) GTEST_SKIP() << "copy_tiled is not defined in this file";
  for (const Shape& s : drills::parse_shapes(DRILLS_PUBLIC_SHAPES)) {
    const int M = s.first, N = s.second;
    const size_t n = static_cast<size_t>(M) * N;
    const std::vector<float> x = drills::random_floats(n, 7);
    drills::DeviceBuffer<float> dx(n), dy(n);
    DRILLS_CUDA_OK(cudaMemcpy(dx.get(), x.data(), dx.bytes(), cudaMemcpyHostToDevice));
    DRILLS_CUDA_OK(drills::poison(dy));
    copy_tiled(dx.get(), dy.get(), M, N);
    DRILLS_CUDA_OK(cudaDeviceSynchronize());
    std::vector<float> got(n);
    DRILLS_CUDA_OK(drills::download(got.data(), dy.get(), dy.bytes()));
    EXPECT_TRUE(drills::matrices_equal(x, got, M, N)) << "copy_tiled on " << M << "x" << N;
  }
}

// Exercise 1: in place, squares including sizes that are not multiples of 32.
class InPlace : public ::testing::TestWithParam<int> {};

TEST_P(InPlace, MatchesHostReference) {
  if (transpose_inplace_square == nullptr) GTEST_SKIP() << "transpose_inplace_square is not defined in this file";
  const int n = GetParam();
  const size_t count = static_cast<size_t>(n) * n;
  const std::vector<float> a = drills::random_floats(count, 1000u + n);
  drills::DeviceBuffer<float> da(count);
  DRILLS_CUDA_OK(cudaMemcpy(da.get(), a.data(), da.bytes(), cudaMemcpyHostToDevice));
  transpose_inplace_square(da.get(), n);
  DRILLS_CUDA_OK(cudaGetLastError());
  DRILLS_CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> got(count);
  DRILLS_CUDA_OK(drills::download(got.data(), da.get(), da.bytes()));
  EXPECT_TRUE(drills::matrices_equal(host_transpose(a, n, n), got, n, n)) << "in place, " << n << "x" << n;
}

std::vector<int> square_sizes() {
#ifdef DRILLS_BACKEND_SIM
  return {1, 2, 31, 32, 33, 64, 97, 1000};
#else
  return {1, 2, 31, 32, 33, 64, 97, 1000, 4113, 8192};
#endif
}

INSTANTIATE_TEST_SUITE_P(C3, InPlace, ::testing::ValuesIn(square_sizes()));

}  // namespace
