package tiling

import "fmt"

// groupedBwdImplemented is where moe_bwd_dswiglu has code
// (templates/cuda/moe_bwd_dswiglu_sm90a.cu.tmpl on
// sched_grouped_sm90a.sched.tmpl, moe_bwd_dswiglu_sm100a.cu.tmpl on
// sched_grouped_sm100a.sched.tmpl): per expert e, dout = dy[rows of e] @
// W_down[e] with W_down [E,K,I] (nn.Linear(I,K).weight per expert: the
// GEMM's B stored [K,N], MN-major) read through a 3-D tensor map, so a
// ragged K zero-fills inside the expert and no k-block reads the next
// expert's rows; the dense bwd_dswiglu epilogue of the arch (de loaded by
// TMA, grad_de TMA-stored), with an expert's ragged last sub-tile stored
// row by row (sm_90a: by the consumer from the slot; sm_100a: by each
// epilogue thread from its registers). The rules every grouped kind shares
// are groupedCommon's, checked first.
func groupedBwdImplemented(c Config) (bool, string) {
	switch {
	case c.MajorB != MNMajor:
		return false, fmt.Sprintf("%s needs major_b=mn (W_down [E,K,I], nn.Linear(I,K).weight per expert, is the GEMM's B stored [K,N]); a K-major [E,I,K] W_down is not implemented", c.Kernel)
	case c.L2KeepOperands:
		return false, fmt.Sprintf("%s with l2k is not implemented: the 3-D W_down load has no L2 evict_last form", c.Kernel)
	}
	return true, ""
}
