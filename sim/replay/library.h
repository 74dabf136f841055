// The device code of a library file: the PTX of every fat binary in its ELF .nv_fatbin section,
// read from the file on disk. The library is never loaded and none of its host code runs.
#pragma once

#include <string>
#include <vector>

#include "fatbin.h"

namespace replay {

struct LibraryModule {
  simrt::PtxImage ptx;     // ptx.error when the fat binary holds no usable PTX
  uint64_t offset = 0;     // of the fat binary in .nv_fatbin (for messages)
  uint64_t hash = 0;       // oplog::fnv1a64 of ptx.text
};

// The fat binaries in section order; an empty vector and `error` when the file is not an ELF64
// little-endian object with a readable .nv_fatbin section.
std::vector<LibraryModule> read_library(const std::string& path, std::string& error);

}  // namespace replay
