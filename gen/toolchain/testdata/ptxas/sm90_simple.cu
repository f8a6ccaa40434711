extern "C" __global__ void __launch_bounds__(128) simple(float* out, const float* in, int n) {
  __shared__ float buf[128];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = buf[127 - threadIdx.x] * 2.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
