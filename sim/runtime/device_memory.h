// Device memory of the simulated GPU: addresses inside a reserved PROT_NONE range that the host
// cannot dereference, each allocation backed by separate host memory that only translate() reaches.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "engine/engine.h"

namespace simrt {

enum class MemoryKind { device, host_pinned, managed, module_global };

class DeviceMemoryImpl final : public sim::DeviceMemory {
 public:
  struct Block {
    sim::Allocation info;
    MemoryKind kind = MemoryKind::device;
    uint8_t* host = nullptr;           // backing bytes (device) or the host range itself (pinned)
    bool owns_host = true;             // false for cudaHostRegister'ed ranges
  };

  // Reserves the address range and installs the SIGSEGV/SIGBUS handler (once).
  DeviceMemoryImpl();

  uint8_t* translate(uint64_t addr, uint64_t size) override;
  const sim::Allocation* nearest(uint64_t addr) const override;
  uint64_t allocate(uint64_t size, const std::string& label) override;

  // Device allocation in the reserved range; 0 when out of memory.
  uint64_t allocate_device(uint64_t size, MemoryKind kind, const std::string& label);
  // Host memory the device may also address (pinned, mapped, managed): device address == host address.
  void* allocate_host_visible(uint64_t size, MemoryKind kind, const std::string& label);
  bool register_host_range(void* ptr, uint64_t size, const std::string& label);
  // Frees a block by its base address; false when addr is not the base of a live block of `kind`.
  bool release(uint64_t addr, MemoryKind kind);
  void release_all_device();

  const Block* find(uint64_t addr) const;   // the block containing addr, or nullptr
  bool in_reserved_range(uint64_t addr) const {
    return addr >= reserve_base_ && addr < reserve_base_ + reserve_size_;
  }
  uint64_t bytes_in_use() const { return bytes_in_use_; }
  template <typename F>
  void for_each_block(F&& f) const {
    for (const auto& entry : blocks_) f(entry.second);
  }
  uint64_t next_serial() { return ++serial_; }
  // "cudaMalloc #3 (4096 bytes) + 128" or a note that the address lies in no allocation.
  std::string describe(uint64_t addr) const;

 private:
  uint64_t find_hole(uint64_t size) const;

  uint64_t reserve_base_ = 0, reserve_size_ = 0;
  uint64_t cursor_ = 0;                 // next-fit search start, an offset into the reserved range
  std::map<uint64_t, Block> blocks_;    // by base address
  uint64_t bytes_in_use_ = 0;
  uint64_t serial_ = 0;
};

}  // namespace simrt
