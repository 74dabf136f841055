// What the runtime itself needs to know about each kernel, read from the PTX text with a light
// scan (the engine owns real parsing): static shared memory, local memory, launch bounds. These
// answer cudaFuncGetAttributes and the launch-configuration checks a driver makes.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace simrt {

struct KernelInfo {
  uint64_t static_shared_bytes = 0;  // .shared variables the kernel (or a function it calls) uses
  uint64_t local_bytes = 0;          // the __local_depot size
  int max_threads = 0;               // from .maxntid / .reqntid; 0 when the PTX sets none
};

struct PtxInfo {
  int version = 0;                   // .version 9.0 -> 90
  std::map<std::string, KernelInfo> kernels;   // by mangled entry name
};

PtxInfo scan_ptx(const std::string& ptx);

}  // namespace simrt
