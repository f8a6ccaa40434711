// swigen CUDA library v1, sm_90a: the epilogue op library, the fp32 math a
// kind's epilogue applies to its accumulator fragments between unpacking
// its operands (T::Elem::unpack) and packing its results (T::Elem::pack,
// the store's conversion). Each op is a force-inlined function of scalars:
// it compiles to the instructions its expression inline compiles to (gen's
// TestThinUnitSASS holds each kind to the skeleton's machine code), while
// the loops over sub-tiles and fragments stay statements of the body.
#pragma once
#include "swigen_v1_common.cuh"
#include "swigen_v1_dswiglu_tanh.cuh"

// SwiGLU forward: left * silu(gate), silu(g) = g * sigmoid(g).
SW_DEV float sw_op_swiglu(float left, float gate) { return left * (gate * sw_sigmoid(gate)); }

// Residual add: the accumulator plus the residual's value.
SW_DEV float sw_op_add(float acc, float res) { return acc + res; }

// dSwiGLU backward: from dout and the forward's left and gate, the
// gradients into left and gate and the recomputed out = left*silu(gate);
// Tanh (_tanh) takes the sigmoid from tanh.approx.
template <bool Tanh>
SW_DEV void sw_op_dswiglu(float dout, float left, float gate, float& dleft, float& dgate, float& out) {
  if constexpr (Tanh) {
    sw_dswiglu_tanh(dout, left, gate, dleft, dgate, out);
  } else {
    sw_dswiglu(dout, left, gate, dleft, dgate, out);
  }
}
