// sm_90 tensor-core instructions: stmatrix. Lane l holds value (j, l) of matrix j in register j;
// stmatrix writes the matrices to a shared tile with `pitch` halves between rows, which is then
// copied out. The reference is ldmatrix's layout read backwards.
using u16 = unsigned short;
using u32 = unsigned;

template <int NUM, bool TRANS>
__device__ void stmatrix_test(const u32* in, u16* out, int pitch) {
  __shared__ __align__(16) u16 tile[32 * 72];
  for (int i = threadIdx.x; i < 32 * pitch; i += 32) tile[i] = 0xffff;
  __syncwarp();
  const int l = threadIdx.x;
  const u32 addr = u32(__cvta_generic_to_shared(tile + (l % (8 * NUM)) * pitch));
  u32 r[4];
  for (int j = 0; j < 4; ++j) r[j] = in[j * 32 + l];
  if (NUM == 1 && !TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]));
  if (NUM == 2 && !TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1,%2};" ::"r"(addr), "r"(r[0]), "r"(r[1]));
  if (NUM == 4 && !TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  if (NUM == 1 && TRANS) asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(addr), "r"(r[0]));
  if (NUM == 2 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1,%2};" ::"r"(addr), "r"(r[0]), "r"(r[1]));
  if (NUM == 4 && TRANS)
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1,%2,%3,%4};" ::"r"(addr), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]));
  __syncwarp();
  for (int i = threadIdx.x; i < 32 * pitch; i += 32) out[i] = tile[i];
}
extern "C" __global__ void stmatrix_x1(const u32* in, u16* out, int pitch) { stmatrix_test<1, false>(in, out, pitch); }
extern "C" __global__ void stmatrix_x2(const u32* in, u16* out, int pitch) { stmatrix_test<2, false>(in, out, pitch); }
extern "C" __global__ void stmatrix_x4(const u32* in, u16* out, int pitch) { stmatrix_test<4, false>(in, out, pitch); }
extern "C" __global__ void stmatrix_x1_trans(const u32* in, u16* out, int pitch) { stmatrix_test<1, true>(in, out, pitch); }
extern "C" __global__ void stmatrix_x2_trans(const u32* in, u16* out, int pitch) { stmatrix_test<2, true>(in, out, pitch); }
extern "C" __global__ void stmatrix_x4_trans(const u32* in, u16* out, int pitch) { stmatrix_test<4, true>(in, out, pitch); }
