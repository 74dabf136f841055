// A DeviceMemory for tests: allocations at device addresses far from host pointers, 4 KiB apart,
// so an access just past one allocation lands in no allocation.
#pragma once

#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "engine.h"

namespace simtest {

class TestMemory : public sim::DeviceMemory {
 public:
  uint8_t* translate(uint64_t addr, uint64_t size) override {
    auto it = allocs_.upper_bound(addr);
    if (it == allocs_.begin()) return nullptr;
    --it;
    Alloc& a = it->second;
    if (addr < a.info.base || addr - a.info.base > a.info.size || size > a.info.size - (addr - a.info.base)) return nullptr;
    return a.bytes.data() + (addr - a.info.base);
  }
  const sim::Allocation* nearest(uint64_t addr) const override {
    auto it = allocs_.upper_bound(addr);
    if (it == allocs_.begin()) return nullptr;
    --it;
    return &it->second.info;
  }
  uint64_t allocate(uint64_t size, const std::string& label) override {
    uint64_t base = next_;
    next_ += (size + 4096 + 255) / 256 * 256;
    Alloc& a = allocs_[base];
    a.info = {base, size, label};
    a.bytes.assign(size, 0);
    return base;
  }
  uint64_t alloc(uint64_t size) {
    return allocate(size, "cudaMalloc #" + std::to_string(++count_) + " (" + std::to_string(size) + " bytes)");
  }
  template <class T>
  uint64_t upload(const std::vector<T>& v) {
    uint64_t a = alloc(v.size() * sizeof(T));
    memcpy(translate(a, v.size() * sizeof(T)), v.data(), v.size() * sizeof(T));
    return a;
  }
  template <class T>
  std::vector<T> download(uint64_t a, size_t n) {
    std::vector<T> v(n);
    memcpy(v.data(), translate(a, n * sizeof(T)), n * sizeof(T));
    return v;
  }

 private:
  struct Alloc {
    sim::Allocation info;
    std::vector<uint8_t> bytes;
  };
  std::map<uint64_t, Alloc> allocs_;
  uint64_t next_ = 0x7f0000000000ull;
  int count_ = 0;
};

inline std::string read_ptx(const std::string& name) {
  std::ifstream f(std::string(SIM_PTX_DIR) + "/" + name);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// Builds LaunchParams::args from values.
struct Args {
  std::vector<std::vector<uint8_t>> store;
  std::vector<void*> ptrs;
  template <class T>
  Args& add(T v) {
    store.emplace_back(sizeof(T));
    memcpy(store.back().data(), &v, sizeof(T));
    return *this;
  }
  void** get() {
    ptrs.clear();
    for (auto& s : store) ptrs.push_back(s.data());
    return ptrs.data();
  }
};

}  // namespace simtest
