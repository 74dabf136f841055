#include "memory.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>

namespace replay {

namespace {

// A forged log must not make the replay take the machine: allocations beyond its physical memory
// (which the program could not have filled either) and more live blocks than any program keeps.
constexpr uint64_t kMaxBlocks = 1u << 20;

uint64_t max_bytes() {
  static const uint64_t limit = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : (1ull << 40);
  }();
  return limit;
}

struct TranslateCache {
  const ReplayMemory* owner = nullptr;
  uint64_t generation = 0, base = 0, end = 0;
  uint8_t* bytes = nullptr;
};
thread_local TranslateCache t_cache;

}  // namespace

ReplayMemory::~ReplayMemory() {
  for (auto& [base, b] : blocks_) free(b.bytes);
}

const ReplayMemory::Block* ReplayMemory::find(uint64_t addr) const {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return nullptr;
  --it;
  const Block& b = it->second;
  return addr - b.info.base < b.info.size ? &b : nullptr;
}

uint8_t* ReplayMemory::range(uint64_t addr, uint64_t n) const {
  const Block* b = find(addr);
  if (!b) return nullptr;
  const uint64_t offset = addr - b->info.base;
  if (n > b->info.size - offset) return nullptr;
  return b->bytes + offset;
}

uint8_t* ReplayMemory::translate(uint64_t addr, uint64_t size) {
  // Blocks change only between launches; the engine calls this from its worker threads.
  TranslateCache& c = t_cache;
  if (c.owner == this && c.generation == generation_ && addr >= c.base && addr + size >= addr &&
      addr + size <= c.end)
    return c.bytes + (addr - c.base);
  const Block* b = find(addr);
  if (!b) return nullptr;
  const uint64_t offset = addr - b->info.base;
  if (size > b->info.size - offset) return nullptr;
  c = TranslateCache{this, generation_, b->info.base, b->info.base + b->info.size, b->bytes};
  return b->bytes + offset;
}

const sim::Allocation* ReplayMemory::nearest(uint64_t addr) const {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return nullptr;
  --it;
  return &it->second.info;
}

uint64_t ReplayMemory::allocate(uint64_t size, const std::string& label) {
  return resolve_global ? resolve_global(size, label) : 0;
}

std::string ReplayMemory::add(uint64_t addr, uint64_t size, uint32_t kind,
                              const std::string& label) {
  if (addr == 0 || size == 0) return "an allocation at address 0 or of 0 bytes";
  if (addr + size < addr) return "an allocation that wraps around the address space";
  if (size > max_bytes() - std::min(bytes_, max_bytes()))
    return "allocations of more than this machine's " + std::to_string(max_bytes()) +
           " bytes of memory in all";
  if (blocks_.size() >= kMaxBlocks) return "more than " + std::to_string(kMaxBlocks) + " live allocations";
  auto next = blocks_.lower_bound(addr);
  if (next != blocks_.end() && next->first < addr + size)
    return "an allocation overlapping " + next->second.info.label;
  if (const Block* prev = find(addr)) return "an allocation overlapping " + prev->info.label;
  auto* bytes = static_cast<uint8_t*>(calloc(1, size));
  if (!bytes) return "an allocation of " + std::to_string(size) + " bytes the replay cannot hold";
  Block b;
  b.info = sim::Allocation{addr, size, label};
  b.kind = kind;
  b.bytes = bytes;
  blocks_.emplace(addr, std::move(b));
  bytes_ += size;
  ++generation_;
  return "";
}

bool ReplayMemory::remove(uint64_t addr) {
  auto it = blocks_.find(addr);
  if (it == blocks_.end()) return false;
  free(it->second.bytes);
  bytes_ -= it->second.info.size;
  blocks_.erase(it);
  ++generation_;
  return true;
}

std::string ReplayMemory::describe(uint64_t addr) const {
  const sim::Allocation* a = nearest(addr);
  char buf[64];
  if (a && addr - a->base < a->size) {
    snprintf(buf, sizeof buf, " + %" PRIu64, addr - a->base);
    return a->label + buf;
  }
  return "in no allocation";
}

}  // namespace replay
