// C4: every SGEMM in the file under test against a float64 host reference. The same file judges
// mine/c4_sgemm.cu, solutions/c4_sgemm.cu and any file given to the judge with --file.
//
// sgemm_naive and sgemm_tiled are the contract: a file without them does not link. The other
// functions are declared weak: tested when the file defines them, skipped (and never counted as a
// pass) when it does not.
//
// Tolerance: a float32 dot product of length K, summed in any order with or without FMA, is within
// γ_K Σ_k |a_ik b_kj| of the exact value, γ_K = K u / (1 - K u), u = 2^-24 (content/c4.md §2). The
// inputs are exact in float64, so the reference's own error is negligible against that bound.
#include "c4_sgemm.h"
#include "support/drills_test.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace {

using Fn = void (*)(const float*, const float*, float*, int, int, int);

struct Variant {
  const char* name;
  Fn fn;  // nullptr when the file under test does not define it
};

std::vector<Variant> variants() {
  return {{"naive", sgemm_naive},
          {"tiled", sgemm_tiled},
          {"fast", sgemm_fast},
          {"uncoalesced", sgemm_uncoalesced},
          {"blocktile_1d", sgemm_blocktile_1d},
          {"blocktile_2d", sgemm_blocktile_2d},
          {"vectorized", sgemm_vectorized},
          {"warptile", sgemm_warptile},
          {"double_buffered", sgemm_double_buffered}};
}

struct Dims {
  int M, N, K;
  bool operator<(const Dims& o) const { return std::tie(M, N, K) < std::tie(o.M, o.N, o.K); }
};

std::string dims_name(const Dims& d) {
  return std::to_string(d.M) + "x" + std::to_string(d.N) + "x" + std::to_string(d.K);
}

// "MxNxK,MxNxK,..." as the manifest writes GEMM shapes; items that are not three positive sizes
// are dropped.
std::vector<Dims> parse_dims(const char* list) {
  std::vector<Dims> out;
  std::stringstream in(list ? list : "");
  std::string item;
  while (std::getline(in, item, ',')) {
    long long m = 0, n = 0, k = 0;
    if (std::sscanf(item.c_str(), "%lldx%lldx%lld", &m, &n, &k) != 3) continue;
    if (m > 0 && n > 0 && k > 0 && m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX) out.push_back({int(m), int(n), int(k)});
  }
  return out;
}

// The manifest's public shapes, its GPU-only shapes (GPU builds only) and the judge's extra ones.
std::vector<Dims> test_dims() {
  std::vector<Dims> d = parse_dims(DRILLS_PUBLIC_SHAPES);
#ifndef DRILLS_BACKEND_SIM
  for (const Dims& g : parse_dims(DRILLS_GPU_SHAPES)) d.push_back(g);
#endif
  for (const Dims& e : parse_dims(std::getenv("DRILLS_EXTRA_SHAPES"))) d.push_back(e);
  return d;
}

struct Inputs {
  std::vector<float> A, B;
};

const Inputs& inputs(const Dims& d) {
  static std::map<Dims, Inputs> cache;
  auto it = cache.find(d);
  if (it == cache.end()) {
    Inputs in{drills::random_floats(size_t(d.M) * d.K, d.M * 131u + d.K),
              drills::random_floats(size_t(d.K) * d.N, d.N * 137u + d.K + 1)};
    it = cache.emplace(d, std::move(in)).first;
  }
  return it->second;
}

// The exact product (float64, exact for these inputs up to its own rounding) and Σ|a b| for the
// elements checked: all of C when it is small, else whole rows and columns at both edges (where
// the tails are) and inside.
struct Reference {
  std::vector<int> rows, cols;
  std::map<std::pair<int, int>, std::pair<double, double>> at;  // (r, c) -> (value, Σ|a b|)
};

const Reference& reference(const Dims& d) {
  static std::map<Dims, Reference> cache;
  auto it = cache.find(d);
  if (it != cache.end()) return it->second;
  const Inputs& in = inputs(d);
  Reference r;
  if (double(d.M) * d.N * d.K <= 3e8) {
    for (int i = 0; i < d.M; ++i) r.rows.push_back(i);
  } else {
    std::set<int> rows{0, d.M / 2, d.M - 1}, cols{0, d.N / 2, d.N - 1};
    if (d.M > 1) rows.insert(d.M - 2);
    if (d.N > 1) cols.insert(d.N - 2);
    r.rows.assign(rows.begin(), rows.end());
    r.cols.assign(cols.begin(), cols.end());
  }
  std::vector<double> v(d.N), a(d.N);
  for (int i : r.rows) {
    std::fill(v.begin(), v.end(), 0.0);
    std::fill(a.begin(), a.end(), 0.0);
    for (int k = 0; k < d.K; ++k) {
      const double x = in.A[size_t(i) * d.K + k];
      const float* b = &in.B[size_t(k) * d.N];
      for (int j = 0; j < d.N; ++j) {
        v[j] += x * b[j];
        a[j] += std::fabs(x * b[j]);
      }
    }
    for (int j = 0; j < d.N; ++j) r.at[{i, j}] = {v[j], a[j]};
  }
  for (int j : r.cols)
    for (int i = 0; i < d.M; ++i) {
      double s = 0, t = 0;
      for (int k = 0; k < d.K; ++k) {
        const double p = double(in.A[size_t(i) * d.K + k]) * in.B[size_t(k) * d.N + j];
        s += p;
        t += std::fabs(p);
      }
      r.at[{i, j}] = {s, t};
    }
  return cache.emplace(d, std::move(r)).first->second;
}

double gamma_k(int K) {
  const double u = std::ldexp(1.0, -24);
  return K * u / (1 - K * u);
}

// The manifest's rtol and atol (0 unless an instructor loosens them) add to the derived bound.
double allowed(double want, double abs_sum, int K) {
  return gamma_k(K) * abs_sum + DRILLS_ATOL + DRILLS_RTOL * std::fabs(want);
}

bool within(double got, double want, double abs_sum, int K) { return std::fabs(got - want) <= allowed(want, abs_sum, K); }

// Does `got` equal, within the bound, C computed by `formula(i, j) -> (value, Σ|a b|, terms)`?
template <class F>
bool matches_everywhere(const std::vector<float>& got, const Dims& d, F formula) {
  for (int i = 0; i < d.M; ++i)
    for (int j = 0; j < d.N; ++j) {
      const auto [value, abs_sum, terms] = formula(i, j);
      if (!(std::fabs(got[size_t(i) * d.N + j] - value) <= gamma_k(std::max(terms, 1)) * abs_sum + 1e-30)) return false;
    }
  return true;
}

// Facts about a wrong C that the judge turns into named diagnoses (drills/diagnose.py reads them
// by name; the judge never reads the learner's source). Whole-C comparisons only on small shapes.
void record_evidence(const std::vector<float>& got, const Dims& d, size_t checked, size_t wrong,
                     size_t unwritten, size_t wrong_outside_tiles, double worst) {
  using ::testing::Test;
  // How many elements were compared: all of C on small shapes, whole rows and columns on large
  // ones. "Nothing written" is unwritten == checked, whatever the shape.
  Test::RecordProperty("checked", std::to_string(checked));
  Test::RecordProperty("wrong", std::to_string(wrong));
  Test::RecordProperty("unwritten", std::to_string(unwritten));
  Test::RecordProperty("wrong_outside_whole_tiles", std::to_string(wrong_outside_tiles));
  Test::RecordProperty("worst_error_over_bound", std::to_string(worst));
  Test::RecordProperty("k_mod_tile", std::to_string(d.K % 32));
  if (double(d.M) * d.N * d.K > 5e7) return;
  const Inputs& in = inputs(d);
  auto A = [&](size_t i) { return double(in.A[i]); };
  auto B = [&](size_t i) { return double(in.B[i]); };
  // The product over the first kt values of k only: what a kernel that drops the last partial
  // tile along K computes.
  int truncated_to = 0;
  for (int tile : {64, 32, 16, 8, 4}) {
    const int kt = d.K / tile * tile;
    if (kt == d.K) continue;
    const bool m = matches_everywhere(got, d, [&](int i, int j) {
      double s = 0, t = 0;
      for (int k = 0; k < kt; ++k) {
        s += A(size_t(i) * d.K + k) * B(size_t(k) * d.N + j);
        t += std::fabs(A(size_t(i) * d.K + k) * B(size_t(k) * d.N + j));
      }
      return std::make_tuple(s, t, kt);
    });
    if (m) {
      truncated_to = tile;
      break;
    }
  }
  Test::RecordProperty("wrong_matches_k_truncated_to_tile", std::to_string(truncated_to));
  // A read as if it were column-major (A[k][m] instead of A[m][k]), B likewise, C written transposed.
  const bool a_swapped = matches_everywhere(got, d, [&](int i, int j) {
    double s = 0, t = 0;
    for (int k = 0; k < d.K; ++k) {
      s += A(size_t(k) * d.M + i) * B(size_t(k) * d.N + j);
      t += std::fabs(A(size_t(k) * d.M + i) * B(size_t(k) * d.N + j));
    }
    return std::make_tuple(s, t, d.K);
  });
  const bool b_swapped = matches_everywhere(got, d, [&](int i, int j) {
    double s = 0, t = 0;
    for (int k = 0; k < d.K; ++k) {
      s += A(size_t(i) * d.K + k) * B(size_t(j) * d.K + k);
      t += std::fabs(A(size_t(i) * d.K + k) * B(size_t(j) * d.K + k));
    }
    return std::make_tuple(s, t, d.K);
  });
  // The tiled kernel's inner loop with its operands' indices exchanged, As[k][tx] * Bs[ty][k]: with
  // 32×32 tiles (the skeleton's), element (m, n) then sums A[m0 + kk][k0 + n % 32] · B[k0 + m % 32][n0 + kk].
  constexpr int T = 32;
  auto a_at = [&](int r, int c) { return r < d.M && c < d.K ? A(size_t(r) * d.K + c) : 0.0; };
  auto b_at = [&](int r, int c) { return r < d.K && c < d.N ? B(size_t(r) * d.N + c) : 0.0; };
  const bool tile_swapped = matches_everywhere(got, d, [&](int i, int j) {
    const int m0 = i / T * T, n0 = j / T * T, ty = i % T, tx = j % T;
    double s = 0, t = 0;
    for (int k0 = 0; k0 < d.K; k0 += T)
      for (int kk = 0; kk < T; ++kk) {
        const double p = a_at(m0 + kk, k0 + tx) * b_at(k0 + ty, n0 + kk);
        s += p;
        t += std::fabs(p);
      }
    return std::make_tuple(s, t, (d.K + T - 1) / T * T);
  });
  Test::RecordProperty("wrong_matches_tile_operands_swapped", tile_swapped ? "1" : "0");
  bool c_transposed = true;
  const Reference& r = reference(d);
  for (int i = 0; i < d.M && c_transposed; ++i)
    for (int j = 0; j < d.N && c_transposed; ++j) {
      const size_t flat = size_t(j) * d.M + i;  // where C[i][j] lands if C is written column-major
      const auto [value, abs_sum] = r.at.at({i, j});
      c_transposed = within(got[flat], value, abs_sum, d.K);
    }
  Test::RecordProperty("wrong_matches_a_read_transposed", a_swapped ? "1" : "0");
  Test::RecordProperty("wrong_matches_b_read_transposed", b_swapped ? "1" : "0");
  Test::RecordProperty("wrong_matches_c_written_transposed", c_transposed ? "1" : "0");
}

// Compare with the reference; on failure, the first mismatches as "[r, c] expected X got Y".
::testing::AssertionResult check_product(const std::vector<float>& got, const Dims& d) {
  const Reference& r = reference(d);
  constexpr int T = 32;  // the skeleton's tile: rows and columns past the last whole tile are the tails
  size_t wrong = 0, unwritten = 0, outside = 0, checked = 0;
  double worst = 0;
  std::ostringstream msg;
  for (const auto& [rc, want] : r.at) {
    const auto [i, j] = rc;
    const float g = got[size_t(i) * d.N + j];
    ++checked;
    const double bound = allowed(want.first, want.second, d.K);
    if (bound > 0 && std::isfinite(g)) worst = std::max(worst, std::fabs(g - want.first) / bound);
    if (within(g, want.first, want.second, d.K)) continue;
    if (std::isnan(g)) ++unwritten;
    if (i >= d.M / T * T || j >= d.N / T * T) ++outside;
    if (wrong++ < 8)
      msg << "\n  [" << i << ", " << j << "] expected " << want.first << " got " << g << " (allowed error "
          << bound << ")";
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  record_evidence(got, d, checked, wrong, unwritten, outside, worst);
  return ::testing::AssertionFailure() << wrong << " of " << checked << " checked elements differ (C is " << d.M
                                       << "x" << d.N << ", K = " << d.K << ")" << msg.str();
}

struct Case {
  Variant variant;
  Dims dims;
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.variant.name << " on " << dims_name(c.dims); }

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variant.name) + "_" + dims_name(info.param.dims);
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Variant& v : variants())
    for (const Dims& d : test_dims()) out.push_back({v, d});
  return out;
}

// Variants whose kernel did not finish once: their remaining cases fail at once instead of each
// waiting for the watchdog again.
std::set<std::string>& timed_out_variants() {
  static std::set<std::string> names;
  return names;
}

class Sgemm : public ::testing::TestWithParam<Case> {
 protected:
  // A kernel fault is sticky for the whole process; reset so that the next case runs on a clean
  // device and reports its own result, not this one's error.
  void TearDown() override {
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaErrorLaunchTimeout) timed_out_variants().insert(GetParam().variant.name);
    if (err != cudaSuccess) cudaDeviceReset();
  }
};

// Run fn on d with A, B and C starting `offset` floats past a 256-byte boundary (all zero: aligned).
std::vector<float> run_gemm(Fn fn, const Dims& d, int offA = 0, int offB = 0, int offC = 0) {
  const Inputs& in = inputs(d);
  drills::DeviceBuffer<float> dA(in.A.size() + offA), dB(in.B.size() + offB), dC(size_t(d.M) * d.N + offC);
  std::vector<float> got(size_t(d.M) * d.N);
  if (!dA.ok() || !dB.ok() || !dC.ok()) {
    ADD_FAILURE() << "cudaMalloc failed for " << dims_name(d);
    return got;
  }
  float *A = dA.get() + offA, *B = dB.get() + offB, *C = dC.get() + offC;
  EXPECT_EQ(cudaMemcpy(A, in.A.data(), in.A.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(B, in.B.data(), in.B.size() * 4, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(drills::poison(dC), cudaSuccess);
  fn(A, B, C, d.M, d.N, d.K);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  EXPECT_EQ(err, cudaSuccess) << cudaGetErrorName(err) << ": " << cudaGetErrorString(err);
  if (err == cudaSuccess) EXPECT_EQ(drills::download(got.data(), C, got.size() * 4), cudaSuccess);
  return got;
}

TEST_P(Sgemm, MatchesHostReference) {
  const Case& c = GetParam();
  if (c.variant.fn == nullptr) GTEST_SKIP() << "sgemm_" << c.variant.name << " is not defined in this file";
  if (timed_out_variants().count(c.variant.name))
    FAIL() << "not run: an earlier launch of sgemm_" << c.variant.name << " did not finish";
  ::testing::Test::RecordProperty("shape", dims_name(c.dims));
  const std::vector<float> got = run_gemm(c.variant.fn, c.dims);
  if (HasFailure()) return;
  EXPECT_TRUE(check_product(got, c.dims)) << "sgemm_" << c.variant.name << ": C = A*B with A " << c.dims.M << "x"
                                          << c.dims.K << ", B " << c.dims.K << "x" << c.dims.N;
}

INSTANTIATE_TEST_SUITE_P(C4, Sgemm, ::testing::ValuesIn(cases()), case_name);

// float4 paths must not be taken when a row of A, B or C does not start on 16 bytes: the same
// product with each matrix in turn starting 1, 2 or 3 floats past an aligned address. K and N are
// multiples of 4 so that only the pointers make the vector path illegal.
struct OffsetCase {
  Variant variant;
  int which, offset;  // which: 0 = A, 1 = B, 2 = C
};

std::string offset_case_name(const ::testing::TestParamInfo<OffsetCase>& info) {
  static const char* names[] = {"A", "B", "C"};
  return std::string(info.param.variant.name) + "_offset" + names[info.param.which] +
         std::to_string(info.param.offset) + "_67x68x36";
}

class SgemmOffset : public ::testing::TestWithParam<OffsetCase> {
 protected:
  void TearDown() override {
    if (cudaDeviceSynchronize() != cudaSuccess) cudaDeviceReset();
  }
};

TEST_P(SgemmOffset, MatchesHostReference) {
  const OffsetCase& c = GetParam();
  if (c.variant.fn == nullptr) GTEST_SKIP() << "sgemm_" << c.variant.name << " is not defined in this file";
  const Dims d{67, 68, 36};
  const std::vector<float> got = run_gemm(c.variant.fn, d, c.which == 0 ? c.offset : 0, c.which == 1 ? c.offset : 0,
                                          c.which == 2 ? c.offset : 0);
  if (HasFailure()) return;
  EXPECT_TRUE(check_product(got, d)) << "sgemm_" << c.variant.name << " with the matrix starting " << c.offset
                                     << " floats past a 16-byte boundary";
}

std::vector<OffsetCase> offset_cases() {
  std::vector<OffsetCase> out;
  for (const Variant& v : variants())
    for (int which = 0; which < 3; ++which)
      for (int offset : {1, 2}) out.push_back({v, which, offset});
  return out;
}

INSTANTIATE_TEST_SUITE_P(C4, SgemmOffset, ::testing::ValuesIn(offset_cases()), offset_case_name);

}  // namespace
