// Reading the PTX that nvcc embedded in a registered fat binary.
#pragma once

#include <string>

namespace simrt {

struct PtxImage {
  std::string text;      // empty on failure
  unsigned arch = 0;     // e.g. 80 for compute_80
  std::string error;     // why there is no text: no PTX entry, legacy compression, bad zstd, ...
};

// `wrapper` is what nvcc passes to __cudaRegisterFatBinary (a __fatBinC_Wrapper_t).
// Picks the PTX entry of the highest architecture; decompresses zstd (flag 0x8000) through
// libzstd.so.1 loaded with dlopen.
PtxImage extract_ptx(const void* wrapper);

}  // namespace simrt
