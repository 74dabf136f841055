// Experiment behind content/c3.md §8.2: the same [32][33] and float4 transposes in different block launch
// orders, timed against the same-shape copy kernel and cudaMemcpy. Build and run on a GPU:
//   nvcc -O3 -arch=sm_90 benchmarks/c3_launch_order.cu -o /tmp/order && /tmp/order
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#include <random>
#include <cuda_runtime.h>
#define CK(x) do{cudaError_t e=(x); if(e){printf("%s:%d %s\n",__FILE__,__LINE__,cudaGetErrorString(e)); exit(1);}}while(0)
constexpr int TILE=32, BR=8;

__global__ void copyk(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  int c=blockIdx.x*TILE+threadIdx.x, r0=blockIdx.y*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int r=r0+j; if(r<M&&c<N) y[(int64_t)r*N+c]=x[(int64_t)r*N+c];}
}
__global__ void padded(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float t[TILE][TILE+1];
  int c=blockIdx.x*TILE+threadIdx.x, r0=blockIdx.y*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int r=r0+j; if(r<M&&c<N) t[threadIdx.y+j][threadIdx.x]=x[(int64_t)r*N+c];}
  __syncthreads();
  int yc=blockIdx.y*TILE+threadIdx.x, yr0=blockIdx.x*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int yr=yr0+j; if(yr<N&&yc<M) y[(int64_t)yr*M+yc]=t[threadIdx.x][threadIdx.y+j];}
}
// same but grid is (tilesM, tilesN): consecutive blocks are neighbours along a row of y
__global__ void padded_colmajor(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float t[TILE][TILE+1];
  int bx=blockIdx.y, by=blockIdx.x;
  int c=bx*TILE+threadIdx.x, r0=by*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int r=r0+j; if(r<M&&c<N) t[threadIdx.y+j][threadIdx.x]=x[(int64_t)r*N+c];}
  __syncthreads();
  int yc=by*TILE+threadIdx.x, yr0=bx*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int yr=yr0+j; if(yr<N&&yc<M) y[(int64_t)yr*M+yc]=t[threadIdx.x][threadIdx.y+j];}
}
template<int TM>
__global__ void shifted(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float t[TM+8][TILE+1];
  int m0=blockIdx.y*TM, n0=blockIdx.x*TILE, c=n0+threadIdx.x;
  for(int i=threadIdx.y;i<TM+8;i+=BR){int m=m0-8+i; if(m>=0&&m<M&&c<N) t[i][threadIdx.x]=x[(int64_t)m*N+c];}
  __syncthreads();
  for(int i=threadIdx.y;i<TILE;i+=BR){int n=n0+i; if(n>=N) break; int s=(int)(((int64_t)n*M)&7);
    for(int k=threadIdx.x;k<TM;k+=TILE){int m=m0-s+k; if(m>=0&&m<M) y[(int64_t)n*M+m]=t[8-s+k][i];}}
}
template<int TM>
__global__ void shifted_colmajor(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float t[TM+8][TILE+1];
  int m0=blockIdx.x*TM, n0=blockIdx.y*TILE, c=n0+threadIdx.x;
  for(int i=threadIdx.y;i<TM+8;i+=BR){int m=m0-8+i; if(m>=0&&m<M&&c<N) t[i][threadIdx.x]=x[(int64_t)m*N+c];}
  __syncthreads();
  for(int i=threadIdx.y;i<TILE;i+=BR){int n=n0+i; if(n>=N) break; int s=(int)(((int64_t)n*M)&7);
    for(int k=threadIdx.x;k<TM;k+=TILE){int m=m0-s+k; if(m>=0&&m<M) y[(int64_t)n*M+m]=t[8-s+k][i];}}
}
// 64x64 scalar tile, 32x8 block, 16 elements per thread
__global__ void big64(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float t[64][65];
  int m0=blockIdx.y*64, n0=blockIdx.x*64;
  for(int i=threadIdx.y;i<64;i+=BR) for(int k=threadIdx.x;k<64;k+=32){int m=m0+i,n=n0+k; if(m<M&&n<N) t[i][k]=x[(int64_t)m*N+n];}
  __syncthreads();
  for(int i=threadIdx.y;i<64;i+=BR) for(int k=threadIdx.x;k<64;k+=32){int n=n0+i,m=m0+k; if(n<N&&m<M) y[(int64_t)n*M+m]=t[k][i];}
}


__device__ __forceinline__ void grouped(int L, int tilesX, int tilesY, int G, int& bx, int& by){
  int per=G*tilesX; int g=L/per; int local=L%per; int gh=min(G, tilesY-g*G); by=g*G+local%gh; bx=local/gh;
}
template<int G>
__global__ void padded_grouped(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float t[TILE][TILE+1];
  int bx,by; grouped(blockIdx.x,(N+31)/32,(M+31)/32,G,bx,by);
  int c=bx*TILE+threadIdx.x, r0=by*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int r=r0+j; if(r<M&&c<N) t[threadIdx.y+j][threadIdx.x]=x[(int64_t)r*N+c];}
  __syncthreads();
  int yc=by*TILE+threadIdx.x, yr0=bx*TILE+threadIdx.y;
  for(int j=0;j<TILE;j+=BR){int yr=yr0+j; if(yr<N&&yc<M) y[(int64_t)yr*M+yc]=t[threadIdx.x][threadIdx.y+j];}
}
constexpr int VT=64;
__device__ __forceinline__ int chunk_at(int row,int chunk){return row*(VT/4)+(chunk^((row>>2)&7));}
template<int MODE> // 0 rowmajor, 1 colmajor, 2 grouped16
__global__ void vec4(const float* __restrict__ x, float* __restrict__ y, int M, int N){
  __shared__ float4 tile[VT*VT/4];
  int bx,by; if(MODE==0){bx=blockIdx.x;by=blockIdx.y;} else if(MODE==1){bx=blockIdx.y;by=blockIdx.x;} else grouped(blockIdx.x,(N+63)/64,(M+63)/64,16,bx,by);
  const int t=threadIdx.x, m0=by*VT, n0=bx*VT, q=t%16;
  for(int row=t/16;row<VT;row+=16){int m=m0+row,n=n0+4*q; if(m<M&&n<N) tile[chunk_at(row,q)]=*reinterpret_cast<const float4*>(x+(int64_t)m*N+n);}
  __syncthreads();
  const float* s=reinterpret_cast<const float*>(tile); const int p=t%8;
  for(int pass=0;pass<4;++pass){int col=(t/32)*4+(t%32)/8+(pass%2)*32; int mrow=4*(p+8*(pass/2)); int n=n0+col,m=m0+mrow;
    float4 v; v.x=s[4*chunk_at(mrow,col/4)+col%4]; v.y=s[4*chunk_at(mrow+1,col/4)+col%4]; v.z=s[4*chunk_at(mrow+2,col/4)+col%4]; v.w=s[4*chunk_at(mrow+3,col/4)+col%4];
    if(n<N&&m<M) *reinterpret_cast<float4*>(y+(int64_t)n*M+m)=v;}
}
float timeit(void(*launch)(const float*,float*,int,int), const float* x, float* y, int M, int N){
  for(int i=0;i<5;i++) launch(x,y,M,N);
  cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> v;
  for(int i=0;i<50;i++){cudaEventRecord(a); launch(x,y,M,N); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms,a,b); v.push_back(ms);}
  std::sort(v.begin(),v.end()); CK(cudaGetLastError()); return v[25];
}
dim3 g32(int M,int N){return dim3((N+31)/32,(M+31)/32);}
void L_copy(const float*x,float*y,int M,int N){copyk<<<g32(M,N),dim3(32,8)>>>(x,y,M,N);}
void L_pad(const float*x,float*y,int M,int N){padded<<<g32(M,N),dim3(32,8)>>>(x,y,M,N);}
void L_padcm(const float*x,float*y,int M,int N){padded_colmajor<<<dim3((M+31)/32,(N+31)/32),dim3(32,8)>>>(x,y,M,N);}
void L_sh32(const float*x,float*y,int M,int N){shifted<32><<<dim3((N+31)/32,(M+7)/32+1),dim3(32,8)>>>(x,y,M,N);}
void L_sh64(const float*x,float*y,int M,int N){shifted<64><<<dim3((N+31)/32,(M+7)/64+1),dim3(32,8)>>>(x,y,M,N);}
void L_sh64cm(const float*x,float*y,int M,int N){shifted_colmajor<64><<<dim3((M+7)/64+1,(N+31)/32),dim3(32,8)>>>(x,y,M,N);}
void L_sh128cm(const float*x,float*y,int M,int N){shifted_colmajor<128><<<dim3((M+7)/128+1,(N+31)/32),dim3(32,8)>>>(x,y,M,N);}
void L_big64(const float*x,float*y,int M,int N){big64<<<dim3((N+63)/64,(M+63)/64),dim3(32,8)>>>(x,y,M,N);}


int nblk(int M,int N,int T){return ((N+T-1)/T)*((M+T-1)/T);}
void L_g8(const float*x,float*y,int M,int N){padded_grouped<8><<<nblk(M,N,32),dim3(32,8)>>>(x,y,M,N);}
void L_g16(const float*x,float*y,int M,int N){padded_grouped<16><<<nblk(M,N,32),dim3(32,8)>>>(x,y,M,N);}
void L_g32(const float*x,float*y,int M,int N){padded_grouped<32><<<nblk(M,N,32),dim3(32,8)>>>(x,y,M,N);}
void L_v0(const float*x,float*y,int M,int N){vec4<0><<<dim3((N+63)/64,(M+63)/64),256>>>(x,y,M,N);}
void L_v1(const float*x,float*y,int M,int N){vec4<1><<<dim3((M+63)/64,(N+63)/64),256>>>(x,y,M,N);}
void L_v2(const float*x,float*y,int M,int N){vec4<2><<<nblk(M,N,64),256>>>(x,y,M,N);}
int main(){
  int shapes[][2]={{4113,8197},{8192,8192},{8193,8191},{16384,16384},{4096,8200}};
  struct {const char* n; void(*f)(const float*,float*,int,int); bool tr; bool vec;} ks[]={
    {"copy",L_copy,false,false},{"padded",L_pad,true,false},{"padded_colmajor",L_padcm,true,false},{"padded_grouped8",L_g8,true,false},
    {"padded_grouped16",L_g16,true,false},{"padded_grouped32",L_g32,true,false},{"shift128_colmajor",L_sh128cm,true,false},
    {"vec4",L_v0,true,true},{"vec4_colmajor",L_v1,true,true},{"vec4_grouped16",L_v2,true,true}};
  for(auto& s: shapes){int M=s[0],N=s[1]; size_t n=(size_t)M*N;
    std::vector<float> h(n); std::mt19937 g(1); std::uniform_real_distribution<float> d(-1,1); for(auto&v:h) v=d(g);
    float *x,*y; CK(cudaMalloc(&x,n*4)); CK(cudaMalloc(&y,n*4)); CK(cudaMemcpy(x,h.data(),n*4,cudaMemcpyHostToDevice));
    // memcpy
    for(int i=0;i<5;i++) cudaMemcpy(y,x,n*4,cudaMemcpyDeviceToDevice);
    cudaEvent_t a,b; cudaEventCreate(&a); cudaEventCreate(&b); std::vector<float> v;
    for(int i=0;i<50;i++){cudaEventRecord(a); cudaMemcpyAsync(y,x,n*4,cudaMemcpyDeviceToDevice); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms,a,b); v.push_back(ms);}
    std::sort(v.begin(),v.end());
    printf("%dx%d memcpy %.0f GB/s\n",M,N,2.0*n*4/v[25]/1e6);
    std::vector<float> got(n);
    for(auto& k: ks){ if(k.vec && (M%4||N%4)) continue; CK(cudaMemset(y,0xFF,n*4)); k.f(x,y,M,N); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(got.data(),y,n*4,cudaMemcpyDeviceToHost));
      size_t bad=0; for(int r=0;r<M;r++) for(int c=0;c<N;c++){float w=h[(size_t)r*N+c]; float gv = k.tr? got[(size_t)c*M+r] : got[(size_t)r*N+c]; if(!(w==gv)) bad++;}
      float ms=timeit(k.f,x,y,M,N); printf("  %-18s %7.0f GB/s  bad=%zu\n",k.n,2.0*n*4/ms/1e6,bad);}
    cudaFree(x); cudaFree(y);}
}
