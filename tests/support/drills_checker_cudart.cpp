// The checker's CUDA runtime, on either backend (cmake/AddDrill.cmake links it instead of libcudart
// or the simulator's). The checker (tests/support/drills_record.h) runs the cases' host side only:
// its contract functions are no-op stubs and every byte it checks comes from the subject's record
// stream, never from a device. So it needs no GPU and opens no CUDA context: on a GPU in
// exclusive-process compute mode the subject's context is the only one.
//
// Device memory here is address space and nothing else: cudaMalloc reserves pages no one may touch
// (a host dereference of a device pointer faults, as it would on a GPU), uploads and memsets are
// checked against the allocation and land nowhere, and a copy out of device memory is refused
// (cudaErrorNotSupported: the checker reads results from the records, so a test that reads the
// device directly fails its case in the checker rather than passing on bytes nobody produced).
// These are the runtime calls the test sources make; a test that needs another one makes the
// checker fail to link. cudaGetErrorName and cudaGetErrorString: sim/runtime/errors.cpp.
#include <cuda_runtime_api.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>

namespace {

std::mutex mu;
std::map<uintptr_t, size_t> allocations;  // base -> bytes asked for
cudaError_t last = cudaSuccess;

cudaError_t fail(cudaError_t e) {
  last = e;
  return e;
}

size_t reserved(size_t bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  return (bytes + page - 1) / page * page;
}

// Whether [p, p + bytes) lies inside one allocation.
bool device_range(const void* p, size_t bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  auto it = allocations.upper_bound(a);
  if (it == allocations.begin()) return false;
  --it;
  return a >= it->first && bytes <= it->second && a - it->first <= it->second - bytes;
}

}  // namespace

extern "C" {

void** CUDARTAPI __cudaRegisterFatBinary(void* /*fat_cubin*/) {
  static void* handle = nullptr;  // no kernel of the checker is ever launched
  return &handle;
}
void CUDARTAPI __cudaRegisterFatBinaryEnd(void** /*handle*/) {}
void CUDARTAPI __cudaUnregisterFatBinary(void** /*handle*/) {}

cudaError_t CUDARTAPI cudaMalloc(void** ptr, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  if (!ptr) return fail(cudaErrorInvalidValue);
  *ptr = nullptr;
  if (bytes == 0) return cudaSuccess;
  void* p = mmap(nullptr, reserved(bytes), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) return fail(cudaErrorMemoryAllocation);
  allocations[reinterpret_cast<uintptr_t>(p)] = bytes;
  *ptr = p;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaFree(void* ptr) {
  std::lock_guard<std::mutex> lock(mu);
  if (!ptr) return cudaSuccess;
  auto it = allocations.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == allocations.end()) return fail(cudaErrorInvalidValue);
  munmap(ptr, reserved(it->second));
  allocations.erase(it);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
  std::lock_guard<std::mutex> lock(mu);
  if (bytes == 0) return cudaSuccess;
  if (!dst || !src) return fail(cudaErrorInvalidValue);
  const bool to_device = device_range(dst, bytes), from_device = device_range(src, bytes);
  if (from_device || kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice)
    return fail(cudaErrorNotSupported);
  if (kind == cudaMemcpyHostToDevice || (kind == cudaMemcpyDefault && to_device))
    return to_device ? cudaSuccess : fail(cudaErrorInvalidValue);
  if (kind == cudaMemcpyHostToHost || kind == cudaMemcpyDefault) {
    std::memmove(dst, src, bytes);
    return cudaSuccess;
  }
  return fail(cudaErrorInvalidMemcpyDirection);
}

cudaError_t CUDARTAPI cudaMemset(void* ptr, int /*value*/, size_t bytes) {
  std::lock_guard<std::mutex> lock(mu);
  if (bytes == 0) return cudaSuccess;
  return device_range(ptr, bytes) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI cudaGetLastError(void) {
  std::lock_guard<std::mutex> lock(mu);
  const cudaError_t e = last;
  last = cudaSuccess;
  return e;
}

cudaError_t CUDARTAPI cudaDeviceSynchronize(void) { return cudaSuccess; }

cudaError_t CUDARTAPI cudaDeviceReset(void) {
  std::lock_guard<std::mutex> lock(mu);
  for (auto it = allocations.begin(); it != allocations.end(); it = allocations.erase(it))
    munmap(reinterpret_cast<void*>(it->first), reserved(it->second));
  last = cudaSuccess;
  return cudaSuccess;
}

}  // extern "C"
