extern "C" __global__ void bad(float* out) {
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
  asm volatile("not_an_instruction.b32;\n");
  out[threadIdx.x] = 0;
}
