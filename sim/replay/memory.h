// Device memory of a replay: the allocations an op log made, at the addresses it logged, each
// backed by zero-filled host memory. Nothing is mapped at those addresses in this process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "engine/engine.h"

namespace replay {

class ReplayMemory final : public sim::DeviceMemory {
 public:
  struct Block {
    sim::Allocation info;
    uint32_t kind = 0;          // oplog ALLOC kind
    uint8_t* bytes = nullptr;
  };

  ReplayMemory() = default;
  ReplayMemory(const ReplayMemory&) = delete;
  ReplayMemory& operator=(const ReplayMemory&) = delete;
  ~ReplayMemory() override;

  uint8_t* translate(uint64_t addr, uint64_t size) override;
  const sim::Allocation* nearest(uint64_t addr) const override;
  // Module variables live where the op log put them: `resolve_global` (set while a module's
  // variables are loaded) gives the logged address for a label, or 0.
  uint64_t allocate(uint64_t size, const std::string& label) override;
  std::function<uint64_t(uint64_t size, const std::string& label)> resolve_global;

  // "" when done, else why not (overlap, no memory, limit).
  std::string add(uint64_t addr, uint64_t size, uint32_t kind, const std::string& label);
  bool remove(uint64_t addr);   // false when addr is not the base of a live block
  // Host bytes of [addr, addr + n) when it lies in one live block (n may be 0), else nullptr.
  uint8_t* range(uint64_t addr, uint64_t n) const;
  std::string describe(uint64_t addr) const;

 private:
  const Block* find(uint64_t addr) const;
  std::map<uint64_t, Block> blocks_;
  uint64_t bytes_ = 0;
  uint64_t generation_ = 1;
};

}  // namespace replay
