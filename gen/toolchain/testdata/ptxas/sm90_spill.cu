extern "C" __global__ void __launch_bounds__(1024, 1) spiller(float* out, const float* in, int n) {
  float acc[256];
  #pragma unroll
  for (int j = 0; j < 256; j++) acc[j] = in[j * n + threadIdx.x];
  #pragma unroll 1
  for (int k = 0; k < n; k++) {
    #pragma unroll
    for (int j = 0; j < 256; j++) acc[j] = acc[j] * acc[(j + 1) & 255] + in[k];
  }
  float s = 0;
  #pragma unroll
  for (int j = 0; j < 256; j++) s += acc[j];
  out[threadIdx.x] = s;
}
