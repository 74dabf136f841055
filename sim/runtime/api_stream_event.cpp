// Streams are in-order queues whose operations run to completion when enqueued, so every stream
// is always idle; events record the host time at which they were recorded.
#include "runtime.h"

using simrt::fail;
using simrt::rt;

namespace simrt {

bool valid_stream(cudaStream_t s) {
  if (s == nullptr || s == cudaStreamLegacy || s == cudaStreamPerThread) return true;
  return rt().streams.count(reinterpret_cast<Stream*>(s)) != 0;
}

namespace {

Event* event_of(cudaEvent_t e) {
  auto* ev = reinterpret_cast<Event*>(e);
  return rt().events.count(ev) ? ev : nullptr;
}

}  // namespace
}  // namespace simrt

extern "C" {

cudaError_t CUDARTAPI cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags,
                                                   int priority) {
  SIMRT_ENTER();
  if (!stream) return fail(cudaErrorInvalidValue);
  auto* s = new simrt::Stream{flags, priority};
  rt().streams.insert(s);
  *stream = reinterpret_cast<cudaStream_t>(s);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
  return cudaStreamCreateWithPriority(stream, flags, 0);
}

cudaError_t CUDARTAPI cudaStreamCreate(cudaStream_t* stream) {
  return cudaStreamCreateWithPriority(stream, cudaStreamDefault, 0);
}

cudaError_t CUDARTAPI cudaStreamDestroy(cudaStream_t stream) {
  SIMRT_ENTER();
  auto* s = reinterpret_cast<simrt::Stream*>(stream);
  if (!rt().streams.erase(s)) return fail(cudaErrorInvalidResourceHandle);
  delete s;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamSynchronize(cudaStream_t stream) {
  SIMRT_ENTER();
  return simrt::valid_stream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t CUDARTAPI cudaStreamQuery(cudaStream_t stream) {
  SIMRT_ENTER();
  return simrt::valid_stream(stream) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t CUDARTAPI cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
  SIMRT_ENTER();
  if (!flags || !simrt::valid_stream(stream)) return fail(cudaErrorInvalidValue);
  auto* s = reinterpret_cast<simrt::Stream*>(stream);
  *flags = rt().streams.count(s) ? s->flags : 0;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamGetPriority(cudaStream_t stream, int* priority) {
  SIMRT_ENTER();
  if (!priority || !simrt::valid_stream(stream)) return fail(cudaErrorInvalidValue);
  auto* s = reinterpret_cast<simrt::Stream*>(stream);
  *priority = rt().streams.count(s) ? s->priority : 0;
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                          unsigned int /*flags*/) {
  SIMRT_ENTER();
  if (!simrt::valid_stream(stream) || !simrt::event_of(event))
    return fail(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                            void* user_data, unsigned int flags) {
  cudaError_t status;
  {
    SIMRT_LOCK();
    if (!callback || flags != 0) return fail(cudaErrorInvalidValue);
    if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
    status = rt().sticky;
  }
  callback(stream, status, user_data);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* user_data) {
  {
    SIMRT_ENTER();
    if (!fn) return fail(cudaErrorInvalidValue);
    if (!simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  }
  fn(user_data);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
  SIMRT_ENTER();
  if (!event) return fail(cudaErrorInvalidValue);
  auto* e = new simrt::Event{flags, false, 0};
  rt().events.insert(e);
  *event = reinterpret_cast<cudaEvent_t>(e);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventCreate(cudaEvent_t* event) {
  return cudaEventCreateWithFlags(event, cudaEventDefault);
}

cudaError_t CUDARTAPI cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
  SIMRT_ENTER();
  simrt::Event* e = simrt::event_of(event);
  if (!e || !simrt::valid_stream(stream)) return fail(cudaErrorInvalidResourceHandle);
  e->recorded = true;
  e->seconds = simrt::now_seconds();
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                               unsigned int /*flags*/) {
  return cudaEventRecord(event, stream);
}

cudaError_t CUDARTAPI cudaEventSynchronize(cudaEvent_t event) {
  SIMRT_ENTER();
  return simrt::event_of(event) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t CUDARTAPI cudaEventQuery(cudaEvent_t event) {
  SIMRT_ENTER();
  return simrt::event_of(event) ? cudaSuccess : fail(cudaErrorInvalidResourceHandle);
}

cudaError_t CUDARTAPI cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  SIMRT_ENTER();
  simrt::Event* a = simrt::event_of(start);
  simrt::Event* b = simrt::event_of(end);
  if (!ms) return fail(cudaErrorInvalidValue);
  if (!a || !b || !a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
  if ((a->flags | b->flags) & cudaEventDisableTiming) return fail(cudaErrorInvalidResourceHandle);
  *ms = static_cast<float>((b->seconds - a->seconds) * 1e3);
  return cudaSuccess;
}

cudaError_t CUDARTAPI cudaEventDestroy(cudaEvent_t event) {
  SIMRT_ENTER();
  simrt::Event* e = simrt::event_of(event);
  if (!e) return fail(cudaErrorInvalidResourceHandle);
  rt().events.erase(e);
  delete e;
  return cudaSuccess;
}

}  // extern "C"
