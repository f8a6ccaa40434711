package bench

import (
	"fmt"

	"github.com/swigen/swigen/perfmodel"
	"github.com/swigen/swigen/tiling"
)

// SuiteShape is one MLP problem of the model-shape suite: token count M,
// hidden size K and intermediate size I (per tensor-parallel rank), with
// the public configuration it comes from.
type SuiteShape struct {
	Shape tiling.Shape
	// Model names the configuration and how it is split, e.g.
	// "LLaMA-3 70B, TP 8".
	Model string
	// Source says where K and I come from (the model's published config).
	Source string
}

// Suite is the model-shape suite: MLP shapes of public model
// configurations at token counts from decode-sized batches to long
// prefill/training sequences, and the seed shape. The fused kernels are
// judged over all of it (never slower than the unfused path, geomean), so a
// change that helps one shape and hurts another shows. K is the hidden
// size, I the MLP's intermediate size divided by the tensor-parallel
// degree (the gate and up halves each have I columns per rank); for
// mixture-of-experts models one routed expert's MLP.
var Suite = []SuiteShape{
	{tiling.Shape{M: 16384, K: 768, I: 4608}, "seed shape", "the project's seed problem"},
	{tiling.Shape{M: 8192, K: 4096, I: 14336}, "LLaMA-3 8B, TP 1", "Llama-3-8B config.json: hidden_size 4096, intermediate_size 14336"},
	{tiling.Shape{M: 4096, K: 4096, I: 7168}, "LLaMA-3 8B, TP 2", "Llama-3-8B config.json"},
	{tiling.Shape{M: 2048, K: 4096, I: 3584}, "LLaMA-3 8B, TP 4", "Llama-3-8B config.json"},
	{tiling.Shape{M: 128, K: 4096, I: 14336}, "LLaMA-3 8B, TP 1, decode batch", "Llama-3-8B config.json"},
	{tiling.Shape{M: 8192, K: 8192, I: 28672}, "LLaMA-3 70B, TP 1", "Llama-3-70B config.json: hidden_size 8192, intermediate_size 28672"},
	{tiling.Shape{M: 8192, K: 8192, I: 14336}, "LLaMA-3 70B, TP 2", "Llama-3-70B config.json"},
	{tiling.Shape{M: 8192, K: 8192, I: 7168}, "LLaMA-3 70B, TP 4", "Llama-3-70B config.json"},
	{tiling.Shape{M: 8192, K: 8192, I: 3584}, "LLaMA-3 70B, TP 8", "Llama-3-70B config.json"},
	{tiling.Shape{M: 32768, K: 8192, I: 3584}, "LLaMA-3 70B, TP 8, long sequence", "Llama-3-70B config.json"},
	{tiling.Shape{M: 8192, K: 3584, I: 18944}, "Qwen2.5 7B, TP 1", "Qwen2.5-7B config.json: hidden_size 3584, intermediate_size 18944"},
	{tiling.Shape{M: 4096, K: 3584, I: 9472}, "Qwen2.5 7B, TP 2", "Qwen2.5-7B config.json"},
	{tiling.Shape{M: 4096, K: 4096, I: 14336}, "Mixtral 8x7B expert", "Mixtral-8x7B config.json: hidden_size 4096, intermediate_size 14336 per expert"},
	{tiling.Shape{M: 4096, K: 7168, I: 2048}, "DeepSeek-V3 routed expert", "DeepSeek-V3 config.json: hidden_size 7168, moe_intermediate_size 2048"},
	{tiling.Shape{M: 512, K: 7168, I: 2048}, "DeepSeek-V3 routed expert, few tokens", "DeepSeek-V3 config.json"},
	{tiling.Shape{M: 2048, K: 2048, I: 768}, "Qwen3 MoE expert (30B-A3B)", "Qwen3-30B-A3B config.json: hidden_size 2048, moe_intermediate_size 768"},
	{tiling.Shape{M: 8192, K: 3584, I: 14336}, "Gemma-2 9B, TP 1", "gemma-2-9b config.json: hidden_size 3584, intermediate_size 14336"},
	{tiling.Shape{M: 16384, K: 3584, I: 7168}, "Gemma-2 9B, TP 2", "gemma-2-9b config.json"},
}

// SuiteShapes is the suite's shapes, in order.
func SuiteShapes() []tiling.Shape {
	out := make([]tiling.Shape, len(Suite))
	for i, s := range Suite {
		out[i] = s.Shape
	}
	return out
}

// SuiteModel names the suite entry of shape s, or "" when s is not in it.
func SuiteModel(s tiling.Shape) string {
	for _, e := range Suite {
		if e.Shape == s {
			return e.Model
		}
	}
	return ""
}

// String is "M,K,I (model)".
func (s SuiteShape) String() string {
	return fmt.Sprintf("%d,%d,%d (%s)", s.Shape.M, s.Shape.K, s.Shape.I, s.Model)
}

// SuiteGemms is the gemm tune's suite: the training step's GEMMs that run
// on swigen's gemm kind at every suite shape (perfmodel.Segment.Gemm, in
// the storage of lab/mlp): the unfused paths' fwd gate-up [M,2I,K] and
// bwd dout [M,I,K] (both K-major), dx [M,K,2I] (B MN-major), dW [2I,K,M]
// and dW_down [I,K,M] (both MN-major), without repeats, in suite order.
// The fwd down GEMM is left out: the step runs it on the fwd_down kind
// (Go) or torch (Python), never on gemm.
func SuiteGemms() []perfmodel.GemmDims {
	var out []perfmodel.GemmDims
	seen := map[perfmodel.GemmDims]bool{}
	for _, s := range SuiteShapes() {
		for _, seg := range []perfmodel.Segment{perfmodel.FwdGateUp, perfmodel.BwdDSwiGLU, perfmodel.DX, perfmodel.DW, perfmodel.DWDown} {
			g := seg.Gemm(s)
			if !seen[g] {
				seen[g] = true
				out = append(out, g)
			}
		}
	}
	return out
}
