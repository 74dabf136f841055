// C1: every vector add in the file under test against a host reference, bit for bit (a float add is
// exact IEEE arithmetic on both sides). The same file judges mine/c1_vector_add.cu,
// solutions/c1_vector_add.cu and any file given to the judge with --file.
//
// vector_add and vector_add_vec4 are the contract: a file without them does not link. The other
// functions are declared weak: tested when the file defines them, skipped (never counted as a pass)
// when it does not.
#include <algorithm>
#include <map>

#include "c1_vector_add.h"
#include "support/drills_test.h"

namespace {

using Fn = void (*)(const float*, const float*, float*, int);

struct Variant {
  const char* name;
  Fn fn;  // nullptr when the file under test does not define it
};

std::vector<Variant> variants() {
  return {{"one_per_thread", vector_add},
          {"vec4", vector_add_vec4},
          {"grid_stride", vector_add_grid_stride},
          {"fast", vector_add_fast}};
}

// Inputs for a length, generated once per process: the 2^28 cases share them across variants.
const std::vector<float>& input(int n, uint32_t which) {
  static std::map<std::pair<int, uint32_t>, std::vector<float>> cache;
  auto key = std::make_pair(n, which);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, drills::random_floats(n, 2u * n + which)).first;
  return it->second;
}

constexpr int kGuard = 4;  // poisoned floats after c's last element: a write there is a bug

// Facts about a wrong output that the judge turns into named diagnoses.
void record_evidence(const std::vector<float>& got, const std::vector<float>& want, int n) {
  long long wrong = 0, unwritten = 0, first = -1, last = -1, guard = 0;
  for (int i = 0; i < n; ++i) {
    if (std::isnan(got[i])) ++unwritten;
    if (!(got[i] == want[i])) {
      ++wrong;
      if (first < 0) first = i;
      last = i;
    }
  }
  for (size_t i = n; i < got.size(); ++i) guard += !std::isnan(got[i]);
  ::testing::Test::RecordProperty("wrong", std::to_string(wrong));
  ::testing::Test::RecordProperty("unwritten", std::to_string(unwritten));
  ::testing::Test::RecordProperty("first_wrong", std::to_string(first));
  ::testing::Test::RecordProperty("last_wrong", std::to_string(last));
  ::testing::Test::RecordProperty("written_past_end", std::to_string(guard));
}

// Runs fn on a and b placed `offset` floats (a, b, c respectively) past a 256-byte boundary, and
// checks c and the poisoned guard after it.
void check_add(const Variant& v, int n, const int offset[3]) {
  const std::vector<float>& a = input(n, 1);
  const std::vector<float>& b = input(n, 2);
  const size_t count = static_cast<size_t>(n);  // n + a few can pass INT32_MAX
  drills::DeviceBuffer<float> da(count + offset[0]), db(count + offset[1]), dc(count + offset[2] + kGuard);
  ASSERT_TRUE(da.ok() && db.ok() && dc.ok()) << "cudaMalloc failed for n = " << n;
  DRILLS_CUDA_OK(cudaMemcpy(da.get() + offset[0], a.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  DRILLS_CUDA_OK(cudaMemcpy(db.get() + offset[1], b.data(), count * sizeof(float), cudaMemcpyHostToDevice));
  DRILLS_CUDA_OK(drills::poison(dc));

  v.fn(da.get() + offset[0], db.get() + offset[1], dc.get() + offset[2], n);
  DRILLS_CUDA_OK(cudaGetLastError());
  DRILLS_CUDA_OK(cudaDeviceSynchronize());

  std::vector<float> got(count + kGuard);
  DRILLS_CUDA_OK(drills::download(got.data(), dc.get() + offset[2], got.size() * sizeof(float)));
  std::vector<float> want(count);
  for (size_t i = 0; i < count; ++i) want[i] = a[i] + b[i];
  std::vector<float> head(got.begin(), got.begin() + n), guard(got.begin() + n, got.end());
  const auto same = drills::matrices_equal(want, head, 1, n);
  const bool guard_intact = std::all_of(guard.begin(), guard.end(), [](float g) { return std::isnan(g); });
  if (!same || !guard_intact) record_evidence(got, want, n);
  EXPECT_TRUE(same) << v.name << " on n = " << n << " (a, b, c start " << offset[0] << ", " << offset[1]
                    << ", " << offset[2] << " floats past a 16-byte boundary)";
  EXPECT_TRUE(guard_intact) << v.name << " on n = " << n << " wrote past c[n - 1]: c[n] .. c[n + " << kGuard - 1
                            << "] must stay untouched (a float4 tail that overruns the array?)";
}

// ---- every variant on every length, 16-byte-aligned pointers ----

struct Case {
  Variant variant;
  int n;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.variant.name << " on n = " << c.n; }

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Variant& v : variants())
    for (int n : drills::test_lengths()) out.push_back({v, n});
  return out;
}

class VectorAdd : public ::testing::TestWithParam<Case> {};

TEST_P(VectorAdd, MatchesHostReference) {
  const Case& c = GetParam();
  if (c.variant.fn == nullptr) GTEST_SKIP() << c.variant.name << " is not defined in this file";
  ::testing::Test::RecordProperty("shape", "1x" + std::to_string(c.n));
  const int aligned[3] = {0, 0, 0};
  check_add(c.variant, c.n, aligned);
}

INSTANTIATE_TEST_SUITE_P(C1, VectorAdd, ::testing::ValuesIn(cases()), [](const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variant.name) + "_1x" + std::to_string(info.param.n);
});

// ---- pointers that do not start on a 16-byte boundary: the float4 head and tail ----

struct Misaligned {
  Variant variant;
  int n;
  int offset[3];  // floats past a 16-byte boundary for a, b, c
};

void PrintTo(const Misaligned& m, std::ostream* os) {
  *os << m.variant.name << " on n = " << m.n << ", offsets " << m.offset[0] << m.offset[1] << m.offset[2];
}

std::vector<Misaligned> misaligned_cases() {
  // Same offset for all three (a float4 body after a scalar head), and different offsets (no
  // float4 access can be aligned for all three at once).
  const int offsets[][3] = {{1, 1, 1}, {2, 2, 2}, {3, 3, 3}, {1, 2, 3}, {0, 0, 1}};
  std::vector<Misaligned> out;
  for (const Variant& v : variants())
    for (int n : {1, 2, 3, 4, 5, 7, 8, 33, 1000, 1021})
      for (const auto& o : offsets) out.push_back({v, n, {o[0], o[1], o[2]}});
  return out;
}

class VectorAddMisaligned : public ::testing::TestWithParam<Misaligned> {};

TEST_P(VectorAddMisaligned, MatchesHostReference) {
  const Misaligned& m = GetParam();
  if (m.variant.fn == nullptr) GTEST_SKIP() << m.variant.name << " is not defined in this file";
  ::testing::Test::RecordProperty("shape", "1x" + std::to_string(m.n));
  check_add(m.variant, m.n, m.offset);
}

INSTANTIATE_TEST_SUITE_P(C1, VectorAddMisaligned, ::testing::ValuesIn(misaligned_cases()),
                         [](const ::testing::TestParamInfo<Misaligned>& info) {
                           const Misaligned& m = info.param;
                           return std::string(m.variant.name) + "_offset" + std::to_string(m.offset[0]) +
                                  std::to_string(m.offset[1]) + std::to_string(m.offset[2]) + "_1x" +
                                  std::to_string(m.n);
                         });

// The copy kernel is the chapter's upper bound; it must copy, or its speed means nothing.
TEST(C1Copy, CopiesEveryElement) {
  if (copy_vec4 == nullptr) GTEST_SKIP() << "copy_vec4 is not defined in this file";
  for (int n : drills::test_lengths(true)) {
    for (int off : {0, 1, 3}) {
      const std::vector<float>& x = input(n, 1);
      drills::DeviceBuffer<float> dx(n + off), dy(n + off);
      DRILLS_CUDA_OK(cudaMemcpy(dx.get() + off, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      DRILLS_CUDA_OK(drills::poison(dy));
      copy_vec4(dx.get() + off, dy.get() + off, n);
      DRILLS_CUDA_OK(cudaDeviceSynchronize());
      std::vector<float> got(n);
      DRILLS_CUDA_OK(drills::download(got.data(), dy.get() + off, n * sizeof(float)));
      EXPECT_TRUE(drills::matrices_equal(x, got, 1, n)) << "copy_vec4 on n = " << n << ", offset " << off;
    }
  }
}

}  // namespace
