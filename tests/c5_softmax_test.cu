// C5: every softmax in the file under test against a float64 host reference. The same file judges
// mine/c5_softmax.cu, solutions/c5_softmax.cu and any file given to the judge with --file.
//
// softmax_naive and softmax_online are the contract: a file without them does not link. The other
// functions are declared weak: tested when the file defines them, skipped (and never counted as a
// pass) when it does not.
//
// Each shape runs with four kinds of input:
//   uniform  x in [-1, 1), never 0;
//   scaled   the same times 1000: e^x overflows float unless the row's maximum is subtracted first;
//   neginf   every fifth element -inf, and (with two rows or more) the last row all -inf: y = 0 where
//            x = -inf, and NaN on the all -inf row, as torch.softmax gives;
//   latemax  uniform, plus 8 on the last quarter of each row: every thread's running maximum moves
//            late, so a running sum that is not rescaled when it moves is wrong by a factor ~e^8.
//
// Tolerance (content/c5.md derives it): with t = max - x the element's distance to the row's
// maximum and n = cols, |got - want| <= want * eps(n, t) + 2^-126, where
//   eps(n, t) = 2^-23 * (64 + 1.2 * (t + ln n + 1)) + 2^-21 * sqrt(n),
// which admits __expf (2 + 1.17 |t| ulp, CUDA Programming Guide), the rescalings of up to ~17
// combining steps and any summation order; and every row that is not all -inf sums to 1 within
// 2 * eps(n, ln n + 1).
#include "c5_softmax.h"
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
  return {{"naive", softmax_naive},         {"online", softmax_online}, {"by_width", softmax_by_width},
          {"registers", softmax_registers}, {"split", softmax_split},   {"fast", softmax_fast}};
}

const char* const kKinds[] = {"uniform", "scaled", "neginf", "latemax"};

std::vector<float> make_input(const std::string& kind, int rows, int cols, uint32_t salt) {
  std::vector<float> x = drills::random_floats(static_cast<size_t>(rows) * cols, salt);
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      float& v = x[static_cast<size_t>(r) * cols + c];
      if (kind == "scaled") v *= 1000.0f;
      if (kind == "neginf" && ((r * 31 + c) % 5 == 0 || (rows > 1 && r == rows - 1))) v = -INFINITY;
      if (kind == "latemax" && c >= cols - cols / 4) v += 8.0f;
    }
  }
  return x;
}

// The test fills y with 0xFF bytes before each run: a NaN no arithmetic produces.
bool is_poison(float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits == 0xffffffffu;
}

double eps(double n, double t) { return std::ldexp(64.0 + 1.2 * (t + std::log(n) + 1.0), -23) + std::ldexp(std::sqrt(n), -21); }

// What was wrong, as facts the judge turns into named diagnoses (the judge never reads the learner's
// source). "scaled rows": wrong rows whose written elements are all want * one factor (the
// normalising sum is wrong, the exponentials are right).
struct Evidence {
  size_t wrong = 0, unwritten = 0, nonfinite = 0, wrong_rows = 0, scaled_rows = 0;
  long first_wrong_col = -1, first_unwritten_col = -1;
  double scale_lo = 0, scale_hi = 0, worst = 0;  // worst: max |got - want| / tolerance
  void record(const char* kind) const {
    auto put = [](const char* k, const std::string& v) { ::testing::Test::RecordProperty(k, v); };
    put("inputs", kind);
    put("wrong", std::to_string(wrong));
    put("unwritten", std::to_string(unwritten));
    put("nonfinite", std::to_string(nonfinite));
    put("wrong_rows", std::to_string(wrong_rows));
    put("scaled_rows", std::to_string(scaled_rows));
    put("first_wrong_col", std::to_string(first_wrong_col));
    put("first_unwritten_col", std::to_string(first_unwritten_col));
    put("scale_lo", std::to_string(scale_lo));
    put("scale_hi", std::to_string(scale_hi));
  }
};

// Compares one result with the float64 softmax of x; fills ev and returns the failure message
// ("" when every element and every row sum is within tolerance).
std::string compare(const std::vector<float>& x, const std::vector<float>& got, int rows, int cols, Evidence& ev) {
  std::ostringstream msg;
  int reported = 0;
  std::vector<double> want(cols);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x.data() + static_cast<size_t>(r) * cols;
    const float* gr = got.data() + static_cast<size_t>(r) * cols;
    double m = -INFINITY;
    for (int c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(xr[c]));
    double d = 0;
    for (int c = 0; c < cols; ++c) d += std::exp(xr[c] - m);  // all -inf: exp(NaN), NaN everywhere
    bool row_wrong = false;
    double lo = INFINITY, hi = -INFINITY, sum = 0;
    for (int c = 0; c < cols; ++c) {
      want[c] = std::exp(xr[c] - m) / d;
      const double g = gr[c], w = want[c];
      // x = -inf: t = inf. DRILLS_ATOL / DRILLS_RTOL: the manifest's loosening (0 unless an instructor sets it).
      const double tol = (w > 0 ? w * eps(cols, m - xr[c]) : 0.0) + std::ldexp(1.0, -126) + DRILLS_ATOL +
                         (std::isnan(w) ? 0.0 : DRILLS_RTOL * std::fabs(w));
      const bool ok = std::isnan(w) ? std::isnan(g) && !is_poison(gr[c]) : std::fabs(g - w) <= tol;
      if (!std::isnan(w) && std::isfinite(g)) ev.worst = std::max(ev.worst, std::fabs(g - w) / tol);
      sum += g;
      if (ok) continue;
      row_wrong = true;
      ++ev.wrong;
      if (ev.first_wrong_col < 0 || c < ev.first_wrong_col) ev.first_wrong_col = c;
      if (is_poison(gr[c])) {
        ++ev.unwritten;
        if (ev.first_unwritten_col < 0 || c < ev.first_unwritten_col) ev.first_unwritten_col = c;
      }
      if (!std::isfinite(g) && !std::isnan(w)) ++ev.nonfinite;
      if (reported < 8) {
        msg << "\n  [" << r << ", " << c << "] expected " << w << " got " << g << " (x = " << xr[c] << ")";
        ++reported;
      }
    }
    if (!row_wrong) {
      const double t = std::log(static_cast<double>(cols)) + 1;
      if (!std::isnan(d) && std::fabs(sum - 1) > 2 * eps(cols, t) + cols * std::ldexp(1.0, -126)) {
        ++ev.wrong_rows;
        if (reported++ < 8) msg << "\n  row " << r << " sums to " << sum << ", not 1";
      }
      continue;
    }
    ++ev.wrong_rows;
    for (int c = 0; c < cols; ++c) {  // one factor for the whole row?
      const double g = gr[c], w = want[c];
      if (!(w >= 1e-30) || !std::isfinite(g)) continue;
      lo = std::min(lo, g / w), hi = std::max(hi, g / w);
    }
    if (lo <= hi && hi - lo <= 1e-3 * hi && std::fabs(hi - 1) > 1e-3) {
      ++ev.scaled_rows;
      ev.scale_lo = ev.scaled_rows == 1 ? lo : std::min(ev.scale_lo, lo);
      ev.scale_hi = ev.scaled_rows == 1 ? hi : std::max(ev.scale_hi, hi);
    }
  }
  if (ev.wrong == 0 && ev.wrong_rows == 0) return "";
  std::ostringstream head;
  head << ev.wrong << " of " << static_cast<size_t>(rows) * cols << " elements wrong, " << ev.wrong_rows << " of "
       << rows << " rows" << msg.str();
  return head.str();
}

struct Case {
  Variant variant;
  std::string kind;
  Shape shape;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.variant.name << " on " << c.kind << " " << drills::shape_name(c.shape);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return std::string(info.param.variant.name) + "_" + info.param.kind + "_" + drills::shape_name(info.param.shape);
}

// The GPU-only shapes (tens of millions of elements: the float64 reference takes a second each) run
// with two kinds of input: uniform, and latemax, whose moving maximum tests the split rows' combine.
std::vector<Case> cases() {
  const std::vector<Shape> gpu_only = drills::parse_shapes(DRILLS_GPU_SHAPES);
  std::vector<Case> out;
  for (const Variant& v : variants())
    for (const char* k : kKinds)
      for (const Shape& s : drills::test_shapes()) {
        const bool big = std::find(gpu_only.begin(), gpu_only.end(), s) != gpu_only.end();
        if (big && std::string(k) != "uniform" && std::string(k) != "latemax") continue;
        out.push_back({v, k, s});
      }
  return out;
}

// Variants whose kernel did not finish once: their remaining cases fail at once instead of each
// waiting for the watchdog again.
std::set<std::string>& timed_out_variants() {
  static std::set<std::string> names;
  return names;
}

class Softmax : public ::testing::TestWithParam<Case> {
 protected:
  // A kernel fault is sticky for the whole process; reset so that the next case runs on a clean
  // device and reports its own result, not this one's error.
  void TearDown() override {
    const cudaError_t err = cudaDeviceSynchronize();
    if (err == cudaErrorLaunchTimeout) timed_out_variants().insert(GetParam().variant.name);
    if (err != cudaSuccess) cudaDeviceReset();
  }
};

// Runs fn on x (rows × cols) at `offset` floats past the allocations' start and returns y.
std::vector<float> run(Fn fn, const std::vector<float>& x, int rows, int cols, int offset, bool& ok) {
  const size_t n = static_cast<size_t>(rows) * cols;
  std::vector<float> got(n);
  ok = false;
  drills::DeviceBuffer<float> dx(n + offset), dy(n + offset);
  EXPECT_TRUE(dx.ok() && dy.ok()) << "cudaMalloc failed for " << rows << "x" << cols;
  if (!dx.ok() || !dy.ok()) return got;
  EXPECT_EQ(cudaMemcpy(dx.get() + offset, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(drills::poison(dy), cudaSuccess);
  fn(dx.get() + offset, dy.get() + offset, rows, cols);
  cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) err = cudaDeviceSynchronize();
  EXPECT_EQ(err, cudaSuccess) << cudaGetErrorName(err) << ": " << cudaGetErrorString(err);
  if (err != cudaSuccess) return got;
  EXPECT_EQ(drills::download(got.data(), dy.get() + offset, n * sizeof(float)), cudaSuccess);
  ok = true;
  return got;
}

TEST_P(Softmax, MatchesHostReference) {
  const Case& c = GetParam();
  if (c.variant.fn == nullptr) GTEST_SKIP() << "softmax_" << c.variant.name << " is not defined in this file";
  if (timed_out_variants().count(c.variant.name))
    FAIL() << "not run: an earlier launch of softmax_" << c.variant.name << " did not finish";
  const int rows = c.shape.first, cols = c.shape.second;
  ::testing::Test::RecordProperty("shape", drills::shape_name(c.shape));
  const std::vector<float> x = make_input(c.kind, rows, cols, rows * 31u + cols);
  bool ran = false;
  const std::vector<float> got = run(c.variant.fn, x, rows, cols, 0, ran);
  if (!ran) return;
  Evidence ev;
  const std::string wrong = compare(x, got, rows, cols, ev);
  ::testing::Test::RecordProperty("worst_error_over_tolerance", std::to_string(ev.worst));
  if (!wrong.empty()) ev.record(c.kind.c_str());
  EXPECT_TRUE(wrong.empty()) << "softmax_" << c.variant.name << " on " << c.kind << " x of " << rows << "x" << cols
                             << ": " << wrong;
}

INSTANTIATE_TEST_SUITE_P(C5, Softmax, ::testing::ValuesIn(cases()), case_name);

// Rows that do not start on a 16-byte boundary (x and y one float past it, cols a multiple of 4):
// a float4 path must notice and fall back to scalar accesses.
class Unaligned : public ::testing::TestWithParam<Shape> {};

TEST_P(Unaligned, FastMatchesHostReference) {
  if (softmax_fast == nullptr) GTEST_SKIP() << "softmax_fast is not defined in this file";
  const int rows = GetParam().first, cols = GetParam().second;
  const std::vector<float> x = make_input("uniform", rows, cols, 99);
  bool ran = false;
  const std::vector<float> got = run(softmax_fast, x, rows, cols, 1, ran);
  if (!ran) return;
  Evidence ev;
  const std::string wrong = compare(x, got, rows, cols, ev);
  EXPECT_TRUE(wrong.empty()) << "softmax_fast, rows one float past 16 bytes, " << rows << "x" << cols << ": " << wrong;
}

INSTANTIATE_TEST_SUITE_P(C5, Unaligned, ::testing::Values(Shape{3, 128}, Shape{2, 1024}, Shape{2, 8192}));

// Rows longer than 65536 floats take softmax_fast's task kernel (pieces of a row read twice, the
// second time from L2, with the row's parts exchanged between blocks): small enough for the
// simulator, several pieces a row, a last piece cut short, and every kind of input (the -inf rows
// give pieces that are all -inf inside a finite row, and a row that is all -inf).
class LongRows : public ::testing::TestWithParam<Shape> {};

TEST_P(LongRows, FastMatchesHostReference) {
  if (softmax_fast == nullptr) GTEST_SKIP() << "softmax_fast is not defined in this file";
  const int rows = GetParam().first, cols = GetParam().second;
  for (const char* kind : kKinds) {
    std::vector<float> x = make_input(kind, rows, cols, 7);
    if (std::string(kind) == "neginf")
      for (int c = 0; c < cols / 2; ++c) x[c] = -INFINITY;  // whole pieces of -inf in row 0
    bool ran = false;
    const std::vector<float> got = run(softmax_fast, x, rows, cols, 0, ran);
    if (!ran) return;
    Evidence ev;
    const std::string wrong = compare(x, got, rows, cols, ev);
    EXPECT_TRUE(wrong.empty()) << "softmax_fast, " << kind << " inputs, " << rows << "x" << cols << ": " << wrong;
  }
}

INSTANTIATE_TEST_SUITE_P(C5, LongRows, ::testing::Values(Shape{1, 65540}, Shape{3, 70000}));

// The copy kernel is the chapter's upper bound; it must copy, or its speed means nothing.
TEST(C5Copy, CopiesEveryElement) {
  if (copy_vec4 == nullptr) GTEST_SKIP() << "copy_vec4 is not defined in this file";
  for (const Shape& s : drills::parse_shapes(DRILLS_PUBLIC_SHAPES)) {
    const std::vector<float> x = drills::random_floats(static_cast<size_t>(s.first) * s.second, 7);
    bool ran = false;
    const std::vector<float> got = run(copy_vec4, x, s.first, s.second, 0, ran);
    if (ran) EXPECT_TRUE(drills::matrices_equal(x, got, s.first, s.second)) << "copy_vec4 on " << drills::shape_name(s);
  }
}

// Exercise: log softmax, y = x - max - log(sum e^(x - max)). Absolute error: the rounding of x - max
// and of the shift, and the sum's relative error (eps) carried into its logarithm.
class LogSoftmax : public ::testing::TestWithParam<Shape> {};

TEST_P(LogSoftmax, MatchesHostReference) {
  if (log_softmax_online == nullptr) GTEST_SKIP() << "log_softmax_online is not defined in this file";
  const int rows = GetParam().first, cols = GetParam().second;
  for (const char* kind : kKinds) {
    const std::vector<float> x = make_input(kind, rows, cols, 5);
    bool ran = false;
    const std::vector<float> got = run(log_softmax_online, x, rows, cols, 0, ran);
    if (!ran) return;
    size_t bad = 0;
    std::ostringstream msg;
    for (int r = 0; r < rows; ++r) {
      const float* xr = x.data() + static_cast<size_t>(r) * cols;
      double m = -INFINITY, d = 0;
      for (int c = 0; c < cols; ++c) m = std::max(m, static_cast<double>(xr[c]));
      for (int c = 0; c < cols; ++c) d += std::exp(xr[c] - m);
      const double shift = m + std::log(d);
      for (int c = 0; c < cols; ++c) {
        const double w = xr[c] - shift, g = got[static_cast<size_t>(r) * cols + c];
        const double tol = (std::fabs(xr[c]) + std::fabs(m) + std::fabs(std::log(d))) * std::ldexp(1.0, -22) +
                           eps(cols, std::log(static_cast<double>(cols)) + 1);
        const bool ok = std::isnan(w) ? std::isnan(g) && !is_poison(static_cast<float>(g))
                                      : (std::isinf(w) ? g == w : std::fabs(g - w) <= tol);
        if (ok) continue;
        if (bad++ < 8) msg << "\n  [" << r << ", " << c << "] expected " << w << " got " << g;
      }
    }
    EXPECT_EQ(bad, 0u) << "log_softmax_online on " << kind << " " << rows << "x" << cols << msg.str();
  }
}

INSTANTIATE_TEST_SUITE_P(C5, LogSoftmax, ::testing::Values(Shape{1, 1}, Shape{3, 33}, Shape{4, 1024}, Shape{2, 4097}));

}  // namespace
