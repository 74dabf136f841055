// One module built three ways (raw PTX, zstd-compressed PTX, legacy-compressed PTX) to check
// that the runtime reads each fat binary layout or says why it cannot.
__device__ int fatbin_marker[3] = {11, 22, 33};

__global__ void fatbin_probe(int* out) { out[threadIdx.x] = fatbin_marker[threadIdx.x]; }

const void* fatbin_probe_kernel() { return reinterpret_cast<const void*>(fatbin_probe); }
const void* fatbin_marker_symbol() { return &fatbin_marker; }
