__device__ __noinline__ float pick(const float* a, int i) { return a[i]; }
extern "C" __global__ void stacky(float* out, const int* idx, int n) {
  float local[64];
  for (int j = 0; j < 64; j++) local[j] = out[j * n + threadIdx.x];
  out[threadIdx.x] = pick(local, idx[threadIdx.x] & 63);
}
