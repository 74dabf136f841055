// G1: every HGEMM in the file under test against a float64 host reference. The same file judges
// mine/g1_hgemm.cu, solutions/g1_hgemm.cu and any file given to the judge with --file.
//
// hgemm_wmma and hgemm_mma are the contract: a file without them does not link. The other
// functions are declared weak: tested when the file defines them, skipped (and never counted as a
// pass) when it does not. The judged shapes have M, N and K multiples of 16, not of the block tiles.
//
// Tolerance: a product of two halves is exact in float (11 + 11 significant bits ≤ 24), so the only
// error is the float accumulation. Summing K exact terms in float, in any order, is off by at most
// K·u·Σ_k|a_ik·b_kj| (u = 2^-23 even when the adder truncates); a tensor core aligns the 16 products
// of one mma and the running sum to the largest before it adds, which can lose up to one unit per
// term, so the tests allow twice that: |C − Ĉ| ≤ K·2^-22·Σ_k|a_ik·b_kj| (content/g1.md §4). A
// 16-bit accumulator misses this by orders of magnitude; the all-ones and small-integer cases,
// whose sums are integers below 2^24, must be exact.
#include "g1_hgemm.h"
#include "support/drills_test.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace {

using Fn = void (*)(const __half*, const __half*, float*, int, int, int);

struct Variant {
  const char* name;
  Fn fn;  // nullptr when the file under test does not define it
};

std::vector<Variant> variants() {
  return {{"wmma", hgemm_wmma},
          {"mma", hgemm_mma},
          {"fast", hgemm_fast},
          {"mma_unswizzled", hgemm_mma_unswizzled},
          {"cp_async", hgemm_cp_async},
          {"multistage", hgemm_multistage}};
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
    if (m > 0 && n > 0 && k > 0 && m <= INT32_MAX && n <= INT32_MAX && k <= INT32_MAX)
      out.push_back({int(m), int(n), int(k)});
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

enum class Fill { normal, ones, small_integers };

// A and B as halves, and the same values as doubles for the reference.
struct Inputs {
  std::vector<__half> A, B;
  std::vector<double> a, b;
};

std::vector<__half> halves(size_t n, Fill fill, uint32_t salt) {
  std::mt19937 gen(drills::seed() * 2654435761u + salt);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<__half> v(n);
  for (auto& x : v) {
    float f = 1.0f;
    if (fill == Fill::normal) {
      do f = __half2float(__float2half(normal(gen))); while (f == 0.0f);  // a zero hides unwritten outputs
    } else if (fill == Fill::small_integers) {
      const float choices[] = {-2.0f, -1.0f, 1.0f, 2.0f};
      f = choices[gen() % 4];
    }
    x = __float2half(f);
  }
  return v;
}

const Inputs& inputs(const Dims& d, Fill fill) {
  static std::map<std::pair<Dims, Fill>, Inputs> cache;
  auto it = cache.find({d, fill});
  if (it == cache.end()) {
    Inputs in;
    in.A = halves(size_t(d.M) * d.K, fill, d.M * 131u + d.K);
    in.B = halves(size_t(d.K) * d.N, fill, d.N * 137u + d.K + 1);
    for (const __half& h : in.A) in.a.push_back(__half2float(h));
    for (const __half& h : in.B) in.b.push_back(__half2float(h));
    it = cache.emplace(std::make_pair(d, fill), std::move(in)).first;
  }
  return it->second;
}

// The exact product (float64: every product and every partial sum of these inputs is exact or off
// by far less than the tolerance) and Σ|a·b| for the elements checked: all of C when the product is
// small, else whole rows and columns at both edges (where the partial tiles are) and inside.
struct Reference {
  std::map<std::pair<int, int>, std::pair<double, double>> at;  // (r, c) -> (value, Σ|a b|)
};

const Reference& reference(const Dims& d, Fill fill) {
  static std::map<std::pair<Dims, Fill>, Reference> cache;
  auto it = cache.find({d, fill});
  if (it != cache.end()) return it->second;
  const Inputs& in = inputs(d, fill);
  Reference r;
  std::vector<int> rows, cols;
  if (double(d.M) * d.N * d.K <= 3e8) {
    for (int i = 0; i < d.M; ++i) rows.push_back(i);
  } else {
    std::set<int> rs{0, 1, d.M / 2, d.M - 2, d.M - 1}, cs{0, 1, d.N / 2, d.N - 2, d.N - 1};
    rows.assign(rs.begin(), rs.end());
    cols.assign(cs.begin(), cs.end());
  }
  std::vector<double> v(d.N), s(d.N);
  for (int i : rows) {
    std::fill(v.begin(), v.end(), 0.0);
    std::fill(s.begin(), s.end(), 0.0);
    for (int k = 0; k < d.K; ++k) {
      const double x = in.a[size_t(i) * d.K + k];
      const double* b = &in.b[size_t(k) * d.N];
      for (int j = 0; j < d.N; ++j) {
        v[j] += x * b[j];
        s[j] += std::fabs(x * b[j]);
      }
    }
    for (int j = 0; j < d.N; ++j) r.at[{i, j}] = {v[j], s[j]};
  }
  for (int j : cols)
    for (int i = 0; i < d.M; ++i) {
      double t = 0, u = 0;
      for (int k = 0; k < d.K; ++k) {
        const double p = in.a[size_t(i) * d.K + k] * in.b[size_t(k) * d.N + j];
        t += p;
        u += std::fabs(p);
      }
      r.at[{i, j}] = {t, u};
    }
  return cache.emplace(std::make_pair(d, fill), std::move(r)).first->second;
}

// The manifest's tolerance (CMake passes it): dot_factor * K * 2^-24 * sum_k |a_ik * b_kj|.
#ifndef DRILLS_DOT_FACTOR
#error "DRILLS_DOT_FACTOR: the manifest's tolerance.dot_factor, passed by CMake"
#endif
double bound(double abs_sum, int K) { return DRILLS_DOT_FACTOR * K * std::ldexp(1.0, -24) * abs_sum; }

bool within(double got, double want, double abs_sum, int K) { return std::fabs(got - want) <= bound(abs_sum, K); }

// Does `got` equal, within the bound, C computed from `a_at(i, k)` and `b_at(k, j)` over the first
// `kt` values of k? Whole-C comparisons for the evidence below; small shapes only.
template <class FA, class FB>
bool matches_everywhere(const std::vector<float>& got, const Dims& d, int kt, FA a_at, FB b_at) {
  for (int i = 0; i < d.M; ++i)
    for (int j = 0; j < d.N; ++j) {
      double s = 0, t = 0;
      for (int k = 0; k < kt; ++k) {
        const double p = a_at(i, k) * b_at(k, j);
        s += p;
        t += std::fabs(p);
      }
      if (!(std::fabs(got[size_t(i) * d.N + j] - s) <= bound(t, std::max(kt, 1)) + 1e-30)) return false;
    }
  return true;
}

// Facts about a wrong C that the judge turns into named diagnoses (drills/diagnose.py reads them
// by name; the judge never reads the learner's source).
void record_evidence(const std::vector<float>& got, const Dims& d, Fill fill, size_t checked, size_t wrong,
                     size_t unwritten, size_t wrong_outside_tiles, double worst) {
  using ::testing::Test;
  // How many elements were compared: all of C on small shapes, whole rows and columns on large
  // ones. "Nothing written" is unwritten == checked, whatever the shape.
  Test::RecordProperty("checked", std::to_string(checked));
  Test::RecordProperty("wrong", std::to_string(wrong));
  Test::RecordProperty("unwritten", std::to_string(unwritten));
  Test::RecordProperty("wrong_outside_whole_tiles", std::to_string(wrong_outside_tiles));
  Test::RecordProperty("worst_error_over_bound", std::to_string(worst));
  Test::RecordProperty("k_mod_32", std::to_string(d.K % 32));
  // Every output a 16-bit float while the true values are not: the sums were kept in half.
  size_t in_half = 0, finite = 0;
  for (float g : got) {
    if (!std::isfinite(g)) continue;
    ++finite;
    in_half += __half2float(__float2half(g)) == g;
  }
  Test::RecordProperty("outputs_representable_in_half", finite && in_half == finite ? "1" : "0");
  if (double(d.M) * d.N * d.K > 2e7 || fill != Fill::normal) return;
  const Inputs& in = inputs(d, fill);
  auto A = [&](int i, int k) { return in.a[size_t(i) * d.K + k]; };
  auto B = [&](int k, int j) { return in.b[size_t(k) * d.N + j]; };
  // The product over the first kt values of k only: a kernel that drops the last partial tile.
  int truncated_to = 0;
  for (int tile : {128, 64, 32}) {
    const int kt = d.K / tile * tile;
    if (kt != d.K && matches_everywhere(got, d, kt, A, B)) {
      truncated_to = tile;
      break;
    }
  }
  Test::RecordProperty("wrong_matches_k_truncated_to_tile", std::to_string(truncated_to));
  // Fragment layouts: an 8×8 block of an operand read transposed (ldmatrix with and without .trans
  // swapped) turns A·B into A'·B or A·B', where ' transposes every aligned 8×8 block.
  auto blockT = [](int r, int c) { return std::make_pair(r / 8 * 8 + c % 8, c / 8 * 8 + r % 8); };
  const bool a_blocks = d.M % 8 == 0 && d.K % 8 == 0 && matches_everywhere(got, d, d.K, [&](int i, int k) {
                          const auto [r, c] = blockT(i, k);
                          return A(r, c);
                        }, B);
  const bool b_blocks = d.K % 8 == 0 && d.N % 8 == 0 && matches_everywhere(got, d, d.K, A, [&](int k, int j) {
                          const auto [r, c] = blockT(k, j);
                          return B(r, c);
                        });
  Test::RecordProperty("wrong_matches_a_blocks_transposed", a_blocks ? "1" : "0");
  Test::RecordProperty("wrong_matches_b_blocks_transposed", b_blocks ? "1" : "0");
  // The right numbers in the wrong places: each 16×8 mma tile of C holds the values of the true
  // tile, permuted (an accumulator register stored to the wrong row or column).
  const Reference& ref = reference(d, fill);
  size_t tiles = 0, permuted = 0;
  for (int i0 = 0; i0 + 16 <= d.M; i0 += 16)
    for (int j0 = 0; j0 + 8 <= d.N; j0 += 8) {
      std::vector<float> g, w;
      for (int i = i0; i < i0 + 16; ++i)
        for (int j = j0; j < j0 + 8; ++j) {
          g.push_back(got[size_t(i) * d.N + j]);
          w.push_back(float(ref.at.at({i, j}).first));
        }
      ++tiles;
      if (g == w) continue;
      std::sort(g.begin(), g.end());
      std::sort(w.begin(), w.end());
      bool same = true;
      for (size_t e = 0; e < g.size() && same; ++e) same = std::fabs(g[e] - w[e]) <= 1e-3f * (1 + std::fabs(w[e]));
      permuted += same;
    }
  Test::RecordProperty("wrong_tiles_16x8_permuted", std::to_string(permuted));
  Test::RecordProperty("tiles_16x8", std::to_string(tiles));
}

// Compare with the reference; on failure, the first mismatches as "[r, c] expected X got Y".
::testing::AssertionResult check_product(const std::vector<float>& got, const Dims& d, Fill fill) {
  const Reference& r = reference(d, fill);
  const bool exact = fill != Fill::normal;  // integer sums below 2^24: float is exact
  constexpr int T = 128;  // the skeleton's block tile: rows and columns past the last whole tile are the tails
  size_t wrong = 0, unwritten = 0, outside = 0, checked = 0;
  double worst = 0;
  std::ostringstream msg;
  for (const auto& [rc, want] : r.at) {
    const auto [i, j] = rc;
    const float g = got[size_t(i) * d.N + j];
    ++checked;
    const double allowed = exact ? 0.0 : bound(want.second, d.K);
    if (allowed > 0 && std::isfinite(g)) worst = std::max(worst, std::fabs(g - want.first) / allowed);
    if (exact ? g == want.first : within(g, want.first, want.second, d.K)) continue;
    if (std::isnan(g)) ++unwritten;
    if (i >= d.M / T * T || j >= d.N / T * T) ++outside;
    if (wrong++ < 8)
      msg << "\n  [" << i << ", " << j << "] expected " << want.first << " got " << g << " (allowed error "
          << allowed << ")";
  }
  if (wrong == 0) return ::testing::AssertionSuccess();
  record_evidence(got, d, fill, checked, wrong, unwritten, outside, worst);
  return ::testing::AssertionFailure() << wrong << " of " << checked << " checked elements differ (C is " << d.M
                                       << "x" << d.N << ", K = " << d.K << ")" << msg.str();
}

// Variants whose kernel did not finish once: their remaining cases fail at once instead of each
// waiting for the watchdog again.
std::set<std::string>& timed_out_variants() {
  static std::set<std::string> names;
  return names;
}

// Run fn on d's inputs with C poisoned first; C comes back (NaN where nothing was written).
std::vector<float> run_gemm(Fn fn, const Dims& d, Fill fill) {
  const Inputs& in = inputs(d, fill);
  drills::DeviceBuffer<__half> dA(in.A.size()), dB(in.B.size());
  drills::DeviceBuffer<float> dC(size_t(d.M) * d.N);
  std::vector<float> got(size_t(d.M) * d.N);
  if (!dA.ok() || !dB.ok() || !dC.ok()) {
    ADD_FAILURE() << "cudaMalloc failed for " << dims_name(d);
    return got;
  }
  EXPECT_EQ(cudaMemcpy(dA.get(), in.A.data(), dA.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(dB.get(), in.B.data(), dB.bytes(), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(drills::poison(dC), cudaSuccess);
  fn(dA.get(), dB.get(), dC.get(), d.M, d.N, d.K);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  EXPECT_EQ(err, cudaSuccess) << cudaGetErrorName(err) << ": " << cudaGetErrorString(err);
  if (err == cudaSuccess) EXPECT_EQ(drills::download(got.data(), dC.get(), dC.bytes()), cudaSuccess);
  return got;
}

struct Case {
  Variant variant;
  Dims dims;
  Fill fill;
};

const char* fill_name(Fill f) { return f == Fill::normal ? "" : f == Fill::ones ? "ones_" : "integers_"; }

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.variant.name << " on " << fill_name(c.fill) << dims_name(c.dims);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variant.name) + "_" + fill_name(info.param.fill) + dims_name(info.param.dims);
}

// N(0,1) inputs at every shape; then exactness: all ones (C = K everywhere) and values from
// {-2, -1, 1, 2}, at a shape with partial tiles in M, N and K.
std::vector<Case> cases() {
  std::vector<Case> out;
  for (const Variant& v : variants()) {
    for (const Dims& d : test_dims()) out.push_back({v, d, Fill::normal});
    out.push_back({v, {48, 80, 528}, Fill::ones});
    out.push_back({v, {144, 272, 80}, Fill::small_integers});
  }
  return out;
}

class Hgemm : public ::testing::TestWithParam<Case> {
 protected:
  // A kernel fault is sticky for the whole process; reset so that the next case runs on a clean
  // device and reports its own result, not this one's error.
  void TearDown() override {
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaErrorLaunchTimeout) timed_out_variants().insert(GetParam().variant.name);
    if (err != cudaSuccess) cudaDeviceReset();
  }
};

TEST_P(Hgemm, MatchesHostReference) {
  const Case& c = GetParam();
  if (c.variant.fn == nullptr) GTEST_SKIP() << "hgemm_" << c.variant.name << " is not defined in this file";
  if (timed_out_variants().count(c.variant.name))
    FAIL() << "not run: an earlier launch of hgemm_" << c.variant.name << " did not finish";
  ::testing::Test::RecordProperty("shape", dims_name(c.dims));
  const std::vector<float> got = run_gemm(c.variant.fn, c.dims, c.fill);
  if (HasFailure()) return;
  EXPECT_TRUE(check_product(got, c.dims, c.fill))
      << "hgemm_" << c.variant.name << ": C = A*B with A " << c.dims.M << "x" << c.dims.K << ", B " << c.dims.K
      << "x" << c.dims.N << (c.fill == Fill::normal ? "" : ", integer inputs: the sums must be exact");
}

INSTANTIATE_TEST_SUITE_P(G1, Hgemm, ::testing::ValuesIn(cases()), case_name);

}  // namespace
