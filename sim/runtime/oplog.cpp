#include "oplog.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>


namespace simrt::oplog {

int g_fd = -1;
bool g_record_only = false;

namespace {

uint64_t g_written = 0;
uint64_t g_limit = kDefaultLimit;
// Host-visible blocks by base address (their device address is their host address): the bytes the
// replay holds for each, as far as this process can know them.
std::map<uint64_t, std::vector<uint8_t>> g_shadows;

void put32(std::string& b, uint32_t v) { b.append(reinterpret_cast<const char*>(&v), 4); }
void put64(std::string& b, uint64_t v) { b.append(reinterpret_cast<const char*>(&v), 8); }

// x86-64 and aarch64 are little-endian, as the format is: the integers go out as they are.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the op log is little-endian");

bool write_all(const iovec* parts, int count) {
  iovec v[3];
  memcpy(v, parts, sizeof(iovec) * count);
  int i = 0;
  while (i < count) {
    ssize_t w = writev(g_fd, v + i, count - i);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    size_t left = static_cast<size_t>(w);
    while (i < count && left >= v[i].iov_len) left -= v[i++].iov_len;
    if (i < count) {
      v[i].iov_base = static_cast<char*>(v[i].iov_base) + left;
      v[i].iov_len -= left;
    }
  }
  return true;
}

void stop(const char* why) {
  fprintf(stderr, "drills-sim: op log stopped: %s\n", why);
  close(g_fd);
  g_fd = -1;
}

// One record: header + fixed fields (`head`) + optional bytes, in one writev.
void record(uint32_t type, const std::string& head, const void* bytes = nullptr, uint64_t n = 0) {
  if (g_fd < 0) return;
  const uint64_t payload = head.size() + n;
  if (g_written + kRecordHeader + payload > g_limit) {
    std::string t;
    put32(t, kTruncated);
    put32(t, 0);
    put64(t, 0);
    iovec v{t.data(), t.size()};
    write_all(&v, 1);
    stop("it reached its size limit (a TRUNCATED record ends it)");
    return;
  }
  std::string h;
  put32(h, type);
  put32(h, 0);
  put64(h, payload);
  iovec v[3] = {{h.data(), h.size()},
                {const_cast<char*>(head.data()), head.size()},
                {const_cast<void*>(bytes), static_cast<size_t>(n)}};
  if (!write_all(v, n ? 3 : 2)) {
    stop("cannot write to DRILLS_SIM_OPLOG");
    return;
  }
  g_written += kRecordHeader + payload;
}

std::string text(const std::string& s) {
  std::string b;
  const uint32_t n = static_cast<uint32_t>(std::min<size_t>(s.size(), kMaxText));
  put32(b, n);
  b.append(s.data(), n);
  return b;
}

}  // namespace

void open_from_env() {
  const char* path = getenv("DRILLS_SIM_OPLOG");
  if (!path || !*path) return;
  if (const char* limit = getenv("DRILLS_SIM_OPLOG_LIMIT")) {
    const uint64_t l = strtoull(limit, nullptr, 10);
    if (l > 0 && l < kDefaultLimit) g_limit = l;
  }
  g_fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (g_fd < 0) {
    fprintf(stderr, "drills-sim: cannot open DRILLS_SIM_OPLOG=%s\n", path);
    return;
  }
  struct stat st{};
  if (fstat(g_fd, &st) == 0 && st.st_size > 0) {
    // One log per process: appending to another's would interleave two programs.
    stop("DRILLS_SIM_OPLOG names a file that is not empty");
    return;
  }
  iovec v{const_cast<char*>(kMagic), sizeof kMagic};
  if (!write_all(&v, 1)) {
    stop("cannot write to DRILLS_SIM_OPLOG");
    return;
  }
  g_written = sizeof kMagic;
  const char* record_only = getenv("DRILLS_SIM_RECORD_ONLY");
  g_record_only = record_only && strcmp(record_only, "1") == 0;
}

void alloc(uint64_t addr, uint64_t size, uint32_t kind, const std::string& label) {
  std::string b;
  put64(b, addr);
  put64(b, size);
  put32(b, kind);
  b += text(label);
  record(kAlloc, b);
  // The replay starts every block zero-filled, a registered range included.
  if (kind == 1 || kind == 2) g_shadows[addr].assign(size, 0);
}

void free_block(uint64_t addr) {
  std::string b;
  put64(b, addr);
  record(kFree, b);
  g_shadows.erase(addr);
}

void write(uint64_t dst, const void* bytes, uint64_t n) {
  std::string b;
  put64(b, dst);
  record(kWrite, b, bytes, n);
}

void copy(uint64_t dst, uint64_t src, uint64_t n) {
  std::string b;
  put64(b, dst);
  put64(b, src);
  put64(b, n);
  record(kCopy, b);
}

void memset(uint64_t dst, uint32_t value, uint64_t n) {
  std::string b;
  put64(b, dst);
  put32(b, value);
  put32(b, 0);
  put64(b, n);
  record(kMemset, b);
}

void host_visible() {
  // Byte-exact runs: in record-only mode the replay holds kernel results this process never
  // computed, and a wider WRITE would overwrite them with this process's stale bytes.
  constexpr size_t kChunk = 64;
  for (auto& [base, shadow] : g_shadows) {
    const auto* now = reinterpret_cast<const uint8_t*>(base);
    uint8_t* was = shadow.data();
    const size_t n = shadow.size();
    for (size_t i = 0; i < n;) {
      const size_t chunk = std::min(kChunk, n - i);
      if (memcmp(now + i, was + i, chunk) == 0) {
        i += chunk;
        continue;
      }
      const size_t end = i + chunk;
      while (i < end) {
        if (now[i] == was[i]) {
          ++i;
          continue;
        }
        size_t stop = i;
        while (stop < n && now[stop] != was[stop]) ++stop;
        write(base + i, now + i, stop - i);
        memcpy(was + i, now + i, stop - i);
        i = stop;
      }
    }
  }
}

void host_written(uint64_t addr, uint64_t n) {
  auto it = g_shadows.upper_bound(addr);
  if (it == g_shadows.begin()) return;
  --it;
  const uint64_t offset = addr - it->first;
  if (offset >= it->second.size()) return;
  n = std::min<uint64_t>(n, it->second.size() - offset);
  memcpy(it->second.data() + offset, reinterpret_cast<const uint8_t*>(addr), n);
}

void kernel_ran() {
  for (auto& [base, shadow] : g_shadows)
    memcpy(shadow.data(), reinterpret_cast<const uint8_t*>(base), shadow.size());
}

void launch(uint32_t module, const std::string& name, dim3 grid, dim3 block, uint64_t shared,
            const std::vector<uint64_t>& param_sizes, void** args) {
  std::string b = text(name);
  for (uint32_t v : {grid.x, grid.y, grid.z, block.x, block.y, block.z}) put32(b, v);
  put64(b, shared);
  // No argument array for a kernel with parameters: logged without them, which the replay
  // refuses as a parameter mismatch (the engine could not have run it either).
  const size_t count = args ? param_sizes.size() : 0;
  put32(b, static_cast<uint32_t>(count));
  for (size_t i = 0; i < count; ++i) {
    put32(b, static_cast<uint32_t>(param_sizes[i]));
    b.append(static_cast<const char*>(args[i]), param_sizes[i]);
  }
  put32(b, module);
  record(kLaunch, b);
}

void mark(const char* t) { record(kMark, text(t ? t : "")); }

void attr(uint32_t module, const std::string& name, uint32_t attribute, int32_t value) {
  std::string b;
  put32(b, module);
  put32(b, attribute);
  put32(b, static_cast<uint32_t>(value));
  b += text(name);
  record(kAttr, b);
}

void module(uint32_t module, const std::string& ptx) {
  std::string b;
  put32(b, module);
  put32(b, 0);
  put64(b, fnv1a64(ptx.data(), ptx.size()));
  put64(b, ptx.size());
  record(kModule, b);
}

void reset() { record(kReset, std::string()); }

}  // namespace simrt::oplog
