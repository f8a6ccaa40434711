extern "C" __global__ void __launch_bounds__(128, 1) serialized(float* out, unsigned long long da, unsigned long long db, int n) {
  float d0=0,d1=0,d2=0,d3=0;
  for (int k = 0; k < n; k++) {
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0,%1,%2,%3}, %4, %5, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d0),"+f"(d1),"+f"(d2),"+f"(d3) : "l"(da + k), "l"(db + k), "r"(1));
    d0 += 1.0f;  // touch accumulator inside the async region
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  out[threadIdx.x] = d0 + d1 + d2 + d3;
}
