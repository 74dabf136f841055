// C5, long rows (issue 11): candidate designs for softmax_fast at 1024×65536 and 64×1048576, where
// the reference's split kernel (the row held in registers across blocks that exchange their parts
// through global flags) reached 72.6% and 68.8% of the copy kernel on 2026-12-01.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 -o softperf_bench benchmarks/softperf_bench.cu
//   ./softperf_bench check [MAX]   every candidate against a float64 host reference (small shapes of at
//                                  most MAX elements, four kinds of input)
//   ./softperf_bench time [REPS [fast|cand|pipe|all]]
//                                  CSV: copy kernel, cudaMemcpy and softmax_fast at the 7 perf shapes, the
//                                  candidates at the two long shapes; each timed row is followed by a check
//                                  of 8 of its rows (poisoned output) against the host reference
//   ./softperf_bench info          SMs, L2, resident blocks / clusters of the candidates
//   ./softperf_bench plan          the candidates `time` measures at each long shape
//   ./softperf_bench one NAME RxC  NAME (a candidate's name, or softmax_fast) once at that shape, for ncu
//
// Candidates:
//   reread   two reads of x: a statistics pass over a segment, the row's exchange, then a second pass
//            that reads the segment again (from L2, or L1 when it is small) and writes y. Persistent
//            blocks (BPS per SM) take segments from a ticket, so at most BPS × SMs segments are between
//            their two reads: that bounds what L2 must hold. Hints: h0 none; h1 second read and y
//            .cs (evict first); h2 as h1 plus an L2 evict_last policy on the first read (GPU only).
//   reread-blocks  the same kernel with one segment a block (the grid is every segment, taken in ticket
//            order as the split kernel does), BPS blocks a SM at most (an unused shared-memory request):
//            what the simulator's sampled launches (the judge's time model) can run in part.
//   cluster  the row in registers across a thread-block cluster of K blocks (sm_90); the parts are
//            exchanged through distributed shared memory and the cluster barrier, not global flags.
//   pipelined  the row in registers across persistent blocks that hold two segments each: the next
//            segment is loaded and published before the block waits for the row of the one it holds.
//   nowait   DIAGNOSTIC, wrong results: the split kernel with the exchange left out (what the exchange
//            costs). Timed only, never checked.
#include "../solutions/c5_softmax.cu"

#include <cooperative_groups.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

namespace cand {

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

int sm_count() {
  int device = 0, sms = 1;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  return sms;
}

// ---- A: reread ----

__device__ unsigned g_work;  // persistent tickets; wraps to 0 after the launch's last draw

template <int HINT>
__device__ __forceinline__ float4 load_first(const float* p, uint64_t policy) {
#ifndef SOFTPERF_SIM
  if constexpr (HINT == 2) {
    float4 v;
    asm("ld.global.nc.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
        : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
        : "l"(p), "l"(policy));
    return v;
  }
#endif
  return *reinterpret_cast<const float4*>(p);
}

template <int HINT>
__device__ __forceinline__ float4 load_second(const float* p) {
  if constexpr (HINT >= 1) return __ldcs(reinterpret_cast<const float4*>(p));
  return *reinterpret_cast<const float4*>(p);
}

template <int HINT>
__device__ __forceinline__ void store_y(float* p, float4 v) {
  if constexpr (HINT >= 1) {
    __stcs(reinterpret_cast<float4*>(p), v);
  } else {
    *reinterpret_cast<float4*>(p) = v;
  }
}

template <int THREADS, int UNROLL, int HINT, bool PERSIST = true>
__global__ void __launch_bounds__(THREADS)
    reread_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int seg_len, int segments,
                  unsigned items, unsigned call) {
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ unsigned ticket;
  uint64_t policy = 0;
#ifndef SOFTPERF_SIM
  if constexpr (HINT == 2) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#endif
  for (bool first_item = true;; first_item = false) {
    if (!PERSIST && !first_item) break;  // one segment a block: the grid is the segments
    if (threadIdx.x == 0) ticket = PERSIST ? atomicInc(&g_work, items + gridDim.x - 1) : atomicInc(&g_ticket, gridDim.x - 1);
    __syncthreads();
    const unsigned item = ticket;
    if (item >= items) break;
    const int64_t row = item / segments;
    const int seg = static_cast<int>(item % segments);
    const int first = seg * seg_len;
    const int n = cols - first < seg_len ? cols - first : seg_len;
    const float* xs = x + row * cols + first;
    float* ys = y + row * cols + first;
    MaxSum s = empty_part();
    for (int base = threadIdx.x * 4; base < n; base += THREADS * 4 * UNROLL) {
      float v[UNROLL * 4];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c = base + u * THREADS * 4;
        float4 q = c < n ? load_first<HINT>(xs + c, policy) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        v[u * 4] = q.x, v[u * 4 + 1] = q.y, v[u * 4 + 2] = q.z, v[u * 4 + 3] = q.w;
      }
      float m = s.m;
#pragma unroll
      for (int i = 0; i < UNROLL * 4; ++i) m = fmaxf(m, v[i]);
      float d = 0.0f;
#pragma unroll
      for (int i = 0; i < UNROLL * 4; ++i) d += __expf(v[i] - m);
      s.d = s.d * __expf(s.m - m) + d;
      s.m = m;
    }
    MaxSum total = block_combine<THREADS>(s, slots);
    if (segments > 1) total = row_total(total, row * segments, seg, segments, call);
    const float inv = 1.0f / total.d;
    for (int base = threadIdx.x * 4; base < n; base += THREADS * 4 * UNROLL) {
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) {
        const int c = base + u * THREADS * 4;
        if (c < n) {
          const float4 q = load_second<HINT>(xs + c);
          store_y<HINT>(ys + c, make_float4(__expf(q.x - total.m) * inv, __expf(q.y - total.m) * inv,
                                            __expf(q.z - total.m) * inv, __expf(q.w - total.m) * inv));
        }
      }
    }
  }
}

// Returns false when the configuration cannot take the shape (the caller records "n/a").
template <int THREADS, int UNROLL, int HINT>
bool launch_reread(const float* x, float* y, int rows, int cols, int seg_len, int bps) {
  if (cols % 4 || seg_len % 4) return false;
  const auto kernel = reread_kernel<THREADS, UNROLL, HINT>;
  static const int resident = resident_blocks(kernel, THREADS);
  const int segments = (cols + seg_len - 1) / seg_len;
  const int grid_max = std::min(bps * sm_count(), resident);
  if (segments > grid_max || segments > MAX_SEGMENTS) return false;  // a row's blocks must all run at once
  const int rows_per_launch = MAX_SEGMENTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = std::min(rows - r0, rows_per_launch);
    const unsigned items = static_cast<unsigned>(n) * segments;
    const int grid = std::min<int>(grid_max, items);
    kernel<<<grid, THREADS>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, seg_len, segments, items,
                              ++g_calls);
  }
  return true;
}

// One segment a block (the grid is every segment, as for the split kernel); BPS blocks a SM at most,
// by asking each block for 1/(BPS + 1) of the SM's shared memory, which it does not use.
template <int THREADS, int UNROLL, int HINT>
bool launch_reread_blocks(const float* x, float* y, int rows, int cols, int seg_len, int bps) {
  if (cols % 4 || seg_len % 4) return false;
  const auto kernel = reread_kernel<THREADS, UNROLL, HINT, false>;
  static int smem_per_sm = 0;
  if (!smem_per_sm) {
    int device = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  }
  const int smem = smem_per_sm / (bps + 1) + 1024;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, smem);
  const int segments = (cols + seg_len - 1) / seg_len;
  if (per_sm < 1 || segments > per_sm * sm_count() || segments > MAX_SEGMENTS) return false;
  const int rows_per_launch = MAX_SEGMENTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = std::min(rows - r0, rows_per_launch);
    const unsigned items = static_cast<unsigned>(n) * segments;
    kernel<<<items, THREADS, smem>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, seg_len, segments, items,
                                     ++g_calls);
  }
  return true;
}

// ---- E: the row in registers AND shared memory (64K floats a SM), one block or a cluster a row ----
// Each block holds SEGMENT = THREADS * 4 * (CHUNKS + SCHUNKS) floats: CHUNKS float4 a thread in
// registers (load_part), SCHUNKS float4 a thread in dynamic shared memory, copied there by cp.async
// (no register holds them on the way). K = 1: a block a row (65536 floats with T512 c16 s16), no
// exchange; K = 16: a 16-block cluster holds a row of 1048576 floats, exchanged through DSMEM.

__device__ __forceinline__ void copy16_async(float4* smem, const float* gmem) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(a), "l"(gmem) : "memory");
}

template <int THREADS, int CHUNKS, int SCHUNKS, int K>
__global__ void __launch_bounds__(THREADS)
    smem_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  constexpr int REG = THREADS * 4 * CHUNKS;
  constexpr int SEGMENT = REG + THREADS * 4 * SCHUNKS;
  extern __shared__ float4 held[];  // SCHUNKS * THREADS float4
  __shared__ MaxSum slots[THREADS / 32];
  const int t = threadIdx.x;
  int rank = 0;
#ifndef SOFTPERF_SIM
  if constexpr (K > 1) rank = static_cast<int>(cg::this_cluster().block_rank());
#endif
  const int64_t row = blockIdx.x / K;
  const float* xr = x + row * cols;
  const int first = rank * SEGMENT;
#pragma unroll
  for (int k = 0; k < SCHUNKS; ++k) {
    const int c = first + REG + (k * THREADS + t) * 4;
    if (c < cols) {
      copy16_async(&held[k * THREADS + t], xr + c);
    } else {
      held[k * THREADS + t] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  float v[CHUNKS * 4];
  load_part<THREADS, 4, CHUNKS>(v, xr, first, t, cols);
  const MaxSum own = own_part(v);
  asm volatile("cp.async.wait_all;" ::: "memory");  // this thread's own copies: no barrier needed
  float ms = -FLT_MAX;
#pragma unroll
  for (int k = 0; k < SCHUNKS; ++k) {
    const float4 q = held[k * THREADS + t];
    ms = fmaxf(fmaxf(fmaxf(ms, q.x), fmaxf(q.y, q.z)), q.w);
  }
  float ds = 0.0f;
#pragma unroll
  for (int k = 0; k < SCHUNKS; ++k) {
    float4 q = held[k * THREADS + t];
    q.x = __expf(q.x - ms), q.y = __expf(q.y - ms), q.z = __expf(q.z - ms), q.w = __expf(q.w - ms);
    ds += (q.x + q.y) + (q.z + q.w);
    held[k * THREADS + t] = q;
  }
  const MaxSum own_s = {ms, ds};
  const MaxSum block = block_combine<THREADS>(combine(own, own_s), slots);
  MaxSum row_sum = block;
#ifndef SOFTPERF_SIM
  if constexpr (K > 1) {
    __shared__ MaxSum part, total;
    cg::cluster_group cluster = cg::this_cluster();
    if (t == 0) part = block;
    cluster.sync();
    if (t < 32) {
      MaxSum s = t < K ? *cluster.map_shared_rank(&part, t) : empty_part();
      s = warp_combine(s);
      if (t == 0) total = s;
    }
    asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
    __syncthreads();
    row_sum = total;
  }
#endif
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, own.m, row_sum, first, t, cols);
  const float scale = __expf(own_s.m - row_sum.m) / row_sum.d;
#pragma unroll
  for (int k = 0; k < SCHUNKS; ++k) {
    const int c = first + REG + (k * THREADS + t) * 4;
    const float4 q = held[k * THREADS + t];
    if (c < cols) *reinterpret_cast<float4*>(y + row * cols + c) = make_float4(q.x * scale, q.y * scale, q.z * scale, q.w * scale);
  }
#ifndef SOFTPERF_SIM
  if constexpr (K > 1) asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
#endif
}

template <int THREADS, int CHUNKS, int SCHUNKS, int K>
bool launch_smem_rows(const float* x, float* y, int rows, int cols) {
  constexpr int SEGMENT = THREADS * 4 * (CHUNKS + SCHUNKS);
  constexpr int SMEM = SCHUNKS * THREADS * 16;
  if (cols % 4 || cols > K * SEGMENT || (K > 1 && cols <= (K - 1) * SEGMENT)) return false;
  const auto kernel = smem_rows_kernel<THREADS, CHUNKS, SCHUNKS, K>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  if (K == 1) {
    kernel<<<rows, THREADS, SMEM>>>(x, y, cols);
    return true;
  }
#ifdef SOFTPERF_SIM
  return false;
#else
  if (K > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(rows) * K);
  config.blockDim = dim3(THREADS);
  config.dynamicSmemBytes = SMEM;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = K;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  if (cudaLaunchKernelEx(&config, kernel, x, y, cols) != cudaSuccess) {
    cudaGetLastError();  // a cluster the GPU cannot place: not sticky, clear it and report n/a
    return false;
  }
  return true;
#endif
}

#ifndef SOFTPERF_SIM
template <int THREADS, int CHUNKS, int SCHUNKS, int K>
int smem_max_clusters() {
  constexpr int SMEM = SCHUNKS * THREADS * 16;
  const auto kernel = smem_rows_kernel<THREADS, CHUNKS, SCHUNKS, K>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  if (K > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(K * 64);
  config.blockDim = dim3(THREADS);
  config.dynamicSmemBytes = SMEM;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = K;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  int n = -1;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &config) != cudaSuccess) cudaGetLastError();
  return n;
}
#endif

// ---- F: the split kernel with a release/acquire exchange ----
// As block_rows_kernel, but the flag is written with st.release and polled with ld.acquire (no
// __threadfence on either side) and the poll sleeps 32 ns: what the fences and the sleep cost.

__device__ __forceinline__ void store_release(unsigned* p, unsigned v) {
  asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned load_acquire(const unsigned* p) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

template <int THREADS>
__device__ __forceinline__ MaxSum row_total_ar(MaxSum block_part, int64_t first_slot, int seg, int segments, unsigned call) {
  __shared__ MaxSum total;
  if (threadIdx.x == 0) {
    g_parts[first_slot + seg] = block_part;
    store_release(&g_flags[first_slot + seg], call);
  }
  if (threadIdx.x < 32) {
    MaxSum s = empty_part();
    for (int i = threadIdx.x; i < segments; i += 32) {
      while (load_acquire(&g_flags[first_slot + i]) != call) __nanosleep(32);
      const volatile float* slot = &g_parts[first_slot + i].m;
      s = combine(s, {slot[0], slot[1]});
    }
    s = warp_combine(s);
    if (threadIdx.x == 0) total = s;
  }
  __syncthreads();
  return total;
}

template <int THREADS, int CHUNKS>
__global__ void __launch_bounds__(THREADS)
    split_ar_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int segments, unsigned call) {
  constexpr int SEGMENT = THREADS * 4 * CHUNKS;
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const unsigned item = ticket;
  const int64_t row = item / segments;
  const int seg = static_cast<int>(item % segments);
  float v[CHUNKS * 4];
  load_part<THREADS, 4, CHUNKS>(v, x + row * cols, seg * SEGMENT, threadIdx.x, cols);
  const MaxSum own = own_part(v);
  MaxSum total = block_combine<THREADS>(own, slots);
  total = row_total_ar<THREADS>(total, row * segments, seg, segments, call);
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, own.m, total, seg * SEGMENT, threadIdx.x, cols);
}

template <int THREADS, int CHUNKS>
bool launch_split_ar(const float* x, float* y, int rows, int cols) {
  constexpr int SEGMENT = THREADS * 4 * CHUNKS;
  if (cols % 4) return false;
  const auto kernel = split_ar_kernel<THREADS, CHUNKS>;
  static const int resident = resident_blocks(kernel, THREADS);
  const int segments = (cols + SEGMENT - 1) / SEGMENT;
  if (segments > resident || segments > MAX_SEGMENTS) return false;
  const int rows_per_launch = MAX_SEGMENTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = std::min(rows - r0, rows_per_launch);
    kernel<<<n * segments, THREADS>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, segments, ++g_calls);
  }
  return true;
}

// ---- C: pipelined (the row in registers, two segments a block) ----
// Persistent blocks hold two segments: the next one is loaded, reduced and published before the block
// waits for the row of the one it holds, so the exchange's wait overlaps a load instead of idling the
// registers. A block publishes every segment it loads before it waits, so (as for the split kernel)
// a row's segments never wait for a block that waits for them, when they all fit the grid.

__device__ unsigned g_pipe;

__device__ __forceinline__ unsigned take_ticket(unsigned items, unsigned* shared_ticket) {
  if (threadIdx.x == 0) *shared_ticket = atomicInc(&g_pipe, items + gridDim.x - 1);
  __syncthreads();
  const unsigned t = *shared_ticket;
  __syncthreads();
  return t;
}

struct Held {
  MaxSum own, block;
};

template <int THREADS, int CHUNKS>
__device__ __forceinline__ Held load_publish(float (&v)[CHUNKS * 4], const float* x, int cols, int segments, unsigned t,
                                             unsigned call, MaxSum* slots) {
  constexpr int SEG = THREADS * 4 * CHUNKS;
  const int64_t row = t / segments;
  const int seg = static_cast<int>(t % segments);
  load_part<THREADS, 4, CHUNKS>(v, x + row * cols, seg * SEG, threadIdx.x, cols);
  Held h;
  h.own = own_part(v);
  h.block = block_combine<THREADS>(h.own, slots);
  if (segments > 1 && threadIdx.x == 0) {
    volatile float* slot = &g_parts[t].m;
    slot[0] = h.block.m;
    slot[1] = h.block.d;
    __threadfence();
    *reinterpret_cast<volatile unsigned*>(&g_flags[t]) = call;
  }
  return h;
}

template <int THREADS, int CHUNKS>
__device__ __forceinline__ void wait_store(float (&v)[CHUNKS * 4], float* y, int cols, int segments, unsigned t,
                                           unsigned call, Held h, MaxSum* total) {
  constexpr int SEG = THREADS * 4 * CHUNKS;
  const int64_t row = t / segments;
  const int seg = static_cast<int>(t % segments);
  MaxSum row_part = h.block;
  if (segments > 1) {
    if (threadIdx.x < 32) {
      const int64_t first = row * segments;
      MaxSum s = empty_part();
      for (int i = threadIdx.x; i < segments; i += 32) {
        const volatile unsigned* flag = &g_flags[first + i];
        while (*flag != call) __nanosleep(128);
        __threadfence();
        const volatile float* slot = &g_parts[first + i].m;
        s = combine(s, {slot[0], slot[1]});
      }
      s = warp_combine(s);
      if (threadIdx.x == 0) *total = s;
    }
    __syncthreads();
    row_part = *total;
  }
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, h.own.m, row_part, seg * SEG, threadIdx.x, cols);
}

template <int THREADS, int CHUNKS>
__global__ void __launch_bounds__(THREADS)
    pipelined_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int segments, unsigned items,
                     unsigned call) {
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  float a[CHUNKS * 4], b[CHUNKS * 4];
  unsigned ta = take_ticket(items, &ticket);
  if (ta >= items) return;
  Held ha = load_publish<THREADS, CHUNKS>(a, x, cols, segments, ta, call, slots);
  for (;;) {
    const unsigned tb = take_ticket(items, &ticket);
    Held hb{};
    if (tb < items) hb = load_publish<THREADS, CHUNKS>(b, x, cols, segments, tb, call, slots);
    wait_store<THREADS, CHUNKS>(a, y, cols, segments, ta, call, ha, &total);
    if (tb >= items) return;
    ta = take_ticket(items, &ticket);
    if (ta < items) ha = load_publish<THREADS, CHUNKS>(a, x, cols, segments, ta, call, slots);
    wait_store<THREADS, CHUNKS>(b, y, cols, segments, tb, call, hb, &total);
    if (ta >= items) return;
  }
}

template <int THREADS, int CHUNKS>
bool launch_pipelined(const float* x, float* y, int rows, int cols, int bps) {
  constexpr int SEG = THREADS * 4 * CHUNKS;
  if (cols % 4) return false;
  const auto kernel = pipelined_kernel<THREADS, CHUNKS>;
  static const int resident = resident_blocks(kernel, THREADS);
  const int segments = (cols + SEG - 1) / SEG;
  const int grid_max = std::min(bps * sm_count(), resident);
  if (segments > grid_max || segments > MAX_SEGMENTS) return false;
  const int rows_per_launch = MAX_SEGMENTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = std::min(rows - r0, rows_per_launch);
    const unsigned items = static_cast<unsigned>(n) * segments;
    const int grid = std::min<int>(grid_max, items);
    kernel<<<grid, THREADS>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, cols, segments, items, ++g_calls);
  }
  return true;
}

// ---- B: cluster ----
// SOFTPERF_SIM: the simulator's build (compute_80 PTX) has no clusters and no createpolicy: those
// candidates are left out there.
#ifndef SOFTPERF_SIM

template <int THREADS, int CHUNKS, int CLUSTER>
__global__ void __launch_bounds__(THREADS) cluster_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int cols) {
  constexpr int SEGMENT = THREADS * 4 * CHUNKS;
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum part, total;
  cg::cluster_group cluster = cg::this_cluster();
  const int rank = static_cast<int>(cluster.block_rank());
  const int64_t row = blockIdx.x / CLUSTER;
  float v[CHUNKS * 4];
  load_part<THREADS, 4, CHUNKS>(v, x + row * cols, rank * SEGMENT, threadIdx.x, cols);
  const MaxSum own = own_part(v);
  const MaxSum block = block_combine<THREADS>(own, slots);
  if (threadIdx.x == 0) part = block;
  cluster.sync();  // every block's part is in its shared memory
  if (threadIdx.x < 32) {
    MaxSum s = threadIdx.x < CLUSTER ? *cluster.map_shared_rank(&part, threadIdx.x) : empty_part();
    s = warp_combine(s);
    if (threadIdx.x == 0) total = s;
  }
  // The others may still read this block's `part`: arrive now, wait before leaving.
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  __syncthreads();
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, own.m, total, rank * SEGMENT, threadIdx.x, cols);
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
}

template <int THREADS, int CHUNKS, int CLUSTER>
bool launch_cluster(const float* x, float* y, int rows, int cols) {
  if (cols % 4 || cols > CLUSTER * THREADS * 4 * CHUNKS) return false;
  const auto kernel = cluster_rows_kernel<THREADS, CHUNKS, CLUSTER>;
  if (CLUSTER > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(rows) * CLUSTER);
  config.blockDim = dim3(THREADS);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CLUSTER;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  if (cudaLaunchKernelEx(&config, kernel, x, y, cols) != cudaSuccess) {
    cudaGetLastError();  // a cluster the GPU cannot place: not sticky, clear it and report n/a
    return false;
  }
  return true;
}

template <int THREADS, int CHUNKS, int CLUSTER>
int max_clusters() {
  const auto kernel = cluster_rows_kernel<THREADS, CHUNKS, CLUSTER>;
  if (CLUSTER > 8) cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(CLUSTER * 64);
  config.blockDim = dim3(THREADS);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = CLUSTER;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  int n = -1;
  if (cudaOccupancyMaxActiveClusters(&n, kernel, &config) != cudaSuccess) cudaGetLastError();
  return n;
}

#endif  // SOFTPERF_SIM

// ---- D: nowait (diagnostic) ----

template <int THREADS, int CHUNKS>
__global__ void __launch_bounds__(THREADS) nowait_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int segments) {
  constexpr int SEGMENT = THREADS * 4 * CHUNKS;
  __shared__ MaxSum slots[THREADS / 32];
  const int64_t row = blockIdx.x / segments;
  const int seg = static_cast<int>(blockIdx.x % segments);
  float v[CHUNKS * 4];
  load_part<THREADS, 4, CHUNKS>(v, x + row * cols, seg * SEGMENT, threadIdx.x, cols);
  const MaxSum own = own_part(v);
  const MaxSum total = block_combine<THREADS>(own, slots);
  store_part<THREADS, 4, CHUNKS>(y + row * cols, v, own.m, total, seg * SEGMENT, threadIdx.x, cols);
}

template <int THREADS, int CHUNKS>
bool launch_nowait(const float* x, float* y, int rows, int cols) {
  if (cols % 4) return false;
  const int segments = (cols + THREADS * 4 * CHUNKS - 1) / (THREADS * 4 * CHUNKS);
  nowait_kernel<THREADS, CHUNKS><<<rows * segments, THREADS>>>(x, y, cols, segments);
  return true;
}

// ---- the list ----

using Launch = std::function<bool(const float*, float*, int, int)>;

struct Cand {
  std::string name;
  Launch launch;
  bool checked;  // false: diagnostic, results knowingly wrong
  int shape_mask;  // bit 0: 1024x65536, bit 1: 64x1048576
  bool pipe = false;  // timed by `time REPS pipe`, in a process of its own (the newest waiting schemes)
};

template <int T, int U, int H>
Cand reread(int seg_len, int bps, int mask) {
  return {"reread T" + std::to_string(T) + " u" + std::to_string(U) + " h" + std::to_string(H) + " seg" +
              std::to_string(seg_len) + " bps" + std::to_string(bps),
          [=](const float* x, float* y, int r, int c) { return launch_reread<T, U, H>(x, y, r, c, seg_len, bps); },
          true, mask};
}

template <int T, int U, int H>
Cand reread_blocks(int seg_len, int bps, int mask) {
  return {"reread-blocks T" + std::to_string(T) + " u" + std::to_string(U) + " h" + std::to_string(H) + " seg" +
              std::to_string(seg_len) + " bps" + std::to_string(bps),
          [=](const float* x, float* y, int r, int c) { return launch_reread_blocks<T, U, H>(x, y, r, c, seg_len, bps); },
          true, mask};
}

template <int T, int C, int S, int K>
Cand smem_rows(int mask) {
  return {"smem-rows K" + std::to_string(K) + " T" + std::to_string(T) + " c" + std::to_string(C) + " s" + std::to_string(S),
          [](const float* x, float* y, int r, int c) { return launch_smem_rows<T, C, S, K>(x, y, r, c); }, true, mask,
          K > 1};
}

#ifndef SOFTPERF_SIM

template <int T, int C, int K>
Cand cluster() {
  return {"cluster K" + std::to_string(K) + " T" + std::to_string(T) + " c" + std::to_string(C),
          [](const float* x, float* y, int r, int c) { return launch_cluster<T, C, K>(x, y, r, c); }, true, 1};
}
#endif

template <int T, int C>
Cand pipelined(int bps, int mask) {
  return {"pipelined T" + std::to_string(T) + " c" + std::to_string(C) + " bps" + std::to_string(bps),
          [=](const float* x, float* y, int r, int c) { return launch_pipelined<T, C>(x, y, r, c, bps); }, true, mask,
          true};
}

template <int T, int C>
Cand split_ar(int mask) {
  return {"split-ar T" + std::to_string(T) + " c" + std::to_string(C),
          [](const float* x, float* y, int r, int c) { return launch_split_ar<T, C>(x, y, r, c); }, true, mask};
}

template <int T, int C>
Cand nowait(int mask) {
  return {"nowait T" + std::to_string(T) + " c" + std::to_string(C),
          [](const float* x, float* y, int r, int c) { return launch_nowait<T, C>(x, y, r, c); }, false, mask};
}

Cand split(const char* name, Launcher fn, int mask, bool pipe = false) {
  // A launch the GPU refuses (a cluster it cannot place) is reported n/a, and its error cleared.
  return {name, [fn](const float* x, float* y, int r, int c) { fn(x, y, r, c); return cudaGetLastError() == cudaSuccess; },
          true, mask, pipe};
}

std::vector<Cand> candidates() {
  return {
      split("split T512 c16", launch_block_rows<512, 4, 16>, 3),
      split("reference smem_rows K1 T512 c16", ::launch_smem_rows<512, 16, 1>, 1),
      split("reference cluster_rows K2 T512 c16", ::launch_cluster_rows<512, 16, 2>, 1),
      split("split T256 c8", launch_block_rows<256, 4, 8>, 3),
      split_ar<512, 16>(3),
      split_ar<256, 8>(3),
      nowait<512, 16>(3),
      nowait<256, 8>(3),
      // one block per row of 65536: no exchange at all
      reread<1024, 4, 0>(65536, 1, 3),
      reread<1024, 4, 0>(65536, 2, 3),
      reread<1024, 4, 1>(65536, 1, 3),
      reread<1024, 4, 1>(65536, 2, 3),
      reread<1024, 4, 1>(32768, 1, 3),
      reread<1024, 4, 1>(16384, 2, 3),
#ifndef SOFTPERF_SIM
      reread<1024, 4, 2>(65536, 1, 3),
      reread<1024, 4, 2>(65536, 2, 3),
#endif
      reread<1024, 8, 1>(65536, 2, 3),
      reread<512, 4, 1>(65536, 2, 3),
      reread<512, 4, 1>(65536, 4, 3),
      reread<512, 8, 1>(32768, 2, 3),
      reread<512, 8, 1>(32768, 4, 3),
#ifndef SOFTPERF_SIM
      reread<512, 4, 2>(32768, 4, 3),
#endif
      reread<256, 4, 1>(16384, 4, 3),
      reread<256, 4, 1>(16384, 8, 3),
#ifndef SOFTPERF_SIM
      reread<256, 4, 2>(16384, 8, 3),
#endif
      reread<256, 4, 1>(8192, 8, 3),
      reread<256, 4, 0>(8192, 8, 3),
      reread<1024, 4, 1>(131072, 1, 2),
      reread<1024, 4, 1>(131072, 2, 2),
      reread_blocks<1024, 4, 0>(65536, 1, 3),
      reread_blocks<1024, 4, 1>(65536, 1, 3),
      reread_blocks<1024, 4, 1>(65536, 2, 3),
      reread_blocks<1024, 4, 1>(32768, 1, 3),
      reread_blocks<512, 4, 1>(32768, 2, 3),
      reread_blocks<256, 4, 1>(16384, 4, 3),
      reread_blocks<256, 4, 1>(8192, 8, 3),
#ifndef SOFTPERF_SIM
      cluster<256, 8, 8>(),
      cluster<512, 4, 8>(),
      cluster<1024, 2, 8>(),
      cluster<256, 4, 16>(),
      cluster<128, 8, 16>(),
      cluster<512, 8, 4>(),
      cluster<1024, 4, 4>(),
      cluster<512, 16, 2>(),
      smem_rows<512, 16, 16, 16>(2),
      smem_rows<1024, 8, 8, 16>(2),
#endif
      smem_rows<512, 16, 16, 1>(1),
      smem_rows<1024, 8, 8, 1>(1),
      split("reference smem_rows K16 T512 c16", ::launch_smem_rows<512, 16, 16>, 2, true),
      pipelined<256, 8>(2, 3),
      pipelined<512, 4>(2, 3),
      pipelined<256, 4>(4, 3),
      pipelined<512, 8>(1, 3),
      pipelined<1024, 4>(1, 3),
      pipelined<128, 8>(8, 3),
  };
}

// ---- inputs and reference (as benchmarks/c5_softmax_bench.cu) ----

__global__ void fill_kernel(float* x, int64_t n, uint32_t seed) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ seed ^ static_cast<uint32_t>(i >> 32) * 40503u;
    h ^= h >> 15, h *= 2246822519u, h ^= h >> 13, h *= 3266489917u, h ^= h >> 16;
    const float v = (h >> 8) * (2.0f / 16777216.0f) - 1.0f;  // [-1, 1)
    x[i] = v == 0.0f ? 0.5f : v;
  }
}

void fill(float* x, int64_t n, uint32_t seed) {
  fill_kernel<<<1024, 256>>>(x, n, seed);
  CHECK_CUDA(cudaGetLastError());
}

double eps(double n, double t) { return std::ldexp(64.0 + 1.2 * (t + std::log(n) + 1.0), -23) + std::ldexp(std::sqrt(n), -21); }

// The float64 reference of `rows` rows and each element's tolerance (tests/c5_softmax_test.cu's).
struct Reference {
  std::vector<double> want, tol;
};

Reference reference(const float* x, int rows, int cols) {
  Reference ref;
  ref.want.resize((size_t)rows * cols);
  ref.tol.resize((size_t)rows * cols);
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + (size_t)r * cols;
    double m = -INFINITY, d = 0;
    for (int c = 0; c < cols; ++c) m = std::max(m, (double)xr[c]);
    for (int c = 0; c < cols; ++c) d += std::exp(xr[c] - m);
    for (int c = 0; c < cols; ++c) {
      const size_t i = (size_t)r * cols + c;
      const double w = std::exp(xr[c] - m) / d;
      ref.want[i] = w;
      ref.tol[i] = (w > 0 ? w * eps(cols, m - xr[c]) : 0.0) + std::ldexp(1.0, -126);
    }
  }
  return ref;
}

// Worst |got - want| / tolerance (> 1: wrong); NaN where the reference is NaN (all -inf rows).
double worst_error(const Reference& ref, const float* y) {
  double worst = 0;
  for (size_t i = 0; i < ref.want.size(); ++i) {
    const double w = ref.want[i], g = y[i];
    const double err = std::isnan(w) ? (std::isnan(g) ? 0 : INFINITY) : (std::isnan(g) ? INFINITY : std::fabs(g - w) / ref.tol[i]);
    worst = std::max(worst, err);
  }
  return worst;
}

std::vector<float> host_input(int rows, int cols, uint32_t seed, const char* kind) {
  const size_t n = (size_t)rows * cols;
  std::vector<float> x(n);
  uint32_t state = seed * 747796405u + 1;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    float v = ((state >> 8) * (2.0f / 16777216.0f)) - 1.0f;
    x[i] = v == 0.0f ? 0.5f : v;
  }
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) {
      float& v = x[(size_t)r * cols + c];
      if (!std::strcmp(kind, "scaled")) v *= 1000.0f;
      if (!std::strcmp(kind, "neginf") && ((r * 31 + c) % 5 == 0 || (rows > 1 && r == rows - 1))) v = -INFINITY;
      if (!std::strcmp(kind, "latemax") && c >= cols - cols / 4) v += 8.0f;
    }
  return x;
}

struct Shape {
  int rows, cols;
};

bool applies(const Cand& c, const Shape& s) {
  return (s.cols == 65536 && (c.shape_mask & 1)) || (s.cols == 1048576 && (c.shape_mask & 2));
}

int check_mode(long long max_elements) {
  // Many rows of 65536 (the tickets and flags of several launches' worth of rows), a few of 1048576,
  // and rows that end inside a segment.
  const Shape shapes[] = {{3, 65536}, {2, 65532}, {37, 65536}, {3, 1048576}, {5, 65532}, {2, 1048572}};
  const char* kinds[] = {"uniform", "scaled", "neginf", "latemax"};
  int failures = 0;
  std::printf("name,shape,inputs,worst_error_over_tolerance,status\n");
  for (const Shape& s : shapes) {
    const size_t n = (size_t)s.rows * s.cols;
    if ((long long)n > max_elements) continue;
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    for (const char* kind : kinds) {
      const std::vector<float> x = host_input(s.rows, s.cols, s.rows * 131u + s.cols, kind);
      const Reference ref = reference(x.data(), s.rows, s.cols);
      CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      std::vector<float> y(n);
      auto one = [&](const std::string& name, const Launch& fn) {
        CHECK_CUDA(cudaMemset(dy, 0xFF, n * sizeof(float)));  // poison: NaN
        const bool ran = fn(dx, dy, s.rows, s.cols);
        cudaError_t err = cudaGetLastError();
        if (err == cudaSuccess) err = cudaDeviceSynchronize();
        if (!ran && err == cudaSuccess) {
          std::printf("%s,%dx%d,%s,,n/a\n", name.c_str(), s.rows, s.cols, kind);
          return;
        }
        double worst = INFINITY;
        if (err == cudaSuccess) {
          CHECK_CUDA(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
          worst = worst_error(ref, y.data());
        }
        const bool ok = worst <= 1;
        failures += !ok;
        std::printf("%s,%dx%d,%s,%.4g,%s%s\n", name.c_str(), s.rows, s.cols, kind, worst, ok ? "pass" : "FAIL",
                    err == cudaSuccess ? "" : (std::string(" ") + cudaGetErrorString(err)).c_str());
        std::fflush(stdout);
        if (err != cudaSuccess) std::exit(2);
      };
      one("softmax_fast", [](const float* x, float* y, int r, int c) { softmax_fast(x, y, r, c); return true; });
      const char* only = std::getenv("SOFTPERF_ONLY");  // a substring of the names to check (simulator runs)
      for (const Cand& c : candidates())
        if (c.checked && (!only || c.name.find(only) != std::string::npos)) one(c.name, c.launch);
    }
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  std::fprintf(stderr, "check: %d failure(s)\n", failures);
  return failures ? 1 : 0;
}

float median_ms(const std::function<void()>& call, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) call();
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(a);
    call();
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    cudaEventElapsedTime(&t[i], a, b);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  CHECK_CUDA(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

// After a timing: one more call on poisoned y, then 8 rows spread over the matrix (first and last
// included; 4 of 1048576) against the host reference.
double sample_check(const Launch& fn, const float* dx, float* dy, const Shape& s) {
  const int64_t n = (int64_t)s.rows * s.cols;
  CHECK_CUDA(cudaMemset(dy, 0xFF, n * sizeof(float)));
  fn(dx, dy, s.rows, s.cols);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<float> xr(s.cols), yr(s.cols);
  double worst = 0;
  const int samples = std::max(2, std::min(8, (1 << 22) / s.cols));
  for (int k = 0; k < samples; ++k) {
    const int64_t r = (int64_t)(s.rows - 1) * k / (samples - 1);
    CHECK_CUDA(cudaMemcpy(xr.data(), dx + r * s.cols, s.cols * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaMemcpy(yr.data(), dy + r * s.cols, s.cols * sizeof(float), cudaMemcpyDeviceToHost));
    worst = std::max(worst, worst_error(reference(xr.data(), 1, s.cols), yr.data()));
  }
  return worst;
}

const Shape kPerfShapes[] = {{4096, 8192}, {16384, 16384}, {65536, 1024}, {262144, 128},
                             {1024, 65536}, {64, 1048576}, {8192, 4097}};

int time_mode(int reps, const std::string& which) {
  const bool fast = which == "fast" || which == "all", cands = which == "cand" || which == "all",
             pipes = which == "pipe" || which == "all";
  if (fast) std::printf("shape,name,kind,ms,gbps,pct_copy_kernel,pct_memcpy,sample_worst_error_over_tolerance\n");
  for (const Shape& s : kPerfShapes) {
    if (!fast && s.cols != 65536 && s.cols != 1048576) continue;  // the candidates' shapes only
    const int64_t n = (int64_t)s.rows * s.cols;
    const double bytes = 2.0 * n * sizeof(float);
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    fill(dx, n, 12345u + s.cols);
    const float copy_ms = median_ms([&] { copy_vec4(dx, dy, s.rows, s.cols); }, 5, reps);
    const float memcpy_ms =
        median_ms([&] { cudaMemcpyAsync(dy, dx, n * sizeof(float), cudaMemcpyDeviceToDevice); }, 5, reps);
    auto row = [&](const std::string& name, const std::string& kind, float ms, const std::string& check) {
      const double gbps = bytes / (ms * 1e-3) / 1e9;
      std::printf("%dx%d,%s,%s,%.4f,%.0f,%.1f,%.1f,%s\n", s.rows, s.cols, name.c_str(), kind.c_str(), ms, gbps,
                  100.0 * copy_ms / ms, 100.0 * memcpy_ms / ms, check.c_str());
      std::fflush(stdout);
    };
    row("copy_vec4", "bound", copy_ms, "");
    row("cudaMemcpy", "bound", memcpy_ms, "");
    uint32_t seed = 1;
    auto timed = [&](const std::string& name, const std::string& kind, const Launch& fn, bool checked) {
      fill(dx, n, 777u * seed++ + s.rows);  // fresh random input for each variant
      bool ran = true;
      const float ms = median_ms([&] { ran = fn(dx, dy, s.rows, s.cols) && ran; }, 3, reps);
      if (!ran) {
        std::printf("%dx%d,%s,%s,,,,,n/a\n", s.rows, s.cols, name.c_str(), kind.c_str());
        return;
      }
      char buf[32] = "not checked (diagnostic)";
      if (checked) std::snprintf(buf, sizeof buf, "%.4g", sample_check(fn, dx, dy, s));
      row(name, kind, ms, buf);
    };
    if (fast)
      timed("softmax_fast", "fast", [](const float* x, float* y, int r, int c) { softmax_fast(x, y, r, c); return true; },
            true);
    for (const Cand& c : candidates())
      if ((c.pipe ? pipes : cands) && applies(c, s)) timed(c.name, c.checked ? "candidate" : "diagnostic", c.launch, c.checked);
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  return 0;
}

int info_mode() {
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("name=%s sms=%d l2_bytes=%d persisting_l2_max=%d regs_per_sm=%d smem_per_sm=%zu\n", p.name,
              p.multiProcessorCount, p.l2CacheSize, p.persistingL2CacheMaxSize, p.regsPerMultiprocessor,
              p.sharedMemPerMultiprocessor);
  std::printf("resident blocks: reread<1024,4,1> %d, reread<512,8,1> %d, reread<256,4,1> %d, block_rows<512,4,16> %d\n",
              resident_blocks(reread_kernel<1024, 4, 1>, 1024), resident_blocks(reread_kernel<512, 8, 1>, 512),
              resident_blocks(reread_kernel<256, 4, 1>, 256), resident_blocks(block_rows_kernel<512, 4, 16>, 512));
#ifndef SOFTPERF_SIM
  std::printf("max active clusters: K8 T256 c8 %d, K8 T512 c4 %d, K16 T256 c4 %d, K4 T1024 c4 %d, K2 T512 c16 %d\n",
              max_clusters<256, 8, 8>(), max_clusters<512, 4, 8>(), max_clusters<256, 4, 16>(), max_clusters<1024, 4, 4>(),
              max_clusters<512, 16, 2>());
  std::printf("max active clusters: smem-rows K16 T512 c16 s16 %d, K16 T1024 c8 s8 %d\n",
              smem_max_clusters<512, 16, 16, 16>(), smem_max_clusters<1024, 8, 8, 16>());
#endif
  return 0;
}

int plan_mode() {
  for (const Shape& s : kPerfShapes) {
    std::printf("%dx%d: softmax_fast", s.rows, s.cols);
    for (const Cand& c : candidates())
      if (applies(c, s)) std::printf(" [%s]", c.name.c_str());
    std::printf("\n");
  }
  return 0;
}

// One call of one candidate (or softmax_fast) at one shape, for ncu.
int one_mode(const std::string& name, const char* shape) {
  Shape s{};
  if (std::sscanf(shape, "%dx%d", &s.rows, &s.cols) != 2) return 2;
  Launch fn;
  if (name == "softmax_fast") fn = [](const float* x, float* y, int r, int c) { softmax_fast(x, y, r, c); return true; };
  for (const Cand& c : candidates())
    if (c.name == name) fn = c.launch;
  if (!fn) {
    std::fprintf(stderr, "unknown candidate %s\n", name.c_str());
    return 2;
  }
  const int64_t n = (int64_t)s.rows * s.cols;
  float *dx, *dy;
  CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
  fill(dx, n, 99u);
  CHECK_CUDA(cudaDeviceSynchronize());
  const bool ran = fn(dx, dy, s.rows, s.cols);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  return ran ? 0 : 3;
}

}  // namespace cand

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "check") return cand::check_mode(argc > 2 ? std::atoll(argv[2]) : 1LL << 40);
  if (mode == "time") return cand::time_mode(argc > 2 ? std::atoi(argv[2]) : 30, argc > 3 ? argv[3] : "all");
  if (mode == "info") return cand::info_mode();
  if (mode == "plan") return cand::plan_mode();
  if (mode == "one" && argc > 3) return cand::one_mode(argv[2], argv[3]);
  std::fprintf(stderr, "usage: %s check [MAX] | time [REPS [fast|cand|pipe|all]] | one NAME RxC | info | plan\n", argv[0]);
  return 2;
}
