// Allocation, copies, memset, symbols and pointer queries.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "oplog.h"
#include "runtime.h"

namespace simrt {

namespace {

uint64_t addr_of(const void* p) { return reinterpret_cast<uint64_t>(p); }

// Host bytes behind a device-side range of a copy, or nullptr (with a note on stderr).
uint8_t* device_bytes(const char* api, const char* role, const void* p, size_t count) {
  uint8_t* host = rt().memory.translate(addr_of(p), count);
  if (!host)
    fprintf(stderr,
            "drills-sim: %s: %s range [0x%" PRIx64 ", +%zu bytes) is not inside one device "
            "allocation (%s)\n",
            api, role, addr_of(p), count, rt().memory.describe(addr_of(p)).c_str());
  return host;
}

// True when p is memory the device can address: cudaMalloc'ed, managed, pinned or registered.
bool device_visible(const void* p) { return rt().memory.find(addr_of(p)) != nullptr; }
bool in_device_range(const void* p) { return rt().memory.in_reserved_range(addr_of(p)); }

// A copy into memory the device can address, for the op log (before it happens: the bytes of an
// overlapping source are still the old ones). Out of device memory it is a COPY the replay redoes;
// out of host memory, pinned included (host stores change it unseen), the bytes themselves.
void log_copy(uint64_t dst, uint64_t src, const uint8_t* src_bytes, size_t count) {
  const DeviceMemoryImpl::Block* to = rt().memory.find(dst);
  if (!to) return;
  // A host-side copy may run past a registered range into plain host memory: only the part
  // inside the range is the device's (device-side ranges were checked whole).
  count = std::min<uint64_t>(count, to->info.base + to->info.size - dst);
  const DeviceMemoryImpl::Block* from = rt().memory.find(src);
  if (from && (from->kind == MemoryKind::device || from->kind == MemoryKind::module_global))
    oplog::copy(dst, src, count);
  else
    oplog::write(dst, src_bytes, count);
}

cudaError_t copy(const char* api, void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  if (count == 0) return cudaSuccess;
  if (!dst || !src) return fail(cudaErrorInvalidValue);
  bool dst_device, src_device;
  switch (kind) {
    case cudaMemcpyHostToHost: dst_device = src_device = false; break;
    case cudaMemcpyHostToDevice: dst_device = true; src_device = false; break;
    case cudaMemcpyDeviceToHost: dst_device = false; src_device = true; break;
    case cudaMemcpyDeviceToDevice: dst_device = src_device = true; break;
    case cudaMemcpyDefault:
      dst_device = device_visible(dst) || in_device_range(dst);
      src_device = device_visible(src) || in_device_range(src);
      break;
    default: return fail(cudaErrorInvalidMemcpyDirection);
  }
  // A host side that is really device memory would fault in memcpy; CUDA refuses it instead.
  if ((!dst_device && in_device_range(dst)) || (!src_device && in_device_range(src))) {
    fprintf(stderr,
            "drills-sim: %s: a device pointer was passed as the host side of the copy "
            "(is the cudaMemcpyKind right?)\n",
            api);
    return fail(cudaErrorInvalidValue);
  }
  uint8_t* d = dst_device ? device_bytes(api, "destination", dst, count)
                          : static_cast<uint8_t*>(dst);
  const uint8_t* s = src_device ? device_bytes(api, "source", src, count)
                                : static_cast<const uint8_t*>(src);
  if (!d || !s) return fail(cudaErrorInvalidValue);
  if (oplog::on()) log_copy(addr_of(dst), addr_of(src), s, count);
  memmove(d, s, count);
  if (oplog::on()) oplog::host_written(addr_of(dst), count);
  return cudaSuccess;
}

cudaError_t set(const char* api, void* dst, int value, size_t count) {
  if (count == 0) return cudaSuccess;
  uint8_t* d = device_bytes(api, "destination", dst, count);
  if (!d) return fail(cudaErrorInvalidValue);
  if (oplog::on()) oplog::memset(addr_of(dst), static_cast<uint32_t>(value), count);
  memset(d, value, count);
  if (oplog::on()) oplog::host_written(addr_of(dst), count);
  return cudaSuccess;
}

cudaError_t symbol_range(const void* symbol, size_t count, size_t offset, uint64_t* address) {
  VarRecord* v = var_for(symbol);
  if (!v) return fail(cudaErrorInvalidSymbol);
  uint64_t base = var_address(*v);
  if (!base) return fail(cudaErrorInvalidSymbol);
  if (offset > v->size || count > v->size - offset) return fail(cudaErrorInvalidValue);
  *address = base + offset;
  return cudaSuccess;
}

std::string label(const char* what, uint64_t serial, size_t size) {
  return std::string(what) + " #" + std::to_string(serial) + " (" + std::to_string(size) +
         " bytes)";
}

void* host_visible(const char* what, size_t size, MemoryKind kind) {
  Runtime& r = rt();
  return r.memory.allocate_host_visible(size, kind, label(what, ++r.malloc_count, size));
}

}  // namespace

}  // namespace simrt

using simrt::fail;
using simrt::rt;

extern "C" {

cudaError_t CUDARTAPI cudaMalloc(void** dev_ptr, size_t size) {
  SIMRT_ENTER();
  if (!dev_ptr) return fail(cudaErrorInvalidValue);
  *dev_ptr = nullptr;
  if (size == 0) return cudaSuccess;
  simrt::Runtime& r = rt();
  if (size > r.device.global_mem - std::min(r.device.global_mem, r.memory.bytes_in_use()))
    return fail(cudaErrorMemoryAllocation);
  uint64_t a = r.memory.allocate_device(size, simrt::MemoryKind::device,
                                        simrt::label("cudaMalloc", ++r.malloc_count, size));
  if (!a) return fail(cudaErrorMemoryAllocation);
  *dev_ptr = reinterpret_cast<void*>(a);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMallocAsync(void** dev_ptr, size_t size, cudaStream_t stream) {
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaMalloc(dev_ptr, size);
}

cudaError_t CUDARTAPI cudaMallocPitch(void** dev_ptr, size_t* pitch, size_t width, size_t height) {
  if (!pitch) return fail(cudaErrorInvalidValue);
  *pitch = (width + 511) / 512 * 512;
  return cudaMalloc(dev_ptr, *pitch * height);
}

cudaError_t CUDARTAPI cudaFree(void* dev_ptr) {
  SIMRT_ENTER();
  if (!dev_ptr) return cudaSuccess;
  uint64_t a = simrt::addr_of(dev_ptr);
  if (rt().memory.release(a, simrt::MemoryKind::device) ||
      rt().memory.release(a, simrt::MemoryKind::managed))
    return cudaSuccess;
  fprintf(stderr, "drills-sim: cudaFree(0x%" PRIx64 "): not the start of a live allocation (%s)\n",
          a, rt().memory.describe(a).c_str());
  return fail(cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI cudaFreeAsync(void* dev_ptr, cudaStream_t stream) {
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaFree(dev_ptr);
}

cudaError_t CUDARTAPI cudaMallocManaged(void** dev_ptr, size_t size, unsigned int /*flags*/) {
  SIMRT_ENTER();
  if (!dev_ptr || size == 0) return fail(cudaErrorInvalidValue);
  *dev_ptr = simrt::host_visible("cudaMallocManaged", size, simrt::MemoryKind::managed);
  return *dev_ptr ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t CUDARTAPI cudaMallocHost(void** ptr, size_t size) {
  SIMRT_ENTER();
  if (!ptr) return fail(cudaErrorInvalidValue);
  *ptr = size ? simrt::host_visible("cudaMallocHost", size, simrt::MemoryKind::host_pinned)
              : nullptr;
  return *ptr || !size ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}

cudaError_t CUDARTAPI cudaHostAlloc(void** ptr, size_t size, unsigned int /*flags*/) {
  return cudaMallocHost(ptr, size);
}

cudaError_t CUDARTAPI cudaFreeHost(void* ptr) {
  SIMRT_ENTER();
  if (!ptr) return cudaSuccess;
  if (rt().memory.release(simrt::addr_of(ptr), simrt::MemoryKind::host_pinned)) return cudaSuccess;
  return fail(cudaErrorInvalidValue);
}

cudaError_t CUDARTAPI cudaHostRegister(void* ptr, size_t size, unsigned int /*flags*/) {
  SIMRT_ENTER();
  if (!ptr || size == 0) return fail(cudaErrorInvalidValue);
  std::string label = "cudaHostRegister'ed range (" + std::to_string(size) + " bytes)";
  if (!rt().memory.register_host_range(ptr, size, label))
    return fail(cudaErrorHostMemoryAlreadyRegistered);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaHostUnregister(void* ptr) {
  SIMRT_ENTER();
  if (rt().memory.release(simrt::addr_of(ptr), simrt::MemoryKind::host_pinned)) return cudaSuccess;
  return fail(cudaErrorHostMemoryNotRegistered);
}

cudaError_t CUDARTAPI cudaHostGetDevicePointer(void** dev_ptr, void* host, unsigned int flags) {
  SIMRT_ENTER();
  const simrt::DeviceMemoryImpl::Block* b = rt().memory.find(simrt::addr_of(host));
  if (!dev_ptr || flags != 0 || !b || b->kind != simrt::MemoryKind::host_pinned)
    return fail(cudaErrorInvalidValue);
  *dev_ptr = host;   // unified addressing: the device sees pinned memory at its host address
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaHostGetFlags(unsigned int* flags, void* host) {
  SIMRT_ENTER();
  const simrt::DeviceMemoryImpl::Block* b = rt().memory.find(simrt::addr_of(host));
  if (!flags || !b || b->kind != simrt::MemoryKind::host_pinned) return fail(cudaErrorInvalidValue);
  *flags = cudaHostAllocMapped;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind) {
  SIMRT_ENTER();
  return simrt::copy("cudaMemcpy", dst, src, count, kind);
}

cudaError_t CUDARTAPI cudaMemcpyAsync(void* dst, const void* src, size_t count,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
  SIMRT_ENTER();
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return simrt::copy("cudaMemcpyAsync", dst, src, count, kind);
}

cudaError_t CUDARTAPI cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch,
                                   size_t width, size_t height, cudaMemcpyKind kind) {
  SIMRT_ENTER();
  if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = simrt::copy("cudaMemcpy2D", static_cast<char*>(dst) + row * dpitch,
                                static_cast<const char*>(src) + row * spitch, width, kind);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                                        size_t width, size_t height, cudaMemcpyKind kind,
                                        cudaStream_t stream) {
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}

cudaError_t CUDARTAPI cudaMemset(void* dev_ptr, int value, size_t count) {
  SIMRT_ENTER();
  return simrt::set("cudaMemset", dev_ptr, value, count);
}

cudaError_t CUDARTAPI cudaMemsetAsync(void* dev_ptr, int value, size_t count,
                                      cudaStream_t stream) {
  SIMRT_ENTER();
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return simrt::set("cudaMemsetAsync", dev_ptr, value, count);
}

cudaError_t CUDARTAPI cudaMemset2D(void* dev_ptr, size_t pitch, int value, size_t width,
                                   size_t height) {
  SIMRT_ENTER();
  if (width > pitch) return fail(cudaErrorInvalidPitchValue);
  for (size_t row = 0; row < height; ++row) {
    cudaError_t e = simrt::set("cudaMemset2D", static_cast<char*>(dev_ptr) + row * pitch, value,
                               width);
    if (e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count,
                                         size_t offset, cudaMemcpyKind kind) {
  SIMRT_ENTER();
  if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  uint64_t address = 0;
  if (cudaError_t e = simrt::symbol_range(symbol, count, offset, &address)) return e;
  return simrt::copy("cudaMemcpyToSymbol", reinterpret_cast<void*>(address), src, count,
                     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyDefault);
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count,
                                           size_t offset, cudaMemcpyKind kind) {
  SIMRT_ENTER();
  if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice &&
      kind != cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  uint64_t address = 0;
  if (cudaError_t e = simrt::symbol_range(symbol, count, offset, &address)) return e;
  return simrt::copy("cudaMemcpyFromSymbol", dst, reinterpret_cast<const void*>(address), count,
                     kind == cudaMemcpyDeviceToDevice ? kind : cudaMemcpyDefault);
}

cudaError_t CUDARTAPI cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                              size_t offset, cudaMemcpyKind kind,
                                              cudaStream_t stream) {
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}

cudaError_t CUDARTAPI cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count,
                                                size_t offset, cudaMemcpyKind kind,
                                                cudaStream_t stream) {
  if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}

cudaError_t CUDARTAPI cudaGetSymbolAddress(void** dev_ptr, const void* symbol) {
  SIMRT_ENTER();
  uint64_t address = 0;
  if (!dev_ptr) return fail(cudaErrorInvalidValue);
  if (cudaError_t e = simrt::symbol_range(symbol, 0, 0, &address)) return e;
  *dev_ptr = reinterpret_cast<void*>(address);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaGetSymbolSize(size_t* size, const void* symbol) {
  SIMRT_ENTER();
  simrt::VarRecord* v = simrt::var_for(symbol);
  if (!size) return fail(cudaErrorInvalidValue);
  if (!v) return fail(cudaErrorInvalidSymbol);
  *size = v->size;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaMemGetInfo(size_t* free_bytes, size_t* total) {
  SIMRT_ENTER();
  size_t t = rt().device.global_mem;
  size_t used = std::min<size_t>(t, rt().memory.bytes_in_use());
  if (free_bytes) *free_bytes = t - used;
  if (total) *total = t;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaPointerGetAttributes(cudaPointerAttributes* attributes,
                                               const void* ptr) {
  SIMRT_ENTER();
  if (!attributes) return fail(cudaErrorInvalidValue);
  memset(attributes, 0, sizeof *attributes);
  attributes->device = rt().current_device;
  const simrt::DeviceMemoryImpl::Block* b = rt().memory.find(simrt::addr_of(ptr));
  if (!b) {
    attributes->type = cudaMemoryTypeUnregistered;
    return cudaSuccess;
  }
  void* p = const_cast<void*>(ptr);
  switch (b->kind) {
    case simrt::MemoryKind::device:
    case simrt::MemoryKind::module_global:
      attributes->type = cudaMemoryTypeDevice;
      attributes->devicePointer = p;
      break;
    case simrt::MemoryKind::host_pinned:
      attributes->type = cudaMemoryTypeHost;
      attributes->devicePointer = p;
      attributes->hostPointer = p;
      break;
    case simrt::MemoryKind::managed:
      attributes->type = cudaMemoryTypeManaged;
      attributes->devicePointer = p;
      attributes->hostPointer = p;
      break;
  }
  return cudaSuccess;
}

}  // extern "C"
