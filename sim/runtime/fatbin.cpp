#include "fatbin.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace simrt {

namespace {

constexpr uint32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kFatbinMagic = 0xBA55ED50;
constexpr uint16_t kKindPtx = 1;
constexpr uint64_t kFlagLegacyCompression = 0x2000;
constexpr uint64_t kFlagZstd = 0x8000;
constexpr uint64_t kMaxPtxBytes = 1ull << 30;

struct Wrapper {
  int32_t magic;
  int32_t version;
  const uint8_t* data;
  const void* filename_or_fatbins;
};

template <typename T>
T read_at(const uint8_t* p, size_t offset) {
  T v;
  memcpy(&v, p + offset, sizeof v);
  return v;
}

// libzstd has no -dev package here, so the two functions we need are declared by hand.
using ZstdDecompress = size_t (*)(void* dst, size_t dst_capacity, const void* src, size_t src_size);
using ZstdIsError = unsigned (*)(size_t code);
using ZstdGetErrorName = const char* (*)(size_t code);

struct Zstd {
  ZstdDecompress decompress = nullptr;
  ZstdIsError is_error = nullptr;
  ZstdGetErrorName error_name = nullptr;
  std::string load_error;
};

const Zstd& zstd() {
  static Zstd z = [] {
    Zstd r;
    void* h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      r.load_error = std::string("cannot load libzstd.so.1 (") + dlerror() + ")";
      return r;
    }
    r.decompress = reinterpret_cast<ZstdDecompress>(dlsym(h, "ZSTD_decompress"));
    r.is_error = reinterpret_cast<ZstdIsError>(dlsym(h, "ZSTD_isError"));
    r.error_name = reinterpret_cast<ZstdGetErrorName>(dlsym(h, "ZSTD_getErrorName"));
    if (!r.decompress || !r.is_error) r.load_error = "libzstd.so.1 lacks ZSTD_decompress";
    return r;
  }();
  return z;
}

std::string trim_at_nul(const char* p, size_t n) {
  const void* nul = memchr(p, 0, n);
  return std::string(p, nul ? static_cast<const char*>(nul) - p : n);
}

}  // namespace

PtxImage extract_ptx(const void* wrapper_ptr) {
  PtxImage out;
  const auto* w = static_cast<const Wrapper*>(wrapper_ptr);
  if (!w || static_cast<uint32_t>(w->magic) != kWrapperMagic || !w->data) {
    out.error = "not a fat binary wrapper (bad magic)";
    return out;
  }
  // A registered fat binary lies in the program's own mapped image: its header gives its size.
  return extract_ptx_from_fatbin(w->data, SIZE_MAX);
}

size_t fatbin_size(const uint8_t* fb, size_t available) {
  if (available < 16 || read_at<uint32_t>(fb, 0) != kFatbinMagic) return 0;
  const uint64_t header_size = read_at<uint16_t>(fb, 6);
  const uint64_t total = read_at<uint64_t>(fb, 8);
  if (header_size < 16 || total > available || header_size > available - total) return 0;
  return size_t(header_size + total);
}

PtxImage extract_ptx_from_fatbin(const uint8_t* fb, size_t available) {
  PtxImage out;
  if (available < 16 || read_at<uint32_t>(fb, 0) != kFatbinMagic) {
    out.error = "fat binary header has a bad magic";
    return out;
  }
  const uint16_t header_size = read_at<uint16_t>(fb, 6);
  // Every offset below stays inside [0, end): a fat binary read from a file may be damaged.
  const uint64_t end = fatbin_size(fb, available);
  if (end == 0) {
    out.error = "fat binary header gives a size beyond the data";
    return out;
  }

  const uint8_t* best = nullptr;
  unsigned best_arch = 0;
  for (uint64_t off = header_size; off + 64 <= end;) {
    const uint8_t* e = fb + off;
    const uint16_t kind = read_at<uint16_t>(e, 0);
    const uint32_t entry_header = read_at<uint32_t>(e, 4);
    const uint64_t payload = read_at<uint64_t>(e, 8);
    const uint32_t arch = read_at<uint32_t>(e, 28);
    if (entry_header < 64 || entry_header > end - off || payload > end - off - entry_header) break;
    if (kind == kKindPtx && (!best || arch > best_arch)) {
      best = e;
      best_arch = arch;
    }
    off += entry_header + payload;
  }
  if (!best) {
    out.error = "the fat binary holds no PTX; build with -gencode arch=compute_XX,code=compute_XX";
    return out;
  }

  const uint32_t entry_header = read_at<uint32_t>(best, 4);
  const uint64_t payload = read_at<uint64_t>(best, 8);
  const uint32_t compressed = read_at<uint32_t>(best, 16);
  const uint64_t flags = read_at<uint64_t>(best, 40);
  const uint64_t decompressed = read_at<uint64_t>(best, 56);
  const char* data = reinterpret_cast<const char*>(best + entry_header);
  out.arch = best_arch;

  if (compressed > payload) {
    out.error = "the PTX entry's compressed size exceeds its payload";
    return out;
  }
  if (flags & kFlagZstd) {
    if (decompressed > kMaxPtxBytes) {
      out.error = "the PTX entry claims " + std::to_string(decompressed) + " bytes decompressed";
      return out;
    }
    const Zstd& z = zstd();
    if (!z.load_error.empty()) {
      out.error = "the PTX is zstd-compressed and " + z.load_error +
                  "; build with -compress-mode=none to keep it uncompressed";
      return out;
    }
    std::string text(decompressed, '\0');
    size_t n = z.decompress(text.data(), text.size(), data, compressed ? compressed : payload);
    if (z.is_error(n)) {
      out.error = std::string("zstd cannot decompress the PTX: ") +
                  (z.error_name ? z.error_name(n) : "error");
      return out;
    }
    text.resize(n);
    out.text = trim_at_nul(text.data(), text.size());
  } else if (flags & kFlagLegacyCompression) {
    out.error = "the PTX uses nvcc's legacy compression (flag 0x2000, -compress-mode=speed), "
                "which the simulator does not read; build with -compress-mode=none";
    return out;
  } else {
    out.text = trim_at_nul(data, payload);
  }
  if (out.text.empty()) out.error = "the PTX entry is empty";
  return out;
}

}  // namespace simrt
