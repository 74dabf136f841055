// C5, 64×1048576 (issue 11): softmax_fast against the copy kernel at the 7 perf shapes, and
// candidates for rows longer than one SM holds, all defined here (the reference's softmax_fast keeps
// block_rows_kernel<512, 4, 16> for them; none of these reached 85% of the copy kernel on the H200):
// stream_rows_kernel<THREADS, VPT, AHEAD, LAG> (persistent blocks share each row, CHUNK =
// THREADS·4·VPT floats each, rows in a shared-memory pipeline AHEAD rows deep for loads and LAG rows
// deep for the exchange), its two-barrier first version, and a variant that writes y from a second
// read of x from L2; beside the split kernel (block_rows_kernel<512, 4, 16>) and the whole-row block
// at 1024×65536 (smem_rows_kernel<512, 16, 1>). benchmarks/h200-c5-2026-12-02-split.md has the runs.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 -o softperf_split_bench benchmarks/softperf_split_bench.cu
//   ./softperf_split_bench check [MAX]     every candidate and softmax_fast against a float64 host
//                                          reference (shapes of at most MAX elements, 4 kinds of input)
//   ./softperf_split_bench time REPS fast  CSV: copy kernel, cudaMemcpy, softmax_fast at the 7 perf shapes
//   ./softperf_split_bench time REPS cand  CSV: the same bounds and the candidates at 1024×65536, 64×1048576
//   ./softperf_split_bench info            SMs, L2, blocks of each candidate the GPU holds at once
//   ./softperf_split_bench one NAME RxC    one call (for ncu)
// Timed rows: median of REPS CUDA-event timings after 3 warm-up calls (5 for the bounds), a fresh
// random input per variant; then one more call on NaN-poisoned y and 8 rows (4 of 1048576 floats)
// spread over the matrix, first and last included, against the host reference (worst error over the
// tolerance of tests/c5_softmax_test.cu: > 1 fails).
#include "../solutions/c5_softmax.cu"

// ---- the candidates' kernels (they use the reference's MaxSum, combine, warp_combine, copy16_async,
// g_ticket and launch_block_rows) ----

namespace {

// Rows longer than one SM holds (64×1048576: 4 MB a row). The split kernel makes each block wait,
// between reading its segment and writing it, for every other segment of the row, and the SM idles
// through that wait. Here `segments` blocks share each row, CHUNK floats each, and every block keeps
// STAGES of its rows in shared memory: it loads AHEAD rows ahead of the one it sums (cp.async: the
// loads stay in flight while it waits) and writes the row LAG rows behind, whose parts its row-mates
// published at least a round earlier, so the wait is rarely a wait at all. One barrier a round. A part
// is one 64-bit store that is its own flag (the sum's sign bit set; an empty slot is 0): publishing
// needs no fence. Each launch clears the bank of slots the next launch uses (two banks alternate).
// A block's role (group of rows, segment) is its ticket: every block of the oldest unfinished group
// has started, and the host launches only when a group's `segments` blocks fit on the GPU at once,
// so every wait ends.
constexpr int STREAM_SLOTS = 1 << 16;
constexpr int POLL = 8;  // parts a lane of the collecting warp reads at once
__device__ unsigned long long g_stream_parts[2][STREAM_SLOTS];

__device__ __forceinline__ unsigned long long pack_part(MaxSum p) {
  return static_cast<unsigned long long>(__float_as_uint(p.d) | 0x80000000u) << 32 | __float_as_uint(p.m);
}

__device__ __forceinline__ MaxSum unpack_part(unsigned long long v) {
  return {__uint_as_float(static_cast<unsigned>(v)), __uint_as_float(static_cast<unsigned>(v >> 32) & 0x7fffffffu)};
}

template <int THREADS, int VPT, int AHEAD, int LAG>
__global__ void __launch_bounds__(THREADS, 1)
    stream_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols, int segments,
                       int groups, unsigned call) {
  constexpr int CHUNK = THREADS * 4 * VPT;  // floats of a row a block holds
  constexpr int STAGES = AHEAD + LAG + 1;
  constexpr int STAGE = VPT * THREADS;      // float4 a stage
  static_assert(LAG >= 1, "a block publishes row k after it collects row k - LAG");
  extern __shared__ float4 held[];          // STAGES × STAGE float4: element v of thread t at v·THREADS + t
  __shared__ float own_max[STAGES][THREADS];
  __shared__ MaxSum slots[2][THREADS / 32];
  __shared__ MaxSum total[2];
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = g_stream_parts[call & 1];
  unsigned long long* next = g_stream_parts[(call + 1) & 1];
  for (int i = blockIdx.x * THREADS + t; i < STREAM_SLOTS; i += gridDim.x * THREADS) next[i] = 0;
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int group = static_cast<int>(ticket) / segments, seg = static_cast<int>(ticket) % segments;
  const int n = group < rows ? (rows - 1 - group) / groups + 1 : 0;  // rows group, group + groups, ...
  const int first = seg * CHUNK;
  auto row_of = [&](int k) { return static_cast<int64_t>(group) + static_cast<int64_t>(k) * groups; };
  auto load = [&](int k) {  // row k's chunk into stage k % STAGES; one commit group per call
    if (k < n) {
      const float* xr = x + row_of(k) * cols;
      float4* s = held + (k % STAGES) * STAGE;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        if (c < cols) {
          copy16_async(&s[v * THREADS + t], xr + c);
        } else {
          s[v * THREADS + t] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int k = 0; k < AHEAD; ++k) load(k);
  for (int k = 0; k < n + LAG; ++k) {
    const int j = k - LAG;  // the row to write in this round
    if (k < n) load(k + AHEAD);
    if (j >= 0 && t >= 32 && t < 64) {  // warp 1 collects row j's parts, in the same order in every block
      MaxSum p = empty_part();
      const volatile unsigned long long* row_parts = &parts[row_of(j) * segments];
      for (int i0 = t - 32; i0 < segments; i0 += 32 * POLL) {
        unsigned long long v[POLL];  // POLL loads a lane in flight at once: one trip to L2, not POLL
#pragma unroll
        for (int u = 0; u < POLL; ++u) v[u] = i0 + 32 * u < segments ? row_parts[i0 + 32 * u] : 0;
#pragma unroll
        for (int u = 0; u < POLL; ++u) {
          if (i0 + 32 * u < segments) {
            while (v[u] == 0) {
              __nanosleep(32);
              v[u] = row_parts[i0 + 32 * u];
            }
            p = combine(p, unpack_part(v[u]));
          }
        }
      }
      p = warp_combine(p);
      if (t == 32) total[j & 1] = p;
    }
    if (k < n) {  // row k: this thread's part, e^(x - m) left in place
      asm volatile("cp.async.wait_group %0;" ::"n"(AHEAD) : "memory");  // row k's copies (this thread's) landed
      float4* s = held + (k % STAGES) * STAGE;
      float4 q[VPT];
      float m = -FLT_MAX, d = 0.0f;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        q[v] = s[v * THREADS + t];
        m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
      }
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        q[v] = make_float4(__expf(q[v].x - m), __expf(q[v].y - m), __expf(q[v].z - m), __expf(q[v].w - m));
        d += (q[v].x + q[v].y) + (q[v].z + q[v].w);
        s[v * THREADS + t] = q[v];
      }
      own_max[k % STAGES][t] = m;
      const MaxSum w = warp_combine(MaxSum{m, d});
      if (t % 32 == 0) slots[k & 1][t / 32] = w;
    }
    __syncthreads();  // the one barrier a round: slots and total are double-buffered across it
    if (k < n && t < 32) {  // warp 0 publishes the block's part of row k
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[k & 1][t] : empty_part());
      if (t == 0) *reinterpret_cast<volatile unsigned long long*>(&parts[row_of(k) * segments + seg]) = pack_part(p);
    }
    if (j >= 0) {
      const float4* s = held + (j % STAGES) * STAGE;
      const MaxSum row = total[j & 1];
      const float scale = __expf(own_max[j % STAGES][t] - row.m) / row.d;
      float* yr = y + row_of(j) * cols;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        const float4 e = s[v * THREADS + t];
        if (c < cols) *reinterpret_cast<float4*>(yr + c) = make_float4(e.x * scale, e.y * scale, e.z * scale, e.w * scale);
      }
    }
  }
}

// As many groups of `segments` blocks as the GPU holds at once (at least one), each taking every
// groups-th row; in batches of rows that fit the slots. A row wider than the GPU holds blocks of
// this kernel goes to the split kernel (which falls back to two reads where even it cannot wait).
unsigned g_stream_calls = 0;  // each launch's number: its parity picks the bank of slots

template <int THREADS, int VPT, int AHEAD, int LAG>
void launch_stream_rows(const float* x, float* y, int rows, int cols) {
  constexpr int CHUNK = THREADS * 4 * VPT;
  constexpr int SMEM = (AHEAD + LAG + 1) * VPT * THREADS * 16;
  const auto kernel = stream_rows_kernel<THREADS, VPT, AHEAD, LAG>;
  static const int resident = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    int device = 0, sms = 1, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, SMEM);
    return sms * per_sm;
  }();
  const int segments = (cols + CHUNK - 1) / CHUNK;
  if (segments > resident || segments > STREAM_SLOTS) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  const int rows_per_launch = STREAM_SLOTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    const int groups = resident / segments < n ? resident / segments : n;
    kernel<<<groups * segments, THREADS, SMEM>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, n, cols, segments,
                                                 groups, ++g_stream_calls);
  }
}

}  // namespace

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

// The first version of stream_rows_kernel (two barriers a row: the parts are collected after the
// block's own part is published). MODE 0: as in the first H200 run, the collecting warp reads the
// parts one after another; 1: all of a lane's parts at once (POLL); 2: DIAGNOSTIC, no exchange at
// all (each block scales by its own part: wrong results, timed only), what the waiting costs.
template <int THREADS, int VPT, int AHEAD, int LAG, int MODE = 0>
__global__ void __launch_bounds__(THREADS, MODE == 0 ? 0 : 1)  // MODE 0 as compiled for the first run
    stream_rows_2bar_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols, int segments,
                       int groups, unsigned call) {
  constexpr int CHUNK = THREADS * 4 * VPT;  // floats of a row a block holds
  constexpr int STAGES = AHEAD + LAG + 1;
  constexpr int STAGE = VPT * THREADS;      // float4 a stage
  extern __shared__ float4 held[];          // STAGES × STAGE float4: element v of thread t at v·THREADS + t
  __shared__ float own_max[STAGES][THREADS];
  __shared__ MaxSum slots[2][THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = g_stream_parts[call & 1];
  unsigned long long* next = g_stream_parts[(call + 1) & 1];
  for (int i = blockIdx.x * THREADS + t; i < STREAM_SLOTS; i += gridDim.x * THREADS) next[i] = 0;
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int group = static_cast<int>(ticket) / segments, seg = static_cast<int>(ticket) % segments;
  const int n = group < rows ? (rows - 1 - group) / groups + 1 : 0;  // rows group, group + groups, ...
  const int first = seg * CHUNK;
  auto row_of = [&](int k) { return static_cast<int64_t>(group) + static_cast<int64_t>(k) * groups; };
  auto load = [&](int k) {  // row k's chunk into stage k % STAGES; one commit group per call
    if (k < n) {
      const float* xr = x + row_of(k) * cols;
      float4* s = held + (k % STAGES) * STAGE;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        if (c < cols) {
          copy16_async(&s[v * THREADS + t], xr + c);
        } else {
          s[v * THREADS + t] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int k = 0; k < AHEAD; ++k) load(k);
  for (int k = 0; k < n + LAG; ++k) {
    if (k < n) {
      load(k + AHEAD);
      asm volatile("cp.async.wait_group %0;" ::"n"(AHEAD) : "memory");  // row k's copies (this thread's) landed
      float4* s = held + (k % STAGES) * STAGE;
      float4 q[VPT];
      float m = -FLT_MAX, d = 0.0f;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        q[v] = s[v * THREADS + t];
        m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
      }
#pragma unroll
      for (int v = 0; v < VPT; ++v) {  // e^(x - m) back in place, used again for y
        q[v] = make_float4(__expf(q[v].x - m), __expf(q[v].y - m), __expf(q[v].z - m), __expf(q[v].w - m));
        d += (q[v].x + q[v].y) + (q[v].z + q[v].w);
        s[v * THREADS + t] = q[v];
      }
      own_max[k % STAGES][t] = m;
      const MaxSum w = warp_combine(MaxSum{m, d});
      if (t % 32 == 0) slots[k & 1][t / 32] = w;
    }
    __syncthreads();
    if (k < n && t < 32) {  // warp 0 publishes the block's part of row k
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[k & 1][t] : empty_part());
      if (MODE == 2) {
        if (t == 0) total = p;
      } else if (t == 0) {
        *reinterpret_cast<volatile unsigned long long*>(&parts[row_of(k) * segments + seg]) = pack_part(p);
      }
    }
    const int j = k - LAG;  // the row to write now
    if (MODE != 2 && j >= 0 && t >= 32 && t < 64) {  // warp 1 collects row j's parts, same order in every block
      MaxSum s = empty_part();
      const volatile unsigned long long* row_parts = &parts[row_of(j) * segments];
      if (MODE == 0) {
        for (int i = t - 32; i < segments; i += 32) {
          unsigned long long v;
          while ((v = row_parts[i]) == 0) __nanosleep(32);
          s = combine(s, unpack_part(v));
        }
      } else {
        for (int i0 = t - 32; i0 < segments; i0 += 32 * POLL) {
          unsigned long long v[POLL];
#pragma unroll
          for (int u = 0; u < POLL; ++u) v[u] = i0 + 32 * u < segments ? row_parts[i0 + 32 * u] : 0;
#pragma unroll
          for (int u = 0; u < POLL; ++u) {
            if (i0 + 32 * u < segments) {
              while (v[u] == 0) {
                __nanosleep(32);
                v[u] = row_parts[i0 + 32 * u];
              }
              s = combine(s, unpack_part(v[u]));
            }
          }
        }
      }
      s = warp_combine(s);
      if (t == 32) total = s;
    }
    __syncthreads();
    if (j >= 0) {
      const float4* s = held + (j % STAGES) * STAGE;
      const float scale = __expf(own_max[j % STAGES][t] - total.m) / total.d;
      float* yr = y + row_of(j) * cols;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        const float4 e = s[v * THREADS + t];
        if (c < cols) *reinterpret_cast<float4*>(yr + c) = make_float4(e.x * scale, e.y * scale, e.z * scale, e.w * scale);
      }
    }
  }
}

template <int THREADS, int VPT, int AHEAD, int LAG, int MODE = 0>
void launch_stream_rows_2bar(const float* x, float* y, int rows, int cols) {
  constexpr int CHUNK = THREADS * 4 * VPT;
  constexpr int SMEM = (AHEAD + LAG + 1) * VPT * THREADS * 16;
  const auto kernel = stream_rows_2bar_kernel<THREADS, VPT, AHEAD, LAG, MODE>;
  static const int resident = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    int device = 0, sms = 1, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, SMEM);
    return sms * per_sm;
  }();
  const int segments = (cols + CHUNK - 1) / CHUNK;
  if (segments > resident || segments > STREAM_SLOTS) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  const int rows_per_launch = STREAM_SLOTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    const int groups = resident / segments < n ? resident / segments : n;
    kernel<<<groups * segments, THREADS, SMEM>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, n, cols, segments,
                                                 groups, ++g_stream_calls);
  }
}


// stream_rows_kernel with the rows held in L2 instead of shared memory: x is read once into shared
// memory (cp.async, AHEAD rows ahead) for the block's part, and read again LAG rows later, from L2,
// to write y (.cg loads, y stored .cs so that it does not push x out of L2). Shared memory holds
// only AHEAD + 1 stages, so LAG can be long (LAG + 1 rows of x, 4 MB each at 64×1048576, must stay
// in L2). Same tickets, slots and collection as stream_rows_kernel.
template <int THREADS, int VPT, int AHEAD, int LAG>
__global__ void __launch_bounds__(THREADS, 1)
    stream_reread_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols, int segments,
                         int groups, unsigned call) {
  constexpr int CHUNK = THREADS * 4 * VPT;
  constexpr int STAGES = AHEAD + 1;
  constexpr int STAGE = VPT * THREADS;
  static_assert(LAG >= 1, "a block publishes row k after it collects row k - LAG");
  extern __shared__ float4 held[];
  __shared__ MaxSum slots[2][THREADS / 32];
  __shared__ MaxSum total[2];
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = g_stream_parts[call & 1];
  unsigned long long* next = g_stream_parts[(call + 1) & 1];
  for (int i = blockIdx.x * THREADS + t; i < STREAM_SLOTS; i += gridDim.x * THREADS) next[i] = 0;
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int group = static_cast<int>(ticket) / segments, seg = static_cast<int>(ticket) % segments;
  const int n = group < rows ? (rows - 1 - group) / groups + 1 : 0;
  const int first = seg * CHUNK;
  auto row_of = [&](int k) { return static_cast<int64_t>(group) + static_cast<int64_t>(k) * groups; };
  auto load = [&](int k) {
    if (k < n) {
      const float* xr = x + row_of(k) * cols;
      float4* s = held + (k % STAGES) * STAGE;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        if (c < cols) {
          copy16_async(&s[v * THREADS + t], xr + c);
        } else {
          s[v * THREADS + t] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int k = 0; k < AHEAD; ++k) load(k);
  for (int k = 0; k < n + LAG; ++k) {
    const int j = k - LAG;
    if (k < n) load(k + AHEAD);
    float4 again[VPT];  // row j's chunk, from L2: in flight while row k is summed and row j collected
    if (j >= 0) {
      const float* xr = x + row_of(j) * cols;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        again[v] = c < cols ? __ldcg(reinterpret_cast<const float4*>(xr + c)) : make_float4(0, 0, 0, 0);
      }
    }
    if (j >= 0 && t >= 32 && t < 64) {
      MaxSum p = empty_part();
      const volatile unsigned long long* row_parts = &parts[row_of(j) * segments];
      for (int i0 = t - 32; i0 < segments; i0 += 32 * POLL) {
        unsigned long long v[POLL];
#pragma unroll
        for (int u = 0; u < POLL; ++u) v[u] = i0 + 32 * u < segments ? row_parts[i0 + 32 * u] : 0;
#pragma unroll
        for (int u = 0; u < POLL; ++u) {
          if (i0 + 32 * u < segments) {
            while (v[u] == 0) {
              __nanosleep(32);
              v[u] = row_parts[i0 + 32 * u];
            }
            p = combine(p, unpack_part(v[u]));
          }
        }
      }
      p = warp_combine(p);
      if (t == 32) total[j & 1] = p;
    }
    if (k < n) {
      asm volatile("cp.async.wait_group %0;" ::"n"(AHEAD) : "memory");
      const float4* s = held + (k % STAGES) * STAGE;
      float4 q[VPT];
      float m = -FLT_MAX, d = 0.0f;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        q[v] = s[v * THREADS + t];
        m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
      }
#pragma unroll
      for (int v = 0; v < VPT; ++v) d += (__expf(q[v].x - m) + __expf(q[v].y - m)) + (__expf(q[v].z - m) + __expf(q[v].w - m));
      const MaxSum w = warp_combine(MaxSum{m, d});
      if (t % 32 == 0) slots[k & 1][t / 32] = w;
    }
    __syncthreads();
    if (k < n && t < 32) {
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[k & 1][t] : empty_part());
      if (t == 0) *reinterpret_cast<volatile unsigned long long*>(&parts[row_of(k) * segments + seg]) = pack_part(p);
    }
    if (j >= 0) {
      const MaxSum row = total[j & 1];
      const float inv = 1.0f / row.d;
      float* yr = y + row_of(j) * cols;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int c = first + (v * THREADS + t) * 4;
        const float4 e = again[v];
        if (c < cols)
          __stcs(reinterpret_cast<float4*>(yr + c), make_float4(__expf(e.x - row.m) * inv, __expf(e.y - row.m) * inv,
                                                                 __expf(e.z - row.m) * inv, __expf(e.w - row.m) * inv));
      }
    }
  }
}

template <int THREADS, int VPT, int AHEAD, int LAG>
void launch_stream_reread(const float* x, float* y, int rows, int cols) {
  constexpr int CHUNK = THREADS * 4 * VPT;
  constexpr int SMEM = (AHEAD + 1) * VPT * THREADS * 16;
  const auto kernel = stream_reread_kernel<THREADS, VPT, AHEAD, LAG>;
  static const int resident = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    int device = 0, sms = 1, per_sm = 0;
    cudaGetDevice(&device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, THREADS, SMEM);
    return sms * per_sm;
  }();
  const int segments = (cols + CHUNK - 1) / CHUNK;
  if (segments > resident || segments > STREAM_SLOTS) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  const int rows_per_launch = STREAM_SLOTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    const int groups = resident / segments < n ? resident / segments : n;
    kernel<<<groups * segments, THREADS, SMEM>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, n, cols, segments,
                                                 groups, ++g_stream_calls);
  }
}

namespace bench {

#define CHECK_CUDA(call)                                                                           \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

using Launch = void (*)(const float*, float*, int, int);

struct Cand {
  std::string name;
  Launch launch;
  int resident;         // blocks the GPU holds at once (info)
  bool checked = true;  // false: a diagnostic whose results are knowingly wrong (timed only)
};

template <int T, int V, int A, int L>
Cand stream() {
  constexpr int SMEM = (A + L + 1) * V * T * 16;
  auto kernel = stream_rows_kernel<T, V, A, L>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, SMEM);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  return {"stream T" + std::to_string(T) + " v" + std::to_string(V) + " chunk" + std::to_string(T * 4 * V) + " a" +
              std::to_string(A) + " l" + std::to_string(L),
          launch_stream_rows<T, V, A, L>, per_sm * sms};
}

template <int T, int V, int A, int L, int MODE = 0>
Cand stream2bar() {
  constexpr int SMEM = (A + L + 1) * V * T * 16;
  auto kernel = stream_rows_2bar_kernel<T, V, A, L, MODE>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, SMEM);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const char* kind[] = {"stream-2bar", "stream-2bar-poll", "stream-2bar-nowait"};
  return {std::string(kind[MODE]) + " T" + std::to_string(T) + " v" + std::to_string(V) + " chunk" +
              std::to_string(T * 4 * V) + " a" + std::to_string(A) + " l" + std::to_string(L),
          launch_stream_rows_2bar<T, V, A, L, MODE>, per_sm * sms, MODE != 2};
}

template <int T, int V, int A, int L>
Cand reread() {
  constexpr int SMEM = (A + 1) * V * T * 16;
  auto kernel = stream_reread_kernel<T, V, A, L>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  int per_sm = 0, sms = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, T, SMEM);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  return {"stream-reread T" + std::to_string(T) + " v" + std::to_string(V) + " chunk" + std::to_string(T * 4 * V) +
              " a" + std::to_string(A) + " l" + std::to_string(L),
          launch_stream_reread<T, V, A, L>, per_sm * sms};
}

const std::vector<Cand>& candidates() {
  static const std::vector<Cand> all = {
      stream2bar<512, 8, 1, 1>(),     // the best of runs 1 and 2 (74.8%, 75.3% at 64x1048576)
      stream2bar<512, 8, 1, 1, 1>(),  // the same with all of a lane's parts read at once
      stream2bar<1024, 4, 1, 1, 1>(),
      stream2bar<512, 4, 1, 2, 1>(),
      stream2bar<512, 4, 2, 2, 1>(),
      stream2bar<256, 4, 1, 3, 1>(),  // 4096-float chunks, two blocks a SM
      stream2bar<512, 8, 1, 1, 2>(),  // diagnostics: no exchange (wrong results, timed only)
      stream2bar<512, 4, 2, 2, 2>(),
      stream<256, 4, 1, 4>(),         // the one-barrier kernel's best of run 2 (70.7%)
      stream<512, 4, 2, 3>(),
      {"split block_rows T512 v4 c16", launch_block_rows<512, 4, 16>, 0},
      {"smem_rows K1 T512 c16", launch_smem_rows<512, 16, 1>, 0},
  };
  return all;
}

bool applies(const Cand& c, int cols) {
  if (c.name.rfind("smem_rows", 0) == 0) return cols <= 65536;
  return true;
}

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

// tests/c5_softmax_test.cu's relative tolerance (derived in content/c5.md).
double eps(double n, double t) { return std::ldexp(64.0 + 1.2 * (t + std::log(n) + 1.0), -23) + std::ldexp(std::sqrt(n), -21); }

// The float64 softmax of `rows` rows and each element's tolerance; an all -inf row is NaN.
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

// Worst |got - want| / tolerance (> 1: wrong); NaN is right only where the reference is NaN.
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
    const float v = ((state >> 8) * (2.0f / 16777216.0f)) - 1.0f;
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

void call_fast(const float* x, float* y, int r, int c) { softmax_fast(x, y, r, c); }

int check_mode(long long max_elements) {
  // One row; rows that end inside a block's chunk; several groups of blocks (37 rows of 100000: 13
  // chunks of 8192 a row); a row wider than 132 chunks of 8192 (the split takes it).
  const Shape shapes[] = {{1, 65540}, {5, 65540}, {37, 100000}, {3, 1048576}, {2, 1048572}, {2, 1081348}};
  const char* kinds[] = {"uniform", "scaled", "neginf", "latemax"};
  int failures = 0;
  std::printf("name,shape,inputs,worst_error_over_tolerance,status\n");
  for (const Shape& s : shapes) {
    const size_t n = (size_t)s.rows * s.cols;
    if ((long long)n > max_elements) continue;
    const char* min_cols = std::getenv("SOFTSPLIT_MIN_COLS");  // simulator runs: the long shapes only
    if (min_cols && s.cols < std::atoi(min_cols)) continue;
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    std::vector<float> y(n);
    for (const char* kind : kinds) {
      const std::vector<float> x = host_input(s.rows, s.cols, s.rows * 131u + s.cols, kind);
      const Reference ref = reference(x.data(), s.rows, s.cols);
      CHECK_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
      auto one = [&](const std::string& name, Launch fn) {
        for (int rep = 0; rep < 2; ++rep) {  // twice: the second call uses the other bank of slots
          CHECK_CUDA(cudaMemset(dy, 0xFF, n * sizeof(float)));  // poison: NaN
          fn(dx, dy, s.rows, s.cols);
          cudaError_t err = cudaGetLastError();
          if (err == cudaSuccess) err = cudaDeviceSynchronize();
          double worst = INFINITY;
          if (err == cudaSuccess) {
            CHECK_CUDA(cudaMemcpy(y.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
            worst = worst_error(ref, y.data());
          }
          const bool ok = worst <= 1;
          failures += !ok;
          std::printf("%s,%dx%d,%s%s,%.4g,%s%s\n", name.c_str(), s.rows, s.cols, kind, rep ? " (again)" : "", worst,
                      ok ? "pass" : "FAIL", err == cudaSuccess ? "" : (std::string(" ") + cudaGetErrorString(err)).c_str());
          std::fflush(stdout);
          if (err != cudaSuccess) std::exit(2);
        }
      };
      const char* only = std::getenv("SOFTSPLIT_ONLY");  // a substring of the names (simulator runs)
      if (!only || !std::strcmp(only, "softmax_fast")) one("softmax_fast", call_fast);
      for (const Cand& c : candidates())
        if (c.checked && applies(c, s.cols) && (!only || c.name.find(only) != std::string::npos)) one(c.name, c.launch);
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

double sample_check(Launch fn, const float* dx, float* dy, const Shape& s) {
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
  const bool fast = which == "fast";
  std::printf("shape,name,kind,ms,gbps,pct_copy_kernel,pct_memcpy,sample_worst_error_over_tolerance\n");
  for (const Shape& s : kPerfShapes) {
    if (!fast && s.cols != 65536 && s.cols != 1048576) continue;
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
    auto timed = [&](const std::string& name, const std::string& kind, Launch fn, bool checked) {
      fill(dx, n, 777u * seed++ + s.rows);  // fresh random input for each variant
      const float ms = median_ms([&] { fn(dx, dy, s.rows, s.cols); }, 3, reps);
      char buf[32] = "not checked (diagnostic)";
      if (checked) std::snprintf(buf, sizeof buf, "%.4g", sample_check(fn, dx, dy, s));
      row(name, kind, ms, buf);
    };
    if (fast) {
      timed("softmax_fast", "fast", call_fast, true);
    } else {
      for (const Cand& c : candidates())
        if (applies(c, s.cols)) timed(c.name, c.checked ? "candidate" : "diagnostic", c.launch, c.checked);
    }
    CHECK_CUDA(cudaFree(dx));
    CHECK_CUDA(cudaFree(dy));
  }
  return 0;
}

int info_mode() {
  cudaDeviceProp p;
  CHECK_CUDA(cudaGetDeviceProperties(&p, 0));
  std::printf("name=%s sms=%d l2_bytes=%d regs_per_sm=%d smem_per_sm=%zu smem_per_block_optin=%zu\n", p.name,
              p.multiProcessorCount, p.l2CacheSize, p.regsPerMultiprocessor, p.sharedMemPerMultiprocessor,
              p.sharedMemPerBlockOptin);
  for (const Cand& c : candidates())
    if (c.resident) std::printf("resident blocks: %s %d\n", c.name.c_str(), c.resident);
  return 0;
}

int one_mode(const std::string& name, const char* shape) {
  Shape s{};
  if (std::sscanf(shape, "%dx%d", &s.rows, &s.cols) != 2) return 2;
  Launch fn = name == "softmax_fast" ? call_fast : nullptr;
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
  fn(dx, dy, s.rows, s.cols);  // one warm-up call (the launcher's first call sets attributes)
  CHECK_CUDA(cudaDeviceSynchronize());
  fn(dx, dy, s.rows, s.cols);
  CHECK_CUDA(cudaGetLastError());
  CHECK_CUDA(cudaDeviceSynchronize());
  return 0;
}

}  // namespace bench

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "check") return bench::check_mode(argc > 2 ? std::atoll(argv[2]) : 1LL << 40);
  if (mode == "time" && argc > 3) return bench::time_mode(std::atoi(argv[2]), argv[3]);
  if (mode == "info") return bench::info_mode();
  if (mode == "one" && argc > 3) return bench::one_mode(argv[2], argv[3]);
  std::fprintf(stderr, "usage: %s check [MAX] | time REPS fast|cand | info | one NAME RxC\n", argv[0]);
  return 2;
}
