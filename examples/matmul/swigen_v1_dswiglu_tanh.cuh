// swigen CUDA library v1: the tanh-based dSwiGLU (Config.FastSigmoid, _tanh),
// for the op library (swigen_v1_sm90a_ops.cuh), which includes it after
// swigen_v1_common.cuh (SW_DEV). A skeleton-rendered kernel pastes the body
// instead (gen's "fast_sigmoid" template).
#pragma once

// FastSigmoid: sigmoid(g) = 0.5 + 0.5*tanh(g/2), one tanh.approx (max rel.
// error 2^-11) instead of ex2 + rcp.
SW_DEV void sw_dswiglu_tanh(float dout, float left, float gate, float& dleft, float& dgate, float& out) {
  float t;
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(0.5f * gate));
  const float s = fmaf(0.5f, t, 0.5f);
  const float silu = gate * s;
  dleft = dout * silu;
  dgate = dout * left * (s * (1.0f + gate - silu));
  out = left * silu;
}
