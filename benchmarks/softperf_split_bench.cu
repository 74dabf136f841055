// C5, 64×1048576 (issue 11): softmax_fast against the copy kernel at the 7 perf shapes, and
// candidates for rows longer than one SM holds. Persistent-block pipelines (stream_rows_kernel, its
// two-barrier first version, a version writing y from a second read of x from L2, pipe_rows_kernel
// with segments filling every SM or rows taken by speed, reg_rows_kernel with the waiting row in
// registers), task kernels that keep no row on chip (l2_tasks_kernel, pieces in registers;
// l2s_tasks_kernel, pieces in shared memory; t2_kernel, with knobs for piece size, blocks a SM, the
// exponential and diagnostics that leave out the wait, the exponentials or the second read; pt_kernel,
// the same tasks taken by persistent blocks two at a time; hy_kernel, the last pieces of each row held
// in registers instead of read again), diagnostics that measure what the second
// read costs (taskcopy_kernel: the task blocks copying x, with and without a second read from L2;
// l2read_kernel: L2's read bandwidth), beside the reference's own: the task kernel that softmax_fast
// now uses for those rows (tasks_rows_kernel), the split kernel it used before
// (block_rows_kernel<512, 4, 16>) and the whole-row block at 1024×65536 (smem_rows_kernel<512, 16, 1>).
// benchmarks/h200-c5-2026-12-02-split.md, -cluster.md and -tasks.md have the runs.
//
//   nvcc -arch=sm_90 -O3 -std=c++17 -o softperf_split_bench benchmarks/softperf_split_bench.cu
//   ./softperf_split_bench check [MAX]     every candidate and softmax_fast against a float64 host
//                                          reference (shapes of at most MAX elements, 5 kinds of input)
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

// pack_part, unpack_part: the reference's (task-scratch).

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
  unsigned long long* parts = launch_bank<THREADS>(g_stream_parts, call);
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
      const MaxSum p = collect_parts<POLL, 32>(&parts[row_of(j) * segments], segments, t - 32);
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
    return resident_blocks(kernel, THREADS, SMEM);
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
  unsigned long long* parts = launch_bank<THREADS>(g_stream_parts, call);
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
    return resident_blocks(kernel, THREADS, SMEM);
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
  unsigned long long* parts = launch_bank<THREADS>(g_stream_parts, call);
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
      const MaxSum p = collect_parts<POLL, 32>(&parts[row_of(j) * segments], segments, t - 32);
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
    return resident_blocks(kernel, THREADS, SMEM);
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

// pipe_rows_kernel: stream_rows_2bar_kernel (POLL) with three changes, each a MODE bit:
// - segments is a runtime count and a segment a runtime number of float4 (seg4 <= VPT * THREADS), so
//   that segments × groups fills every SM (64×1048576 on 132 SMs: 66 segments of 3972 float4, two
//   groups, where 16384-float chunks made 64 segments, 128 blocks);
// - DYN (bit 0): a block keeps its segment but takes its rows from the segment's own counter (the
//   `groups` blocks of a segment share its rows by speed, not every groups-th); a block's rows
//   increase, so the row it waits for is its oldest and every wait ends (all blocks are resident);
// - NOEX (bit 1): DIAGNOSTIC, no exchange (each block scales by its own part: wrong results);
// - the collecting warp reads the next row's parts right after the barrier that ends a round, and
//   only re-reads the ones that were not there yet a round later (bit 2, EARLY).
// Its own slots and counters, two banks alternating by launch (g_pipe_calls), each launch clearing
// the bank the next one uses.
constexpr int PIPE_MAX_SEGMENTS = 512;
__device__ unsigned long long g_pipe_parts[2][STREAM_SLOTS];
__device__ int g_pipe_rows[2][PIPE_MAX_SEGMENTS];  // DYN: each segment's next row

template <int THREADS, int VPT, int AHEAD, int LAG, int MODE>
__global__ void __launch_bounds__(THREADS, 1)
    pipe_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols, int segments, int seg4,
                     int groups, unsigned call) {
  constexpr bool DYN = MODE & 1, NOEX = MODE & 2, EARLY = MODE & 4;
  constexpr int STAGES = AHEAD + LAG + 1;
  constexpr int STAGE = VPT * THREADS;  // float4 a stage
  constexpr int RING = STAGES + 2;      // rows of the block's units: slot k % RING
  constexpr int NPOLL = PIPE_MAX_SEGMENTS / 32;
  extern __shared__ float4 held[];      // STAGES × STAGE float4: element v of thread t at v·THREADS + t
  __shared__ float own_max[STAGES][THREADS];
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ int row_at[RING];
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_pipe_parts, call);
  for (int i = blockIdx.x * THREADS + t; i < PIPE_MAX_SEGMENTS; i += gridDim.x * THREADS) g_pipe_rows[(call + 1) & 1][i] = 0;
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int seg = static_cast<int>(ticket) % segments, group = static_cast<int>(ticket) / segments;
  const int cols4 = cols / 4, first4 = seg * seg4;
  const int mine4 = cols4 - first4 < seg4 ? cols4 - first4 : seg4;  // float4 of each row this block holds
  int* counter = &g_pipe_rows[call & 1][seg];
  int pending = 0;  // thread 0, DYN: the row taken for the unit after the ring's newest
  auto take = [&](int k) { return DYN ? atomicAdd(counter, 1) : group + k * groups; };
  if (t == 0) {
    for (int k = 0; k <= AHEAD; ++k) row_at[k % RING] = take(k);
    if (DYN) pending = take(AHEAD + 1);
  }
  __syncthreads();
  auto load = [&](int k) {  // unit k's row into stage k % STAGES; one commit group per call
    const int r = row_at[k % RING];
    if (r < rows) {
      const float4* xr = reinterpret_cast<const float4*>(x + static_cast<int64_t>(r) * cols) + first4;
      float4* s = held + (k % STAGES) * STAGE;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int f = v * THREADS + t;
        if (f < mine4) {
          copy16_async(&s[f], reinterpret_cast<const float*>(xr + f));
        } else {
          s[f] = make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        }
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  unsigned long long early[NPOLL];  // EARLY: the collecting warp's reads of the next row's parts
  int early_row = -1;
  for (int k = 0; k < AHEAD; ++k) load(k);
  for (int k = 0;; ++k) {
    const int j = k - LAG;  // the unit to write in this round
    const int rk = row_at[k % RING], rj = j >= 0 ? row_at[j % RING] : -1;
    if (j >= 0 && rj >= rows) break;  // rows only grow: nothing left to write
    load(k + AHEAD);
    if (t == 0) {  // the unit after next: its row, taken a round ago (slot of unit k - LAG - 2: free)
      const int r = DYN ? pending : take(k + AHEAD + 1);
      row_at[(k + AHEAD + 1) % RING] = r;
      if (DYN) pending = r < rows ? take(0) : r;
    }
    if (rk < rows) {
      asm volatile("cp.async.wait_group %0;" ::"n"(AHEAD) : "memory");  // unit k's copies (this thread's) landed
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
      if (t % 32 == 0) slots[t / 32] = w;
    }
    __syncthreads();
    if (rk < rows && t < 32) {  // warp 0 publishes the block's part of unit k's row
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[t] : empty_part());
      if (NOEX) {
        if (t == 0) total = p;
      } else if (t == 0) {
        *reinterpret_cast<volatile unsigned long long*>(&parts[static_cast<int64_t>(rk) * segments + seg]) = pack_part(p);
      }
    }
    if (!NOEX && j >= 0 && t >= 32 && t < 64) {  // warp 1 collects row rj's parts, same order in every block
      const volatile unsigned long long* row_parts = &parts[static_cast<int64_t>(rj) * segments];
      const int lane = t - 32;
      unsigned long long v[NPOLL];
#pragma unroll
      for (int u = 0; u < NPOLL; ++u) {
        const int i = lane + 32 * u;
        v[u] = 0;
        if (i < segments) v[u] = EARLY && early_row == rj ? early[u] : 0;
      }
#pragma unroll
      for (int u = 0; u < NPOLL; ++u) {  // every missing part requested at once: one trip to L2
        const int i = lane + 32 * u;
        if (i < segments && v[u] == 0) v[u] = row_parts[i];
      }
      MaxSum p = empty_part();
#pragma unroll
      for (int u = 0; u < NPOLL; ++u) {
        const int i = lane + 32 * u;
        if (i < segments) {
          while (v[u] == 0) {
            __nanosleep(32);
            v[u] = row_parts[i];
          }
          p = combine(p, unpack_part(v[u]));
        }
      }
      p = warp_combine(p);
      if (t == 32) total = p;
    }
    __syncthreads();
    if (EARLY && !NOEX && t >= 32 && t < 64) {  // the next row to write: its parts requested now
      const int rn = row_at[(j + 1) % RING];
      early_row = j + 1 >= 0 && rn < rows ? rn : -1;
      if (early_row >= 0) {
        const volatile unsigned long long* row_parts = &parts[static_cast<int64_t>(rn) * segments];
#pragma unroll
        for (int u = 0; u < NPOLL; ++u) {
          const int i = t - 32 + 32 * u;
          early[u] = i < segments ? row_parts[i] : 0;
        }
      }
    }
    if (j >= 0) {
      const float4* s = held + (j % STAGES) * STAGE;
      const float scale = __expf(own_max[j % STAGES][t] - total.m) / total.d;
      float4* yr = reinterpret_cast<float4*>(y + static_cast<int64_t>(rj) * cols) + first4;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int f = v * THREADS + t;
        const float4 e = s[f];
        if (f < mine4) yr[f] = make_float4(e.x * scale, e.y * scale, e.z * scale, e.w * scale);
      }
    }
  }
}

unsigned g_pipe_calls = 0;  // each launch's number: its parity picks the bank

// Segments: the fewest whose blocks, `groups` of each, fill the most SMs (each segment at most a
// stage); rows in batches that fit the slots. Rows not on 16-byte boundaries, or too wide for the GPU's
// blocks at once: the split kernel.
template <int THREADS, int VPT, int AHEAD, int LAG, int MODE>
void launch_pipe_rows(const float* x, float* y, int rows, int cols) {
  constexpr int SMEM = (AHEAD + LAG + 1) * VPT * THREADS * 16;
  const auto kernel = pipe_rows_kernel<THREADS, VPT, AHEAD, LAG, MODE>;
  static const int resident = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    return resident_blocks(kernel, THREADS, SMEM);
  }();
  const int cols4 = cols / 4;
  const int fewest = (cols4 + VPT * THREADS - 1) / (VPT * THREADS);
  if (cols % 4 != 0 || fewest > resident || fewest > PIPE_MAX_SEGMENTS) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  int segments = fewest;
  for (int s = fewest; s <= resident && s <= PIPE_MAX_SEGMENTS && s <= 2 * fewest; ++s)
    if (resident / s * s > resident / segments * segments) segments = s;
  const int seg4 = (cols4 + segments - 1) / segments;
  segments = (cols4 + seg4 - 1) / seg4;
  const int rows_per_launch = STREAM_SLOTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    const int groups = resident / segments < n ? resident / segments : n;
    kernel<<<groups * segments, THREADS, SMEM>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, n, cols, segments,
                                                 seg4, groups, ++g_pipe_calls);
  }
}

// reg_rows_kernel: the two-barrier pipeline with the row that waits for its row-mates held in
// registers instead of shared memory, so that every shared-memory stage is a load in flight: a
// thread reads its elements of row k into registers as soon as they land, refills the same slots
// with row k + AHEAD at once, and writes row k - 1 (kept in registers since the last round) after
// the exchange. AHEAD stages of VPT·THREADS float4 in shared memory (AHEAD = 3, 64 KB stages: 192 KB
// in flight a SM, against 64–128 KB in stream_rows_2bar_kernel). Static groups as there. MODE bit 1:
// DIAGNOSTIC, no exchange. FILL (launcher): segments chosen to fill every SM, else the fewest.
template <int THREADS, int VPT, int AHEAD, int MODE>
__global__ void __launch_bounds__(THREADS, 1)
    reg_rows_kernel(const float* __restrict__ x, float* __restrict__ y, int rows, int cols, int segments, int seg4,
                    int groups, unsigned call) {
  constexpr bool NOEX = MODE & 2, ILV = MODE & 4;
  constexpr int STAGE = VPT * THREADS;
  extern __shared__ float4 held[];  // AHEAD × STAGE float4: element v of thread t at v·THREADS + t
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_pipe_parts, call);
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int seg = static_cast<int>(ticket) % segments, group = static_cast<int>(ticket) / segments;
  const int n = group < rows ? (rows - 1 - group) / groups + 1 : 0;  // rows group, group + groups, ...
  const int cols4 = cols / 4, first4 = seg * seg4;
  const int mine4 = cols4 - first4 < seg4 ? cols4 - first4 : seg4;
  // ILV: element v of thread t is float4 (v·segments + seg)·THREADS + t of the row: the blocks of a
  // group read (and write) neighbouring 16·THREADS-byte pieces at once, as the copy kernel's blocks do.
  auto at = [&](int v) { return ILV ? (v * segments + seg) * THREADS + t - first4 : v * THREADS + t; };
  auto valid = [&](int v) { return ILV ? first4 + at(v) < cols4 : at(v) < mine4; };
  auto row_of = [&](int k) { return static_cast<int64_t>(group) + static_cast<int64_t>(k) * groups; };
  auto load = [&](int k) {  // row k's segment into stage k % AHEAD (this thread's slots); one commit group
    if (k < n) {
      const float4* xr = reinterpret_cast<const float4*>(x + row_of(k) * cols) + first4;
      float4* s = held + (k % AHEAD) * STAGE;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int f = v * THREADS + t;
        if (valid(v)) copy16_async(&s[f], reinterpret_cast<const float*>(xr + at(v)));
      }
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
  };
  for (int k = 0; k < AHEAD; ++k) load(k);
  float4 held_row[VPT];  // row k - 1: e^(x - its own maximum), this thread's elements
  float held_max = -FLT_MAX;
  for (int k = 0; k <= n; ++k) {
    float4 q[VPT];
    float m = -FLT_MAX;
    if (k < n) {
      asm volatile("cp.async.wait_group %0;" ::"n"(AHEAD - 1) : "memory");  // row k's copies (this thread's) landed
      const float4* s = held + (k % AHEAD) * STAGE;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const int f = v * THREADS + t;
        q[v] = valid(v) ? s[f] : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
        m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
      }
      load(k + AHEAD);  // after m: every element read is in a register
      float d = 0.0f;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        q[v] = make_float4(__expf(q[v].x - m), __expf(q[v].y - m), __expf(q[v].z - m), __expf(q[v].w - m));
        d += (q[v].x + q[v].y) + (q[v].z + q[v].w);
      }
      const MaxSum w = warp_combine(MaxSum{m, d});
      if (t % 32 == 0) slots[t / 32] = w;
    }
    __syncthreads();
    if (k < n && t < 32) {  // warp 0 publishes the block's part of row k
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[t] : empty_part());
      if (NOEX) {
        if (t == 0) total = p;
      } else if (t == 0) {
        *reinterpret_cast<volatile unsigned long long*>(&parts[row_of(k) * segments + seg]) = pack_part(p);
      }
    }
    if (!NOEX && k >= 1 && t >= 32 && t < 64) {  // warp 1 collects row k - 1's parts
      const MaxSum p = collect_parts<POLL, 32>(&parts[row_of(k - 1) * segments], segments, t - 32);
      if (t == 32) total = p;
    }
    __syncthreads();
    if (k >= 1) {
      const float scale = __expf(held_max - total.m) / total.d;
      float4* yr = reinterpret_cast<float4*>(y + row_of(k - 1) * cols) + first4;
#pragma unroll
      for (int v = 0; v < VPT; ++v) {
        const float4 e = held_row[v];
        if (valid(v)) yr[at(v)] = make_float4(e.x * scale, e.y * scale, e.z * scale, e.w * scale);
      }
    }
#pragma unroll
    for (int v = 0; v < VPT; ++v) held_row[v] = q[v];
    held_max = m;
  }
}

template <int THREADS, int VPT, int AHEAD, int MODE, bool FILL>
void launch_reg_rows(const float* x, float* y, int rows, int cols) {
  constexpr int SMEM = AHEAD * VPT * THREADS * 16;
  const auto kernel = reg_rows_kernel<THREADS, VPT, AHEAD, MODE>;
  static const int resident = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    return resident_blocks(kernel, THREADS, SMEM);
  }();
  const int cols4 = cols / 4;
  const int fewest = (cols4 + VPT * THREADS - 1) / (VPT * THREADS);
  if (cols % 4 != 0 || fewest > resident) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  int segments = fewest;
  if (FILL)
    for (int s = fewest; s <= resident && s <= 2 * fewest; ++s)
      if (resident / s * s > resident / segments * segments) segments = s;
  const int seg4 = (cols4 + segments - 1) / segments;
  segments = (cols4 + seg4 - 1) / seg4;
  const int rows_per_launch = STREAM_SLOTS / segments;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = rows - r0 < rows_per_launch ? rows - r0 : rows_per_launch;
    const int groups = resident / segments < n ? resident / segments : n;
    kernel<<<groups * segments, THREADS, SMEM>>>(x + (int64_t)r0 * cols, y + (int64_t)r0 * cols, n, cols, segments,
                                                 seg4, groups, ++g_pipe_calls);
  }
}

// l2_tasks_kernel: no row held on chip at all. The work of a launch is a sequence of tasks, taken in
// ticket order by short-lived blocks (the grid is the task count): "stats" of a piece (PIECE floats
// of a row: its part (m, d), published as one self-flagged 64-bit store) and "write" of a piece
// (read again, from L2, and y = e^(x - M) / D with the row's (M, D) from every part of its row).
// Writes trail stats by `lag` pieces, stats and writes alternate, so x is read from DRAM once and
// again from L2 a few MB later, and any SM takes the next task when it is free (a slow SM takes
// fewer). A write task waits only for stats tasks with earlier tickets, which never wait: every
// wait ends. POLICY (L2 eviction hints): 0 none; 1 stats loads evict_last, the write's loads .cs,
// y .cs; 2 as 1 with the write's loads evict_first; 3 stats loads plain, the write's evict_first,
// y .cs. NOWAIT: DIAGNOSTIC, write tasks do not wait for the row (wrong results).
constexpr int L2T_SLOTS = 1 << 16;
__device__ unsigned long long g_l2t_parts[2][L2T_SLOTS];

__device__ __forceinline__ float4 ld_hint(const float4* p, unsigned long long policy) {
  float4 v;
  asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "l"(p), "l"(policy));
  return v;
}

template <int THREADS, int VEC, int POLICY, bool NOWAIT>
__global__ void __launch_bounds__(THREADS)
    l2_tasks_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int pieces, int units, int lag,
                    unsigned call) {
  constexpr int PIECE4 = THREADS * VEC;  // float4 a piece
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_l2t_parts, call);
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  // tickets: lag stats first, then write(0), stats(lag), write(1), stats(lag + 1), ..., then the last writes
  bool write;
  int unit;
  task_of(static_cast<int>(ticket), lag, units, write, unit);  // the reference's order of tasks
  const int row = unit / pieces, piece = unit % pieces;
  const int cols4 = cols / 4;
  const float4* xr = reinterpret_cast<const float4*>(x + static_cast<int64_t>(row) * cols);
  float4 q[VEC];
  if (!write) {
    unsigned long long policy = 0;
    if (POLICY == 1 || POLICY == 2) asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    float m = -FLT_MAX;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int f = piece * PIECE4 + v * THREADS + t;
      q[v] = f < cols4 ? (POLICY == 1 || POLICY == 2 ? ld_hint(xr + f, policy) : xr[f]) : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
    float d = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) d += (__expf(q[v].x - m) + __expf(q[v].y - m)) + (__expf(q[v].z - m) + __expf(q[v].w - m));
    const MaxSum w = warp_combine(MaxSum{m, d});
    if (t % 32 == 0) slots[t / 32] = w;
    __syncthreads();
    if (t < 32) {
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[t] : empty_part());
      if (t == 0) *reinterpret_cast<volatile unsigned long long*>(&parts[static_cast<int64_t>(row) * pieces + piece]) = pack_part(p);
    }
    return;
  }
  unsigned long long policy = 0;
  if (POLICY >= 2) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#pragma unroll
  for (int v = 0; v < VEC; ++v) {  // in flight while warp 0 collects the row's parts
    const int f = piece * PIECE4 + v * THREADS + t;
    q[v] = f >= cols4 ? make_float4(0.f, 0.f, 0.f, 0.f) : POLICY >= 2 ? ld_hint(xr + f, policy) : POLICY == 1 ? __ldcs(xr + f) : xr[f];
  }
  if (NOWAIT) {
    if (t == 0) total = MaxSum{1.0f, 1.0f};
  } else if (t < 32) {
    const MaxSum p = collect_parts<POLL>(&parts[static_cast<int64_t>(row) * pieces], pieces, t);
    if (t == 0) total = p;
  }
  __syncthreads();
  const float m = total.m, inv = 1.0f / total.d;
  float4* yr = reinterpret_cast<float4*>(y + static_cast<int64_t>(row) * cols);
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int f = piece * PIECE4 + v * THREADS + t;
    const float4 e = make_float4(__expf(q[v].x - m) * inv, __expf(q[v].y - m) * inv, __expf(q[v].z - m) * inv,
                                 __expf(q[v].w - m) * inv);
    if (f < cols4) {
      if (POLICY) __stcs(yr + f, e); else yr[f] = e;
    }
  }
}

unsigned g_l2t_calls = 0;

// The task kernels' launches: the rows in batches whose pieces fit the slots of parts, writes trailing
// stats by LAGQ / 4 rows' pieces (at least a row's, at most the batch's). launch(offset of the batch in
// x and y, pieces a row, units = pieces of the batch, lag, rows of the batch).
template <class Launch>
void task_batches(int rows, int cols, int piece, int lagq, Launch launch) {
  const int pieces = (cols + piece - 1) / piece;
  const int rows_per_launch = L2T_SLOTS / pieces;
  for (int r0 = 0; r0 < rows; r0 += rows_per_launch) {
    const int n = min(rows - r0, rows_per_launch);
    const int units = n * pieces;
    const int lag = min(max((lagq * pieces + 3) / 4, pieces), units);
    launch(static_cast<int64_t>(r0) * cols, pieces, units, lag, n);
  }
}


// LAGQ: writes trail stats by LAGQ / 4 rows' pieces. OCC: at most OCC blocks a SM (dynamic shared
// memory that the kernel does not use, only to limit them; 0: no limit).
template <int THREADS, int VEC, int POLICY, bool NOWAIT, int LAGQ, int OCC>
void launch_l2_tasks(const float* x, float* y, int rows, int cols) {
  constexpr int PIECE = THREADS * VEC * 4;
  constexpr int SMEM = OCC ? 220 * 1024 / OCC : 0;
  const auto kernel = l2_tasks_kernel<THREADS, VEC, POLICY, NOWAIT>;
  static const bool ready = [&] {
    if (SMEM > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    return true;
  }();
  (void)ready;
  if (cols % 4 != 0) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  task_batches(rows, cols, PIECE, LAGQ, [&](int64_t at, int pieces, int units, int lag, int) {
    kernel<<<2 * units, THREADS, SMEM>>>(x + at, y + at, cols, pieces, units, lag, ++g_l2t_calls);
  });
}

// t2_kernel: l2_tasks_kernel (POLICY 2) with knobs for the next round (tasks run 8). MINB: blocks a
// SM that __launch_bounds__ asks for (it caps the registers: 65536 / (THREADS · MINB)). EXP 0:
// __expf as the reference compiles it (without -ftz, FADD, FMUL, FSETP and two predicated FMULs
// around MUFU.EX2, for the denormal range); EXP 1: ex2.approx.ftz.f32((x - m) · log2 e), FADD FMUL
// MUFU (a result below 2^-126 becomes 0: far below the tolerance). Only warp 0 combines the stats
// part (one barrier). DIAG (DIAGNOSTIC, wrong results; bits): 1 writes do not wait; 2 no exponentials
// (stats sums x - m, the write stores (x - m) / D); 4 write tasks do not read x again.
template <int EXP>
__device__ __forceinline__ float exp_of_diff(float x, float m) {  // e^(x - m): EXP 1 is the reference's
  return EXP == 0 ? __expf(x - m) : exp_diff_ftz(x, m);
}

template <int THREADS, int VEC, int MINB, int EXP, int DIAG, int AT>
__global__ void __launch_bounds__(THREADS, MINB)
    t2_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int pieces, int units, int lag,
              unsigned call) {
  constexpr int PIECE4 = THREADS * VEC;
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_l2t_parts, call);
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  bool write;
  int unit;
  task_of(static_cast<int>(ticket), lag, units, write, unit);  // the reference's order of tasks
  const int row = unit / pieces, piece = unit % pieces;
  const int n4 = min(cols / 4 - piece * PIECE4, PIECE4);
  const float4* xp = reinterpret_cast<const float4*>(x + static_cast<int64_t>(row) * cols) + piece * PIECE4;
  float4 q[VEC];
  unsigned long long policy;
  if (!write) {
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      q[v] = v * THREADS + t < n4 ? ld_hint(xp + v * THREADS + t, policy)
                                  : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    float m = -FLT_MAX, d = 0.0f;
#pragma unroll
    for (int v = 0; v < VEC; ++v) m = fmaxf(fmaxf(fmaxf(m, q[v].x), fmaxf(q[v].y, q[v].z)), q[v].w);
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      d += DIAG & 2 ? ((q[v].x - m) + (q[v].y - m)) + ((q[v].z - m) + (q[v].w - m))
                    : (exp_of_diff<EXP>(q[v].x, m) + exp_of_diff<EXP>(q[v].y, m)) +
                          (exp_of_diff<EXP>(q[v].z, m) + exp_of_diff<EXP>(q[v].w, m));
    const MaxSum w = warp_combine(MaxSum{m, d});
    if (t % 32 == 0) slots[t / 32] = w;
    __syncthreads();
    if (t < 32) {
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[t] : empty_part());
      if (t == 0) *reinterpret_cast<volatile unsigned long long*>(&parts[static_cast<int64_t>(row) * pieces + piece]) = pack_part(p);
    }
    return;
  }
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    q[v] = DIAG & 4 ? make_float4(t, v, t + v, t - v)
           : v * THREADS + t < n4 ? ld_hint(xp + v * THREADS + t, policy) : make_float4(0.f, 0.f, 0.f, 0.f);
  if (DIAG & 1) {
    if (t == 0) total = MaxSum{1.0f, 1.0f};
  } else if (t < 32) {
    const MaxSum p = collect_parts<AT>(&parts[static_cast<int64_t>(row) * pieces], pieces, t);
    if (t == 0) total = p;
  }
  __syncthreads();
  const float m = total.m, inv = 1.0f / total.d;
  float4* yp = reinterpret_cast<float4*>(y + static_cast<int64_t>(row) * cols) + piece * PIECE4;
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    if (v * THREADS + t < n4)
      __stcs(&yp[v * THREADS + t],
             DIAG & 2 ? make_float4((q[v].x - m) * inv, (q[v].y - m) * inv, (q[v].z - m) * inv, (q[v].w - m) * inv)
                      : make_float4(exp_of_diff<EXP>(q[v].x, m) * inv, exp_of_diff<EXP>(q[v].y, m) * inv,
                                    exp_of_diff<EXP>(q[v].z, m) * inv, exp_of_diff<EXP>(q[v].w, m) * inv));
}

// LAGQ: writes trail stats by LAGQ / 4 rows' pieces (at least a row of pieces).
template <int THREADS, int VEC, int MINB, int EXP, int DIAG, int LAGQ, int AT>
void launch_t2(const float* x, float* y, int rows, int cols) {
  constexpr int PIECE = THREADS * VEC * 4;
  if (cols % 4 != 0) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  task_batches(rows, cols, PIECE, LAGQ, [&](int64_t at, int pieces, int units, int lag, int) {
    t2_kernel<THREADS, VEC, MINB, EXP, DIAG, AT><<<2 * units, THREADS>>>(x + at, y + at, cols, pieces, units, lag,
                                                                      ++g_l2t_calls);
  });
}

// hy_kernel: t2_kernel where the last HOLD pieces of every row are one task each, not two: the block
// that reads such a piece for its stats keeps it in registers, waits for its row's parts and writes y
// from them, so only the other pieces are read a second time (from L2). The order of the tickets:
// stats of unit s, then the write of unit s - lag when that is not a held piece, for s = 0, 1, ...;
// then the last writes. A held piece waits for parts of its own row only; those with later tickets
// are the row's other held pieces, which publish before they wait: at most HOLD blocks wait on
// tickets not yet taken, so HOLD blocks resident at once (the launcher checks) end every wait.
__device__ __forceinline__ int hy_writes_before(int n, int pieces, int hold) {  // writes of units [0, n)
  return n / pieces * (pieces - hold) + min(n % pieces, pieces - hold);
}

template <int THREADS, int VEC, int HOLD_DIAG>
__global__ void __launch_bounds__(THREADS, 2)
    hy_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int pieces, int units, int lag, int hold,
              unsigned call) {
  constexpr int PIECE4 = THREADS * VEC;
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ int task[2];  // unit, kind (0 stats, 1 write, 2 held)
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_l2t_parts, call);
  if (t == 0) {
    const int i = static_cast<int>(atomicInc(&g_ticket, gridDim.x - 1));
    // g(s) = tickets before the pair of step s; the largest s with g(s) <= i
    auto g = [&](int st) { return min(st, units) + hy_writes_before(max(0, min(st - lag, units)), pieces, hold); };
    int lo = 0, hi = units + lag - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (g(mid) <= i) lo = mid; else hi = mid - 1;
    }
    const int o = i - g(lo);
    if (lo < units && o == 0) {
      task[0] = lo, task[1] = lo % pieces >= pieces - hold ? 2 : 0;
    } else {
      task[0] = lo - lag, task[1] = 1;
    }
  }
  __syncthreads();
  const int unit = task[0], kind = task[1];
  const int row = unit / pieces, piece = unit % pieces;
  const int n4 = min(cols / 4 - piece * PIECE4, PIECE4);
  const float4* xp = reinterpret_cast<const float4*>(x + static_cast<int64_t>(row) * cols) + piece * PIECE4;
  float4 q[VEC];
  unsigned long long policy;
  if (kind != 1) {
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
    if (kind == 2) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      q[v] = v * THREADS + t < n4 ? ld_hint(xp + v * THREADS + t, policy)
                                  : make_float4(-INFINITY, -INFINITY, -INFINITY, -INFINITY);
    publish_part<THREADS>(q, t, slots, parts, row, pieces, piece);  // the reference's
    if (kind == 0) return;
  } else {
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
#pragma unroll
    for (int v = 0; v < VEC; ++v)
      q[v] = v * THREADS + t < n4 ? ld_hint(xp + v * THREADS + t, policy) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  if (t < 32) {
    const MaxSum p = collect_parts<POLL>(&parts[static_cast<int64_t>(row) * pieces], pieces, t);
    if (t == 0) total = p;
  }
  __syncthreads();
  const float m = total.m, inv = 1.0f / total.d;
  store_piece<THREADS>(reinterpret_cast<float4*>(y + static_cast<int64_t>(row) * cols) + piece * PIECE4, q, t, n4, m,
                       inv);  // the reference's
}

// HOLD: pieces of each row held (at most the row's pieces and the blocks resident at once).
template <int THREADS, int VEC, int HOLD, int LAGQ>
void launch_hy(const float* x, float* y, int rows, int cols) {
  constexpr int PIECE = THREADS * VEC * 4;
  static const int resident = resident_blocks(hy_kernel<THREADS, VEC, 0>, THREADS);
  if (cols % 4 != 0) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  task_batches(rows, cols, PIECE, LAGQ, [&](int64_t at, int pieces, int units, int lag, int n) {
    const int hold = min(min(HOLD, pieces), resident);
    hy_kernel<THREADS, VEC, 0><<<units + n * (pieces - hold), THREADS>>>(x + at, y + at, cols, pieces, units, lag, hold,
                                                                         ++g_l2t_calls);
  });
}

// pt_kernel: the same tasks and tickets, taken by persistent blocks that keep two tasks going: the
// pieces of the next task are loading while the block works on (or waits for the row of) the current
// one. Still no co-residency needed: a block takes its tickets in increasing order and works on them
// in that order; a write waits only for stats with smaller tickets, each taken by a running block
// before it, which finishes its earlier tickets first (by induction, every ticket finishes). The
// ticket counter wraps after tasks + gridDim.x takes (every block takes one past the end).
// DIAG 1: writes do not wait (wrong results).
__device__ unsigned g_pt_ticket;

template <int THREADS, int VEC>
__device__ __forceinline__ void pt_load(const float* x, int cols, int pieces, int units, int lag, unsigned i,
                                        float4 (&q)[VEC], bool& write, int& unit, unsigned long long pol_last,
                                        unsigned long long pol_first) {
  constexpr int PIECE4 = THREADS * VEC;
  task_of(static_cast<int>(i), lag, units, write, unit);
  const int row = unit / pieces, piece = unit % pieces;
  const int n4 = min(cols / 4 - piece * PIECE4, PIECE4);
  const float4* xp = reinterpret_cast<const float4*>(x + static_cast<int64_t>(row) * cols) + piece * PIECE4;
  const unsigned long long pol = write ? pol_first : pol_last;
  const float fill = write ? 0.0f : -INFINITY;
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    q[v] = v * THREADS + threadIdx.x < n4 ? ld_hint(xp + v * THREADS + threadIdx.x, pol) : make_float4(fill, fill, fill, fill);
}

template <int THREADS, int VEC, int DIAG>
__device__ __forceinline__ void pt_work(float* y, int cols, int pieces, unsigned long long* parts, bool write, int unit,
                                        const float4 (&q)[VEC], MaxSum* slots, MaxSum* total) {
  constexpr int PIECE4 = THREADS * VEC;
  const int t = threadIdx.x;
  const int row = unit / pieces, piece = unit % pieces;
  const int n4 = min(cols / 4 - piece * PIECE4, PIECE4);
  if (!write) {
    publish_part<THREADS>(q, t, slots, parts, row, pieces, piece);  // the reference's
    return;
  }
  if (DIAG == 1) {
    if (t == 0) *total = MaxSum{1.0f, 1.0f};
  } else if (t < 32) {
    const MaxSum p = collect_parts<2>(&parts[static_cast<int64_t>(row) * pieces], pieces, t);
    if (t == 0) *total = p;
  }
  __syncthreads();
  const float m = total->m, inv = 1.0f / total->d;
  store_piece<THREADS>(reinterpret_cast<float4*>(y + static_cast<int64_t>(row) * cols) + piece * PIECE4, q, t, n4, m,
                       inv);  // the reference's
}

template <int THREADS, int VEC, int MINB, int DIAG>
__global__ void __launch_bounds__(THREADS, MINB)
    pt_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int pieces, int units, int lag,
              unsigned call) {
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket[2];
  const unsigned tasks = 2u * units, wrap = tasks + gridDim.x - 1;
  unsigned long long* parts = launch_bank<THREADS>(g_l2t_parts, call);
  unsigned long long pol_last, pol_first;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol_last));
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol_first));
  float4 a[VEC], b[VEC];
  bool wa, wb;
  int ua, ub;
  if (threadIdx.x == 0) ticket[0] = atomicInc(&g_pt_ticket, wrap);
  __syncthreads();
  unsigned ia = ticket[0], ib;
  if (ia >= tasks) return;
  pt_load<THREADS, VEC>(x, cols, pieces, units, lag, ia, a, wa, ua, pol_last, pol_first);
  while (true) {
    if (threadIdx.x == 0) ticket[1] = atomicInc(&g_pt_ticket, wrap);
    __syncthreads();
    ib = ticket[1];
    if (ib < tasks) pt_load<THREADS, VEC>(x, cols, pieces, units, lag, ib, b, wb, ub, pol_last, pol_first);
    pt_work<THREADS, VEC, DIAG>(y, cols, pieces, parts, wa, ua, a, slots, &total);
    if (ib >= tasks) return;
    if (threadIdx.x == 0) ticket[0] = atomicInc(&g_pt_ticket, wrap);
    __syncthreads();
    ia = ticket[0];
    if (ia < tasks) pt_load<THREADS, VEC>(x, cols, pieces, units, lag, ia, a, wa, ua, pol_last, pol_first);
    pt_work<THREADS, VEC, DIAG>(y, cols, pieces, parts, wb, ub, b, slots, &total);
    if (ia >= tasks) return;
  }
}

template <int THREADS, int VEC, int MINB, int DIAG, int LAGQ>
void launch_pt(const float* x, float* y, int rows, int cols) {
  constexpr int PIECE = THREADS * VEC * 4;
  static const int grid = resident_blocks(pt_kernel<THREADS, VEC, MINB, DIAG>, THREADS);
  if (cols % 4 != 0) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  task_batches(rows, cols, PIECE, LAGQ, [&](int64_t at, int pieces, int units, int lag, int) {
    pt_kernel<THREADS, VEC, MINB, DIAG><<<min(grid, 2 * units), THREADS>>>(x + at, y + at, cols, pieces, units, lag,
                                                                          ++g_l2t_calls);
  });
}

// DIAGNOSTIC taskcopy_kernel: the task kernels' blocks (one ticket, a piece in registers, two blocks a
// SM) copying x to y: what the short-lived-block structure costs without the second read or the math.
// REREAD: each block also reads the piece LAG pieces back a second time (from L2: the first read was
// evict_last, this one evict_first) and adds 0 · it to y: the task kernel's L2 traffic (x twice, y
// once) without its waits or math. Is the second read's cost L2 bandwidth or the blocks' latency?
template <int THREADS, int VEC, bool REREAD>
__global__ void __launch_bounds__(THREADS, 2) taskcopy_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n4, int lag) {
  __shared__ unsigned ticket;
  if (threadIdx.x == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  const int64_t base = static_cast<int64_t>(ticket) * THREADS * VEC;
  const float4* xp = reinterpret_cast<const float4*>(x) + base;
  float4* yp = reinterpret_cast<float4*>(y) + base;
  unsigned long long pol_last, pol_first;
  asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol_last));
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol_first));
  float4 q[VEC], r[VEC];
  const int64_t back = static_cast<int64_t>(ticket) >= lag ? -static_cast<int64_t>(lag) * THREADS * VEC : 0;
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const bool in = base + v * THREADS + threadIdx.x < n4;
    q[v] = in ? (REREAD ? ld_hint(xp + v * THREADS + threadIdx.x, pol_last) : xp[v * THREADS + threadIdx.x]) : make_float4(0.f, 0.f, 0.f, 0.f);
    if (REREAD) r[v] = in && back ? ld_hint(xp + back + v * THREADS + threadIdx.x, pol_first) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
#pragma unroll
  for (int v = 0; v < VEC; ++v)
    if (base + v * THREADS + threadIdx.x < n4) {
      float4 o = q[v];
      if (REREAD) o = make_float4(fmaf(0.0f, r[v].x, o.x), fmaf(0.0f, r[v].y, o.y), fmaf(0.0f, r[v].z, o.z), fmaf(0.0f, r[v].w, o.w));
      __stcs(&yp[v * THREADS + threadIdx.x], o);
    }
}

template <int THREADS, int VEC, bool REREAD>
void launch_taskcopy(const float* x, float* y, int rows, int cols) {
  const int64_t n4 = static_cast<int64_t>(rows) * cols / 4;
  const int64_t blocks = (n4 + THREADS * VEC - 1) / (THREADS * VEC);
  const int lag = static_cast<int>((12 << 20) / (THREADS * VEC * 16));  // 12 MB back, as the task kernel's lag
  taskcopy_kernel<THREADS, VEC, REREAD><<<static_cast<unsigned>(blocks), THREADS>>>(x, y, n4, lag);
}

// DIAGNOSTIC l2read_kernel: every SM reading a 12 MB region that L2 holds, float4 loads, two 512-thread
// blocks a SM, the bytes of x in all: L2's read bandwidth with no DRAM traffic (the sum is stored only
// so the loads are not removed).
__global__ void __launch_bounds__(512, 2) l2read_kernel(const float4* __restrict__ x, float* __restrict__ y, int64_t total4, int64_t region4) {
  float s = 0.0f;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total4; i += 4 * stride) {
    float4 a[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) a[u] = x[(i + u * stride) % region4];
#pragma unroll
    for (int u = 0; u < 4; ++u) s += (a[u].x + a[u].y) + (a[u].z + a[u].w);
  }
  if (s == 12345.678f) y[0] = s;
}

void launch_l2read(const float* x, float* y, int rows, int cols) {
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  l2read_kernel<<<2 * sms, 512>>>(reinterpret_cast<const float4*>(x), y, static_cast<int64_t>(rows) * cols / 4, (12 << 20) / 16);
}

// l2_tasks_kernel with the pieces landing in shared memory (cp.async) instead of registers: a block
// needs few registers, so OCC blocks of PIECE floats each share a SM (3 × 64 KB: 192 KB of x in flight
// a SM, against 2 × 64 KB in registers). Stats loads ask L2 to keep x (evict_last), the write's
// loads to drop it first, y is stored .cs. Same tickets and exchange as l2_tasks_kernel.
__device__ __forceinline__ void copy16_hint(float4* smem, const float4* gmem, unsigned long long policy) {
  const unsigned a = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2;" ::"r"(a), "l"(gmem), "l"(policy) : "memory");
}

template <int THREADS, int VEC, bool NOWAIT>
__global__ void __launch_bounds__(THREADS, 227 * 1024 / (THREADS * VEC * 16 + 1024) < 2048 / THREADS
                                               ? 227 * 1024 / (THREADS * VEC * 16 + 1024) : 2048 / THREADS)
    l2s_tasks_kernel(const float* __restrict__ x, float* __restrict__ y, int cols, int pieces, int units, int lag,
                     unsigned call) {
  constexpr int PIECE4 = THREADS * VEC;  // float4 a piece
  extern __shared__ float4 held[];       // PIECE4 float4: element v of thread t at v·THREADS + t
  __shared__ MaxSum slots[THREADS / 32];
  __shared__ MaxSum total;
  __shared__ unsigned ticket;
  const int t = threadIdx.x;
  unsigned long long* parts = launch_bank<THREADS>(g_l2t_parts, call);
  if (t == 0) ticket = atomicInc(&g_ticket, gridDim.x - 1);
  __syncthreads();
  bool write;
  int unit;
  task_of(static_cast<int>(ticket), lag, units, write, unit);  // the reference's order of tasks
  const int row = unit / pieces, piece = unit % pieces;
  const int cols4 = cols / 4;
  const float4* xr = reinterpret_cast<const float4*>(x + static_cast<int64_t>(row) * cols) + piece * PIECE4;
  const int mine4 = cols4 - piece * PIECE4 < PIECE4 ? cols4 - piece * PIECE4 : PIECE4;
  unsigned long long policy;
  if (write) {
    asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  } else {
    asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
  }
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int f = v * THREADS + t;
    if (f < mine4) copy16_hint(&held[f], xr + f, policy);
  }
  asm volatile("cp.async.commit_group;" ::: "memory");
  if (!write) {
    asm volatile("cp.async.wait_all;" ::: "memory");  // only this thread reads its elements: no barrier
    float m = -FLT_MAX, d = 0.0f;  // two reads of shared memory, not VEC float4 of registers
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int f = v * THREADS + t;
      if (f < mine4) {
        const float4 q = held[f];
        m = fmaxf(fmaxf(fmaxf(m, q.x), fmaxf(q.y, q.z)), q.w);
      }
    }
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int f = v * THREADS + t;
      if (f < mine4) {
        const float4 q = held[f];
        d += (__expf(q.x - m) + __expf(q.y - m)) + (__expf(q.z - m) + __expf(q.w - m));
      }
    }
    const MaxSum w = warp_combine(MaxSum{m, d});
    if (t % 32 == 0) slots[t / 32] = w;
    __syncthreads();
    if (t < 32) {
      const MaxSum p = warp_combine(t < THREADS / 32 ? slots[t] : empty_part());
      if (t == 0) *reinterpret_cast<volatile unsigned long long*>(&parts[static_cast<int64_t>(row) * pieces + piece]) = pack_part(p);
    }
    return;
  }
  if (NOWAIT) {
    if (t == 0) total = MaxSum{1.0f, 1.0f};
  } else if (t < 32) {  // while the piece lands
    const MaxSum p = collect_parts<POLL>(&parts[static_cast<int64_t>(row) * pieces], pieces, t);
    if (t == 0) total = p;
  }
  __syncthreads();
  asm volatile("cp.async.wait_all;" ::: "memory");
  const float m = total.m, inv = 1.0f / total.d;
  float4* yr = reinterpret_cast<float4*>(y + static_cast<int64_t>(row) * cols) + piece * PIECE4;
#pragma unroll
  for (int v = 0; v < VEC; ++v) {
    const int f = v * THREADS + t;
    if (f < mine4) {
      const float4 q = held[f];
      __stcs(yr + f, make_float4(__expf(q.x - m) * inv, __expf(q.y - m) * inv, __expf(q.z - m) * inv, __expf(q.w - m) * inv));
    }
  }
}

template <int THREADS, int VEC, bool NOWAIT, int LAGQ>
void launch_l2s_tasks(const float* x, float* y, int rows, int cols) {
  constexpr int PIECE = THREADS * VEC * 4;
  constexpr int SMEM = THREADS * VEC * 16;
  const auto kernel = l2s_tasks_kernel<THREADS, VEC, NOWAIT>;
  static const bool ready = [&] {
    cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
    return true;
  }();
  (void)ready;
  if (cols % 4 != 0) {
    launch_block_rows<512, 4, 16>(x, y, rows, cols);
    return;
  }
  task_batches(rows, cols, PIECE, LAGQ, [&](int64_t at, int pieces, int units, int lag, int) {
    kernel<<<2 * units, THREADS, SMEM>>>(x + at, y + at, cols, pieces, units, lag, ++g_l2t_calls);
  });
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
  const int resident = resident_blocks(kernel, T, SMEM);
  return {"stream T" + std::to_string(T) + " v" + std::to_string(V) + " chunk" + std::to_string(T * 4 * V) + " a" +
              std::to_string(A) + " l" + std::to_string(L),
          launch_stream_rows<T, V, A, L>, resident};
}

template <int T, int V, int A, int L, int MODE = 0>
Cand stream2bar() {
  constexpr int SMEM = (A + L + 1) * V * T * 16;
  auto kernel = stream_rows_2bar_kernel<T, V, A, L, MODE>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  const int resident = resident_blocks(kernel, T, SMEM);
  const char* kind[] = {"stream-2bar", "stream-2bar-poll", "stream-2bar-nowait"};
  return {std::string(kind[MODE]) + " T" + std::to_string(T) + " v" + std::to_string(V) + " chunk" +
              std::to_string(T * 4 * V) + " a" + std::to_string(A) + " l" + std::to_string(L),
          launch_stream_rows_2bar<T, V, A, L, MODE>, resident, MODE != 2};
}

template <int T, int V, int A, int L>
Cand reread() {
  constexpr int SMEM = (A + 1) * V * T * 16;
  auto kernel = stream_reread_kernel<T, V, A, L>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  const int resident = resident_blocks(kernel, T, SMEM);
  return {"stream-reread T" + std::to_string(T) + " v" + std::to_string(V) + " chunk" + std::to_string(T * 4 * V) +
              " a" + std::to_string(A) + " l" + std::to_string(L),
          launch_stream_reread<T, V, A, L>, resident};
}

template <int T, int V, int A, int L, int MODE>
Cand pipe() {
  constexpr int SMEM = (A + L + 1) * V * T * 16;
  auto kernel = pipe_rows_kernel<T, V, A, L, MODE>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  const int resident = resident_blocks(kernel, T, SMEM);
  std::string name = std::string(MODE & 2 ? "pipe-nowait" : "pipe") + (MODE & 1 ? "-dyn" : "-static") +
                     (MODE & 4 ? "-early" : "") + " T" + std::to_string(T) + " v" + std::to_string(V) + " a" +
                     std::to_string(A) + " l" + std::to_string(L);
  return {name, launch_pipe_rows<T, V, A, L, MODE>, resident, !(MODE & 2)};
}

template <int T, int V, int A, int MODE, bool FILL>
Cand reg() {
  constexpr int SMEM = A * V * T * 16;
  auto kernel = reg_rows_kernel<T, V, A, MODE>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  const int resident = resident_blocks(kernel, T, SMEM);
  std::string name = std::string(MODE & 2 ? "reg-nowait" : "reg") + (FILL ? "-fill" : "") + (MODE & 4 ? "-ilv" : "") + " T" + std::to_string(T) +
                     " v" + std::to_string(V) + " a" + std::to_string(A);
  return {name, launch_reg_rows<T, V, A, MODE, FILL>, resident, !(MODE & 2)};
}

template <int T, int V, int POLICY, int LAGQ, int OCC = 0, bool NOWAIT = false>
Cand l2t() {
  char lag[16];
  std::snprintf(lag, sizeof lag, "%g", LAGQ / 4.0);
  return {std::string(NOWAIT ? "l2tasks-nowait" : "l2tasks") + " p" + std::to_string(POLICY) + " T" + std::to_string(T) +
              " v" + std::to_string(V) + " piece" + std::to_string(T * V * 4) + " lag" + lag +
              (OCC ? " occ" + std::to_string(OCC) : ""),
          launch_l2_tasks<T, V, POLICY, NOWAIT, LAGQ, OCC>, 0, !NOWAIT};
}

template <int T, int V>
Cand tasks() {
  return {"tasks_rows T" + std::to_string(T) + " v" + std::to_string(V) + " piece" + std::to_string(T * V * 4) +
              " (the reference's)", launch_tasks_rows<T, V>, 0};
}

template <int T, int V, int MINB, int EXP, int LAGQ, int DIAG = 0, int AT = 8>
Cand t2() {
  char lag[16];
  std::snprintf(lag, sizeof lag, "%g", LAGQ / 4.0);
  return {std::string(DIAG ? "t2-diag" + std::to_string(DIAG) : "t2") + " T" + std::to_string(T) + " v" + std::to_string(V) + " b" +
              std::to_string(MINB) + " e" + std::to_string(EXP) + " piece" + std::to_string(T * V * 4) + " lag" + lag +
              (AT != 8 ? " at" + std::to_string(AT) : ""),
          launch_t2<T, V, MINB, EXP, DIAG, LAGQ, AT>, 0, DIAG == 0};
}

template <int T, int V, int HOLD, int LAGQ>
Cand hy() {
  char lag[16];
  std::snprintf(lag, sizeof lag, "%g", LAGQ / 4.0);
  return {"hy T" + std::to_string(T) + " v" + std::to_string(V) + " hold" + std::to_string(HOLD) + " piece" +
              std::to_string(T * V * 4) + " lag" + lag,
          launch_hy<T, V, HOLD, LAGQ>, 0};
}

template <int T, int V, int MINB, int DIAG, int LAGQ>
Cand pt() {
  char lag[16];
  std::snprintf(lag, sizeof lag, "%g", LAGQ / 4.0);
  return {std::string(DIAG ? "pt-nowait" : "pt") + " T" + std::to_string(T) + " v" + std::to_string(V) + " b" +
              std::to_string(MINB) + " piece" + std::to_string(T * V * 4) + " lag" + lag,
          launch_pt<T, V, MINB, DIAG, LAGQ>, 0, DIAG == 0};
}

template <int T, int V, int LAGQ, bool NOWAIT = false>
Cand l2s() {
  constexpr int SMEM = T * V * 16;
  auto kernel = l2s_tasks_kernel<T, V, NOWAIT>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM);
  const int resident = resident_blocks(kernel, T, SMEM);
  int sms = 1;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  char lag[16];
  std::snprintf(lag, sizeof lag, "%g", LAGQ / 4.0);
  return {std::string(NOWAIT ? "l2smem-nowait" : "l2smem") + " T" + std::to_string(T) + " v" + std::to_string(V) +
              " piece" + std::to_string(T * V * 4) + " lag" + lag + " occ" + std::to_string(resident / sms),
          launch_l2s_tasks<T, V, NOWAIT, LAGQ>, resident, !NOWAIT};
}

const std::vector<Cand>& candidates() {
  // Every candidate of runs 8-12 (benchmarks/h200-c5-2026-12-02-tasks.md): each run timed a subset,
  // named in its time.csv; `one NAME RxC` runs any of them.
  static const std::vector<Cand> all = {
      tasks<512, 8>(),                   // the reference's tasks_rows_kernel (softmax_fast's, lag: a fifth of L2)
      l2t<512, 8, 2, 12>(),              // the best in runs 5-7 (lag 3 rows)
      t2<512, 8, 2, 0, 12>(),            // l2t with warp 0 alone combining a stats part, two blocks a SM asked for
      t2<512, 8, 2, 1, 12>(),            // ... and ex2.approx.ftz: the reference's kernel from run 12 on
      t2<512, 8, 2, 1, 14>(),            // lag 3.5 rows
      t2<256, 8, 4, 1, 12>(),            // 32 KB pieces, four blocks a SM
      t2<256, 12, 4, 1, 12, 0, 4>(),     // 48 KB pieces, four blocks a SM (spills 32 bytes)
      t2<512, 12, 2, 1, 12, 0, 2>(),     // 96 KB pieces, two blocks a SM (spills 32 bytes)
      t2<1024, 4, 2, 1, 12, 0, 2>(),     // 64 KB pieces of 1024 threads (spills 24 bytes)
      t2<128, 8, 8, 1, 12>(),            // 16 KB pieces of 128 threads, eight blocks a SM
      t2<512, 8, 2, 1, 12, 1>(),         // DIAGNOSTIC: writes do not wait
      t2<512, 8, 2, 1, 12, 2>(),         // DIAGNOSTIC: no exponentials
      t2<512, 8, 2, 1, 12, 3>(),         // DIAGNOSTIC: no wait, no exponentials
      t2<512, 8, 2, 1, 12, 5>(),         // DIAGNOSTIC: no wait, no second read
      t2<512, 8, 2, 1, 12, 7>(),         // DIAGNOSTIC: no wait, no exponentials, no second read
      hy<512, 8, 8, 12>(),               // the last 8 pieces of every row held, not read again
      hy<512, 8, 16, 12>(),              // 16 held
      hy<512, 8, 32, 12>(),              // 32 held
      hy<512, 8, 48, 12>(),              // 48 held
      hy<512, 8, 64, 12>(),              // every piece held: no second read at all
      hy<512, 8, 32, 8>(),               // 32 held, lag 2 rows
      pt<512, 8, 1, 0, 12>(),            // persistent blocks, two tasks going: 2 x 64 KB a SM
      pt<512, 8, 1, 1, 12>(),            // DIAGNOSTIC: the same, writes do not wait
      pt<256, 8, 2, 0, 12>(),            // 32 KB pieces, two blocks a SM, two tasks each
      pt<1024, 4, 1, 0, 12>(),           // 64 KB pieces of 1024 threads, two tasks going
      pt<512, 8, 1, 0, 16>(),            // lag 4 rows
      pt<512, 8, 1, 0, 10>(),            // lag 2.5 rows
      {"taskcopy T512 v8", launch_taskcopy<512, 8, false>, 0, false},        // DIAGNOSTIC: the task blocks copying x to y
      {"taskcopy T512 v4", launch_taskcopy<512, 4, false>, 0, false},        // DIAGNOSTIC: 32 KB pieces
      {"taskcopy-reread T512 v4", launch_taskcopy<512, 4, true>, 0, false},  // DIAGNOSTIC: ... and reading x again from L2
      {"taskcopy-reread T256 v8", launch_taskcopy<256, 8, true>, 0, false},  // DIAGNOSTIC: the same, 256 threads
      {"l2read 12MB", launch_l2read, 0, false},  // DIAGNOSTIC: L2's read bandwidth (x's bytes read from a 12 MB region)
      reg<512, 8, 1, 0, false>(),        // persistent pipeline, the waiting row in registers
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
      if (!std::strcmp(kind, "headinf") && c < cols / 2) v = -INFINITY;  // whole segments and pieces of -inf
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
  const char* kinds[] = {"uniform", "scaled", "neginf", "latemax", "headinf"};
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
