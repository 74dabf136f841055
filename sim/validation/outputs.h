// What a validation program prints so that compare.py --outputs can hold the simulator's results
// to the GPU's, line by line:
//   result NAME DIGEST        bit patterns that must be identical (FNV-1a of the bytes)
//   values NAME W HEX...      W-byte bit patterns compared one by one, within compare.py's
//                             tolerance for NAME (in units in the last place)
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

inline uint64_t digest(const void* data, size_t bytes) {
  const unsigned char* p = static_cast<const unsigned char*>(data);
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}
template <class T>
void print_result(const char* name, const std::vector<T>& v) {
  std::printf("result %s %016llx\n", name, (unsigned long long)digest(v.data(), v.size() * sizeof(T)));
}
template <class T>
void print_values(const char* name, const std::vector<T>& v) {
  static_assert(sizeof(T) == 2 || sizeof(T) == 4, "16- or 32-bit patterns");
  std::printf("values %s %d", name, int(sizeof(T)));
  for (const T& x : v) {
    uint32_t b = 0;
    std::memcpy(&b, &x, sizeof(T));
    std::printf(sizeof(T) == 2 ? " %04x" : " %08x", b);
  }
  std::printf("\n");
}
