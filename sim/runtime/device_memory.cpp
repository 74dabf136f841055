#include "device_memory.h"

#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "oplog.h"
#include "report.h"

namespace simrt {

namespace {

constexpr uint64_t kAlign = 256;
constexpr uint64_t kMinGap = 4096;          // unmapped space between allocations, so small
constexpr uint64_t kMaxGap = 1ull << 20;    // overruns land in no allocation and are reported

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }
uint64_t gap_for(uint64_t size) { return std::clamp(size, kMinGap, kMaxGap); }

DeviceMemoryImpl* g_memory = nullptr;       // for the signal handler
struct sigaction g_old_segv, g_old_bus;
std::atomic<uint64_t> g_generation{1};      // bumped whenever a block goes away

struct TranslateCache {
  uint64_t generation = 0, base = 0, end = 0;
  uint8_t* host = nullptr;
};
thread_local TranslateCache t_cache;

void chain_to_previous(int sig, siginfo_t* info, void* ctx) {
  struct sigaction* old = sig == SIGSEGV ? &g_old_segv : &g_old_bus;
  if (old->sa_flags & SA_SIGINFO) {
    if (old->sa_sigaction) {
      old->sa_sigaction(sig, info, ctx);
      return;
    }
  } else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
    old->sa_handler(sig);
    return;
  }
  // Default action: restore it and return, so the faulting instruction faults again and the
  // process dies of the original signal.
  signal(sig, SIG_DFL);
}

void on_fault(int sig, siginfo_t* info, void* ctx) {
  uint64_t addr = reinterpret_cast<uint64_t>(info->si_addr);
  if (!g_memory || !g_memory->in_reserved_range(addr)) {
    chain_to_previous(sig, info, ctx);
    return;
  }
  // Best effort inside a signal handler: the allocation table is only read, never changed here.
  char where[512];
  const sim::Allocation* a = g_memory->nearest(addr);
  int64_t offset = a ? static_cast<int64_t>(addr - a->base) : 0;
  bool inside = a && addr < a->base + a->size;
  if (inside) {
    snprintf(where, sizeof where, "%s + %" PRId64, a->label.c_str(), offset);
  } else if (a) {
    snprintf(where, sizeof where, "in no allocation; %" PRIu64 " bytes past the end of %s",
             addr - (a->base + a->size), a->label.c_str());
  } else {
    snprintf(where, sizeof where, "in no allocation");
  }
  char line[768];
  int n = snprintf(line, sizeof line,
                   "drills-sim: host code dereferenced device memory at 0x%" PRIx64 " (%s)\n", addr,
                   where);
  if (n > 0) {
    ssize_t ignored = write(STDERR_FILENO, line, std::min<size_t>(n, sizeof line - 1));
    (void)ignored;
  }
  std::string label = a ? json_escape(a->label) : std::string();
  char json[1024];
  n = snprintf(json, sizeof json,
               "{\"event\":\"host-deref-device-pointer\",\"address\":%" PRIu64
               ",\"allocation\":\"%s\",\"offset\":%" PRId64 ",\"inside\":%s,\"message\":"
               "\"host code dereferenced device memory at 0x%" PRIx64 "\"}\n",
               addr, inside ? label.c_str() : "", inside ? offset : 0, inside ? "true" : "false",
               addr);
  if (n > 0) report_line_raw(json, std::min<size_t>(n, sizeof json - 1));
  _exit(4);
}

void install_fault_handler() {
  static char alt_stack[64 * 1024];
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa{};
  sa.sa_sigaction = on_fault;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_old_segv);
  sigaction(SIGBUS, &sa, &g_old_bus);
}

}  // namespace

DeviceMemoryImpl::DeviceMemoryImpl() {
  // Address space only: PROT_NONE + NORESERVE commits no memory, but it does count against an
  // address-space limit (ulimit -v), so stay well inside one when it is set.
  uint64_t limit = ~0ull;
  struct rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY) limit = as.rlim_cur / 4;
  for (uint64_t size = 4ull << 40; size >= (256ull << 20); size /= 2) {
    if (size > limit) continue;
    void* hint = reinterpret_cast<void*>(0x200000000000ull);
    void* p = mmap(hint, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p != MAP_FAILED) {
      reserve_base_ = reinterpret_cast<uint64_t>(p);
      reserve_size_ = size;
      break;
    }
  }
  if (!reserve_base_) {
    fprintf(stderr, "drills-sim: cannot reserve address space for device memory\n");
    _exit(3);
  }
  open_report();
  g_memory = this;
  install_fault_handler();
}

const DeviceMemoryImpl::Block* DeviceMemoryImpl::find(uint64_t addr) const {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return nullptr;
  --it;
  const Block& b = it->second;
  if (addr >= b.info.base && addr < b.info.base + std::max<uint64_t>(b.info.size, 1)) return &b;
  return nullptr;
}

uint8_t* DeviceMemoryImpl::translate(uint64_t addr, uint64_t size) {
  TranslateCache& c = t_cache;
  uint64_t gen = g_generation.load(std::memory_order_acquire);
  if (c.generation == gen && addr >= c.base && addr + size <= c.end && addr + size >= addr)
    return c.host + (addr - c.base);
  const Block* b = find(addr);
  if (!b) return nullptr;
  uint64_t end = b->info.base + b->info.size;
  if (addr + size > end || addr + size < addr) return nullptr;
  c = TranslateCache{gen, b->info.base, end, b->host};
  return b->host + (addr - b->info.base);
}

const sim::Allocation* DeviceMemoryImpl::nearest(uint64_t addr) const {
  auto it = blocks_.upper_bound(addr);
  if (it == blocks_.begin()) return nullptr;
  --it;
  return &it->second.info;
}

std::string DeviceMemoryImpl::describe(uint64_t addr) const {
  const sim::Allocation* a = nearest(addr);
  char buf[64];
  if (a && addr < a->base + a->size) {
    snprintf(buf, sizeof buf, " + %" PRIu64, addr - a->base);
    return a->label + buf;
  }
  if (a) {
    snprintf(buf, sizeof buf, "%" PRIu64 " bytes past the end of ", addr - (a->base + a->size));
    return std::string("in no allocation; ") + buf + a->label;
  }
  return "in no allocation";
}

uint64_t DeviceMemoryImpl::find_hole(uint64_t size) const {
  const uint64_t gap = gap_for(size);
  const uint64_t end_of_range = reserve_base_ + reserve_size_;
  auto search_from = [&](uint64_t pos) -> uint64_t {
    auto it = blocks_.lower_bound(pos);
    if (it != blocks_.begin()) {
      const Block& prev = std::prev(it)->second;
      if (in_reserved_range(prev.info.base))
        pos = std::max(pos, prev.info.base + prev.info.size + gap_for(prev.info.size));
    }
    pos = align_up(pos, kAlign);
    for (;;) {
      if (pos + size + gap > end_of_range || pos + size < pos) return 0;
      while (it != blocks_.end() && it->first < pos) ++it;
      if (it == blocks_.end() || it->first >= pos + size + gap) return pos;
      pos = align_up(it->first + it->second.info.size + gap_for(it->second.info.size), kAlign);
      ++it;
    }
  };
  // Leave the first page of the range unused: a small offset from a null-ish base stays invalid.
  uint64_t start = reserve_base_ + std::max<uint64_t>(cursor_, kMaxGap);
  uint64_t pos = search_from(start);
  if (!pos) pos = search_from(reserve_base_ + kMaxGap);
  return pos;
}

uint64_t DeviceMemoryImpl::allocate_device(uint64_t size, MemoryKind kind,
                                           const std::string& label) {
  uint64_t base = find_hole(std::max<uint64_t>(size, 1));
  if (!base) return 0;
  // calloc: large blocks come from mmap and are zero-filled lazily, page by page.
  uint8_t* host = static_cast<uint8_t*>(calloc(1, std::max<uint64_t>(size, 1)));
  if (!host) return 0;
  Block b;
  b.info = sim::Allocation{base, size, label};
  b.kind = kind;
  b.host = host;
  blocks_.emplace(base, std::move(b));
  if (oplog::on()) oplog::alloc(base, size, static_cast<uint32_t>(kind), label);
  cursor_ = base + size - reserve_base_;
  bytes_in_use_ += size;
  g_generation.fetch_add(1, std::memory_order_release);
  return base;
}

uint64_t DeviceMemoryImpl::allocate(uint64_t size, const std::string& label) {
  return allocate_device(size, MemoryKind::module_global, label);
}

void* DeviceMemoryImpl::allocate_host_visible(uint64_t size, MemoryKind kind,
                                              const std::string& label) {
  // Page-aligned so host-visible blocks never share an address with another block.
  uint64_t rounded = align_up(std::max<uint64_t>(size, 1), 4096);
  void* p = mmap(nullptr, rounded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  Block b;
  b.info = sim::Allocation{reinterpret_cast<uint64_t>(p), size, label};
  b.kind = kind;
  b.host = static_cast<uint8_t*>(p);
  blocks_.emplace(b.info.base, std::move(b));
  if (oplog::on()) oplog::alloc(reinterpret_cast<uint64_t>(p), size, static_cast<uint32_t>(kind), label);
  g_generation.fetch_add(1, std::memory_order_release);
  return p;
}

bool DeviceMemoryImpl::register_host_range(void* ptr, uint64_t size, const std::string& label) {
  uint64_t base = reinterpret_cast<uint64_t>(ptr);
  auto it = blocks_.lower_bound(base);
  if (it != blocks_.end() && it->first < base + size) return false;
  if (find(base)) return false;
  Block b;
  b.info = sim::Allocation{base, size, label};
  b.kind = MemoryKind::host_pinned;
  b.host = static_cast<uint8_t*>(ptr);
  b.owns_host = false;
  blocks_.emplace(base, std::move(b));
  if (oplog::on())
    oplog::alloc(base, size, static_cast<uint32_t>(MemoryKind::host_pinned), label);
  g_generation.fetch_add(1, std::memory_order_release);
  return true;
}

bool DeviceMemoryImpl::release(uint64_t addr, MemoryKind kind) {
  auto it = blocks_.find(addr);
  if (it == blocks_.end() || it->second.kind != kind) return false;
  Block& b = it->second;
  if (b.owns_host) {
    if (in_reserved_range(b.info.base)) {
      free(b.host);
      bytes_in_use_ -= b.info.size;
    } else {
      munmap(b.host, align_up(std::max<uint64_t>(b.info.size, 1), 4096));
    }
  }
  g_generation.fetch_add(1, std::memory_order_release);
  blocks_.erase(it);
  if (oplog::on()) oplog::free_block(addr);
  return true;
}

void DeviceMemoryImpl::release_all_device() {
  for (auto it = blocks_.begin(); it != blocks_.end();) {
    Block& b = it->second;
    if (b.kind == MemoryKind::device) {
      if (oplog::on()) oplog::free_block(b.info.base);
      free(b.host);
      bytes_in_use_ -= b.info.size;
      it = blocks_.erase(it);
    } else {
      ++it;
    }
  }
  g_generation.fetch_add(1, std::memory_order_release);
}

}  // namespace simrt
