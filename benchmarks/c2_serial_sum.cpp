// Evidence for content/c2.md §9 and the comment on tolerance() in tests/c2_reduction_test.cu: how
// far one float32 running sum (a single serial chain) of the tests' positive inputs lands from the
// exact sum, in units of the tests' tolerance 8 sqrt(n) u sum|x| + u |sum|. Host only, no GPU:
//   g++ -O2 -std=c++17 benchmarks/c2_serial_sum.cpp -o /tmp/serial && /tmp/serial
// The inputs are those of tests/c2_reduction_test.cu (drills::random_floats with salt 3n + 1, then
// |x|), so the numbers hold for the default seed 20261129.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

int main() {
  const uint32_t seed = 20261129u;
  const double u = std::ldexp(1.0, -24);
  std::printf("%12s %16s %16s %14s %14s %10s\n", "n", "exact sum", "float32 chain", "error", "tolerance", "error/tol");
  const long long lengths[] = {1000000, 10000000, 1 << 24, 30000000, 40000000, 1 << 26, 1 << 28};
  for (long long n : lengths) {
    std::mt19937 gen(seed * 2654435761u + static_cast<uint32_t>(3 * n + 1));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    double exact = 0;
    float chain = 0;
    for (long long i = 0; i < n; ++i) {
      float x;
      do x = dist(gen); while (x == 0.0f);
      x = std::fabs(x);
      exact += x;   // every float is exact in double; n * 2^-53 relative error is negligible here
      chain += x;   // one serial float32 chain
    }
    const double tol = 8.0 * std::sqrt(static_cast<double>(n)) * u * exact + u * exact;
    const double err = std::fabs(chain - exact);
    std::printf("%12lld %16.1f %16.1f %14.1f %14.1f %10.3f\n", n, exact, static_cast<double>(chain), err, tol, err / tol);
  }
  return 0;
}
