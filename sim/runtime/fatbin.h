// Reading the PTX that nvcc embedded in a fat binary: one the program registered (the runtime),
// or one read from a library file's .nv_fatbin section (drills_sim_replay).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace simrt {

struct PtxImage {
  std::string text;      // empty on failure
  unsigned arch = 0;     // e.g. 80 for compute_80
  std::string error;     // why there is no text: no PTX entry, legacy compression, bad zstd, ...
};

// `wrapper` is what nvcc passes to __cudaRegisterFatBinary (a __fatBinC_Wrapper_t).
PtxImage extract_ptx(const void* wrapper);

// The fat binary at `fb`, of which `available` bytes may be read (SIZE_MAX: trust its header).
// Picks the PTX entry of the highest architecture; decompresses zstd (flag 0x8000) through
// libzstd.so.1 loaded with dlopen. Never reads outside the fat binary's own size.
PtxImage extract_ptx_from_fatbin(const uint8_t* fb, size_t available);

// Bytes the fat binary at `fb` occupies (header + entries), or 0 when no valid fat binary header
// fits in `available` bytes.
size_t fatbin_size(const uint8_t* fb, size_t available);

}  // namespace simrt
