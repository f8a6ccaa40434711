package tiling

// The kind registry: every declarative fact about a kernel kind lives in
// its KindSpec below (options, names, ops, and the tuning facts: its
// catalog configs, its sm_90a space list where it has its own, its sm_90a
// no-tune rule), and packages look kinds up here instead of switching on
// them. Behaviour a higher package owns (a parameter table,
// a sm_90a/sm_100a view, a float64 reference, a cost) stays there in one
// map keyed by Kernel, with a test that every registered kind has an
// entry. Adding a kind: its constant and KindSpec here, then the entries
// listed in docs/DESIGN.md#adding-a-kind. tests/kinds_test.go fails when
// a package outside the allowed files names a kind constant.

// Kernel is a kernel kind of the catalog (docs/DESIGN.md#kernel-catalog).
type Kernel string

// The kernel kinds.
const (
	KernelBwdDSwiGLU Kernel = "bwd_dswiglu" // dout = dy @ W_down^T, dSwiGLU epilogue
	KernelFwdGateUp  Kernel = "fwd_gateup"  // de = x @ W, SwiGLU epilogue
	KernelFwdDown    Kernel = "fwd_down"    // y = out @ W_down (+ residual)
	KernelGEMM       Kernel = "gemm"        // plain C = A @ B
	// KernelMoEFwdGateUp is fwd_gateup over experts (tokens sorted by
	// expert, weights stacked [E,2I,K], device-side cumulative offsets),
	// on the grouped scheduler (docs/DESIGN.md#tile-scheduler).
	KernelMoEFwdGateUp Kernel = "moe_fwd_gateup"
	// KernelMoEBwdDSwiGLU is bwd_dswiglu over experts (tokens sorted by
	// expert, W_down stacked [E,K,I], device-side cumulative offsets), on
	// the grouped scheduler: grad_de, and with StoreOut the recomputed out
	// for dW_down.
	KernelMoEBwdDSwiGLU Kernel = "moe_bwd_dswiglu"
	// KernelMoEGEMM is the plain GEMM over experts, M-grouped: the rows of
	// expert e of C [T,N] are A [rows of e, K] @ B[e], with B stacked
	// [E,N,K] (K-major) or [E,K,N] (MN-major) and read through a 3-D map
	// whose outer coordinate is the expert; the MoE layer's down projection.
	KernelMoEGEMM Kernel = "moe_gemm"
	// KernelMoEWgrad is the plain GEMM over experts, K-grouped: the weight
	// gradient dW[e] [N,K] = A[rows of e]^T @ B[rows of e] with A [T,N]
	// and B [T,K] sorted by expert, reduced over each expert's ragged
	// token range (both operands MN-major); dW [E,N,K] is the layout of
	// the weights it is the gradient of (nn.Linear(K,N).weight per expert).
	KernelMoEWgrad Kernel = "moe_wgrad"
)

// KindSpec is one kernel kind's declarative facts.
type KindSpec struct {
	Kernel Kernel
	// shape is how the kind reads a positional --shape and names its sizes.
	shape shapeForm
	// Options legal for the kind: the per-kind fields of Config.
	StoreOut    bool // a second output to store (Config.StoreOut)
	FastSigmoid bool // the tanh sigmoid (Config.FastSigmoid)
	EpiPipe     bool // the pipelined epilogue (Config.EpiPipe)
	Residual    bool // a residual add (Config.Residual)
	Overlap     bool // the sm_90a overlap schedule
	WideAcc     bool // sm_90a pingpong above 128 accumulators per thread
	NarrowEpi   bool // sm_90a 64x32 epilogue sub-tiles (Config.EpiN)
	Score       bool // a per-row router score (Config.Score, grouped kinds)
	// Paired reports whether a tile's B rows are two halves of the
	// weight, [left | gate] (TileN/2 each).
	Paired bool
	// NName is the name of the GEMM's N among the kind's sizes.
	NName string
	// RaggedEpi reports whether the sm_90a epilogue stores a narrower last
	// sub-tile (TileN not a multiple of EpiN, one CTA per cluster).
	RaggedEpi bool
	// Plain marks the plain GEMM: the unfused paths' GEMM, the kind
	// `swigen bench gemm` times. Exactly one kind has it.
	Plain bool
	// MajorA reports whether the A operand may be MN-major (else k only).
	MajorA bool
	// UnfusedN is the unfused path's GEMM N in units of I (1 for dout
	// [M,I], 2 for de [M,2I]); 0 means the kind has no unfused path.
	UnfusedN int
	// UnfusedIntoOutput reports whether, with StoreOut, the unfused GEMM
	// writes straight into a stored output (fwd_gateup's de), so the
	// path needs no intermediate.
	UnfusedIntoOutput bool
	// EpiTensors and EpiTensorsStoreOut are the EpiM x EpiN buffers of
	// one epilogue slot without and with StoreOut (Config.EpiTensors; 0
	// means 1).
	EpiTensors, EpiTensorsStoreOut int
	// Elementwise names the elementwise kernel of the kind's unfused path
	// and baseline ("dswiglu" or "swiglu"), "" for none.
	Elementwise string
	// Baseline is what tune times the kind against, in words.
	Baseline string
	// ModeDefault and ModeStoreOut say what the kind's kernels store
	// without and with StoreOut ("" where the mode needs no word).
	ModeDefault, ModeStoreOut string
	// GoName prefixes the kind's Go launcher types and names its
	// dispatcher; GoArgs is its argument type (an alias of runtime/launch's
	// type of the same name). GoOrder is its place in the bindings (the
	// MLP's data flow, then the backward).
	GoName, GoArgs string
	GoOrder        int
	// Ops are the kind's PyTorch op variants (OpVariant; Kernel is filled
	// in by OpVariants).
	Ops []OpVariant
	// ScoreOps (kinds with Score) are the ops that launch the kind's
	// _score kernels (Config.Score): each an op variant of Ops with the
	// router score an input more (and the backward's partials an output
	// more). Not in OpVariants: no wheel selection names a _score config
	// (emit --score builds them); ScoreOpVariants lists them.
	ScoreOps []OpVariant
	// Benched is the positional word `swigen bench` times the kind under,
	// or "" when bench bwd/gateup does not time it.
	Benched string
	// Tunable reports whether `swigen tune` can measure the kind.
	Tunable bool
	// Decode marks an inference kind that runs at decode-sized M: its
	// sm_90a space also holds the stream-K 64-row tiles (decodeSK).
	Decode bool
	// Grouped marks a mixture-of-experts kind: tokens sorted by expert,
	// weights stacked with a leading expert dimension, per-expert token
	// counts as device-side cumulative offsets, tiles walked by the grouped
	// scheduler. Grouped kinds are not in Kernels (the catalog) yet; their
	// tuning space is groupedCands (sm90Cands) and emit --kernel takes the
	// heuristic's config, any other is taken by name.
	Grouped bool
	// ExpertsAlongK (grouped kinds): the experts' weights are stacked along
	// the GEMM's K (moe_bwd_dswiglu's W_down [E,K,I]), read through a 3-D
	// map whose outer coordinate is the expert, so a ragged K zero-fills
	// inside the expert; otherwise they are stacked along N (rows of a 2-D
	// map, e*rows + n).
	ExpertsAlongK bool
	// catalog is the kind's configs in the catalog CI compiles (Catalog);
	// the grouped kinds have none yet.
	catalog []catalogEntry
	// sm90Cands, when set, is the kind's own sm_90a tuning-space list
	// (ownSpace), in place of the enumeration of tiles (legalSpace).
	sm90Cands []spaceCand
	// sm90Rule turns the sm_90a rule config (ping-pong 128x128, cluster
	// 1x1, the default tile order, StoreOut as asked) into the kind's
	// no-tune default for a shape's facts (ruleConfig); nil keeps it. It
	// may only set fields: a call to spec or WithDefaults would make the
	// registry's initialization loop.
	sm90Rule func(c Config, f RuleFacts) Config
	// ExpertMapB (grouped kinds): B is read through a 3-D map whose outer
	// coordinate is the expert in either major (moe_gemm's B [E,N,K] or
	// [E,K,N]), so a ragged N or K zero-fills inside the expert.
	// ExpertsAlongK implies the same map for its one major.
	ExpertMapB bool
	// KGrouped (grouped kinds): the experts are groups of the GEMM's K,
	// the tokens: every expert owns a whole output, its k-blocks are its
	// ragged token range (the K-grouped walk,
	// sched_kgrouped_sm90a.sched.tmpl), and an expert with no tokens
	// still writes its zero output.
	KGrouped bool
	// WheelHold, when set, is why swigen wheel leaves the kind out unless
	// --kernel names it: its kernels have not run on a GPU, and a wheel's
	// kernels are what its ops take by default.
	WheelHold string
	// Family is the template family whose partials the kind's templates
	// and the skeletons pick (gen/view's Kind switches): "bwd" (the
	// dSwiGLU epilogue), "gateup" (SwiGLU over paired B halves), "down"
	// (y, with an optional residual) or "gemm" (the plain store).
	Family string
	// GoOperands, GoStoreOut, GoNoStoreOut and GoResidual are the kind's
	// calling convention in words, for its launcher docs (gen/gobind):
	// how its operands are stored, then what StoreOut (set or not) and
	// Residual ask of the caller ("" where there is nothing to say).
	GoOperands                           []OperandDoc
	GoStoreOut, GoNoStoreOut, GoResidual string
}

// kinds is the registry, in catalog order (the first is the default).
// A new kind is one more entry; docs/DESIGN.md#adding-a-kind lists the
// implementation maps it also needs.
var kinds = []KindSpec{
	{
		Kernel: KernelBwdDSwiGLU, shape: mlpShapeForm, NName: "I",
		Family:     "bwd",
		GoOperands: []OperandDoc{{Name: "W_down", K: "[I,K]", MN: "[K,I]"}},
		GoStoreOut: "also stores out (BwdArgs.Out required)",

		StoreOut: true, FastSigmoid: true, EpiPipe: true, Overlap: true, WideAcc: true, NarrowEpi: true,
		EpiTensors: 2, EpiTensorsStoreOut: 3,
		UnfusedN: 1, Elementwise: "dswiglu", Baseline: "cuBLAS GEMM + elementwise",
		ModeStoreOut: "the recomputed out also stored (--store-out)",
		GoName:       "BwdDswiglu", GoArgs: "BwdArgs", GoOrder: 3,
		Ops: []OpVariant{
			{Op: "bwd_dswiglu", Inputs: []string{"dy", "W_down", "de"}, Outputs: []string{"grad_de"}},
			// SwiGLUMLP's backward: W_down [K, I] (nn.Linear's layout) is the
			// MN-major B of dout = dy @ W_down, so no call transposes it.
			{Name: "out", StoreOut: true, MajorB: MNMajor, Marker: "out",
				Op: "bwd_dswiglu_out", Inputs: []string{"dy", "W_down", "de"}, Outputs: []string{"grad_de", "out"}},
		},
		Benched: "bwd", Tunable: true,
		sm90Rule: bwdRule,
		catalog: []catalogEntry{
			// sm_90a: the heuristic's tile first (128x192), then 128x128,
			// its pick for small shapes (here with W_down [K,I]) and with out
			// stored. Clusters measured slower, so every entry is 1x1.
			{a: ArchSM90a, s: PingPong, m: 128, n: 192, cm: 1, cn: 1, fp16: true},
			{a: ArchSM90a, s: PingPong, m: 128, n: 128, cm: 1, cn: 1, majorB: MNMajor, fp16: true},
			{a: ArchSM90a, s: PingPong, m: 128, n: 128, cm: 1, cn: 1, storeOut: true},
			{a: ArchSM90a, s: Cooperative, m: 128, n: 256, cm: 1, cn: 1, fp16: true},
			{a: ArchSM90a, s: Cooperative, m: 256, n: 128, cm: 1, cn: 1, majorB: MNMajor},
			// The overlap schedule (ping-pong 128x192 beats it:
			// docs/PERFORMANCE.md#schedule-overlap).
			{a: ArchSM90a, s: Overlap, m: 128, n: 192, cm: 1, cn: 1, fp16: true},
			// sm_100a.
			{a: ArchSM100a, s: OneCTA, m: 128, n: 256, cm: 1, cn: 1, fp16: true},
			{a: ArchSM100a, s: OneCTA, m: 128, n: 128, cm: 1, cn: 2, scheduler: CLCScheduler},
			{a: ArchSM100a, s: OneCTA, m: 128, n: 128, cm: 2, cn: 1, storeOut: true},
			{a: ArchSM100a, s: TwoCTA, m: 256, n: 256, cm: 2, cn: 1, fp16: true},
			{a: ArchSM100a, s: TwoCTA, m: 256, n: 256, cm: 2, cn: 1, majorB: MNMajor, scheduler: CLCScheduler, fp16: true},
		},
	},
	{
		Kernel: KernelFwdGateUp, shape: mlpShapeForm, NName: "I",
		Family:       "gateup",
		GoOperands:   []OperandDoc{{Name: "W", K: "[2I,K]", MN: "[K,2I]"}},
		GoStoreOut:   "training: also stores de (FwdGateUpArgs.De required)",
		GoNoStoreOut: "inference: FwdGateUpArgs.De unused",

		StoreOut: true, Paired: true,
		EpiTensors: 1, EpiTensorsStoreOut: 3,
		UnfusedN: 2, UnfusedIntoOutput: true, Elementwise: "swiglu", Baseline: "cuBLAS GEMM + SwiGLU elementwise",
		ModeDefault:  "inference: only out stored (--store-out for training)",
		ModeStoreOut: "training: de and out stored (--store-out)",
		GoName:       "FwdGateUp", GoArgs: "FwdGateUpArgs", GoOrder: 1,
		Ops: []OpVariant{
			{Op: "fwd_gateup", Inputs: []string{"x", "W"}, Outputs: []string{"out"}},
			{Name: "train", StoreOut: true, Marker: "de",
				Op: "fwd_gateup_train", Inputs: []string{"x", "W"}, Outputs: []string{"out", "de"}},
		},
		Benched: "gateup", Tunable: true, Decode: true,
		sm90Rule: gateUpRule,
		catalog: []catalogEntry{
			// sm_90a: training (de stored) and inference with W stored
			// [K,2I].
			{a: ArchSM90a, s: PingPong, m: 128, n: 128, cm: 1, cn: 1, storeOut: true, fp16: true},
			{a: ArchSM90a, s: Cooperative, m: 256, n: 128, cm: 1, cn: 1, majorB: MNMajor},
			// sm_100a: training with both B halves in one CTA, and inference
			// with W [K,2I] on the pair (each CTA loads one half).
			{a: ArchSM100a, s: OneCTA, m: 128, n: 256, cm: 1, cn: 1, storeOut: true},
			{a: ArchSM100a, s: TwoCTA, m: 256, n: 256, cm: 2, cn: 1, majorB: MNMajor},
		},
	},
	{
		Kernel: KernelFwdDown, shape: mlpShapeForm, NName: "N",
		Family:     "down",
		GoOperands: []OperandDoc{{Name: "W_down", K: "[K,I]", MN: "[I,K]"}},
		GoResidual: "adds a residual (FwdDownArgs.Residual required)",

		Residual: true, Decode: true,
		Baseline: "cuBLAS GEMM + elementwise",
		GoName:   "FwdDown", GoArgs: "FwdDownArgs", GoOrder: 2,
		Ops: []OpVariant{
			{Op: "fwd_down", Inputs: []string{"out", "W_down"}, Outputs: []string{"y"}},
			{Name: "residual", Residual: true, Marker: "residual",
				Op: "fwd_down_residual", Inputs: []string{"out", "W_down", "residual"}, Outputs: []string{"y"}},
		},
		sm90Rule: cooperativeWideRule,
		catalog: []catalogEntry{
			// sm_90a: with a residual and W_down [I,K] (MN-major for this
			// GEMM), and plain with W_down [K,I].
			{a: ArchSM90a, s: PingPong, m: 128, n: 128, cm: 1, cn: 1, majorB: MNMajor, residual: true, fp16: true},
			{a: ArchSM90a, s: Cooperative, m: 128, n: 256, cm: 1, cn: 1},
			// sm_100a: residual with W_down [I,K] on a 1x2 cluster with CLC,
			// and plain on the pair.
			{a: ArchSM100a, s: OneCTA, m: 128, n: 128, cm: 1, cn: 2, majorB: MNMajor, residual: true, scheduler: CLCScheduler},
			{a: ArchSM100a, s: TwoCTA, m: 256, n: 256, cm: 2, cn: 1},
		},
	},
	{
		Kernel: KernelGEMM, shape: gemmShapeForm, NName: "N",
		Family:     "gemm",
		GoOperands: []OperandDoc{{Name: "A", K: "[M,K]", MN: "[K,M]", A: true}, {Name: "B", K: "[N,K]", MN: "[K,N]"}},

		MajorA: true, RaggedEpi: true, Plain: true,
		Baseline: "cuBLAS GEMM on the same layouts",
		GoName:   "Gemm", GoArgs: "GemmArgs", GoOrder: 0,
		Ops:       []OpVariant{{Op: "gemm", Inputs: []string{"A", "B"}, Outputs: []string{"C"}}},
		Tunable:   true,
		sm90Cands: gemmCands, sm90Rule: cooperativeWideRule,
		catalog: []catalogEntry{
			// sm_90a: the plain default, and the weight-gradient layout
			// (dW = x^T @ grad_de: both operands MN-major).
			{a: ArchSM90a, s: PingPong, m: 128, n: 128, cm: 1, cn: 1, fp16: true},
			{a: ArchSM90a, s: Cooperative, m: 128, n: 256, cm: 1, cn: 1, majorA: MNMajor, majorB: MNMajor},
			// sm_100a: the plain default, and the weight-gradient layout
			// (both operands MN-major: the transpose-A and -B bits) on the
			// CTA pair with CLC.
			{a: ArchSM100a, s: OneCTA, m: 128, n: 256, cm: 1, cn: 1},
			{a: ArchSM100a, s: TwoCTA, m: 256, n: 256, cm: 2, cn: 1, majorA: MNMajor, majorB: MNMajor, scheduler: CLCScheduler},
		},
	},
	{
		Kernel: KernelMoEFwdGateUp, shape: mlpShapeForm, NName: "I",
		Family:       "gateup",
		GoOperands:   []OperandDoc{{Name: "W", K: "[E,2I,K]"}},
		GoStoreOut:   "training: out and de (MoEFwdGateUpArgs.De required)",
		GoNoStoreOut: "inference: out",

		StoreOut: true, Score: true, Paired: true, EpiTensors: 1, EpiTensorsStoreOut: 3,
		Baseline:    "a per-expert loop of cuBLAS GEMMs + SwiGLU (bench/moe_perf.py)",
		ModeDefault: "inference: only out stored",
		GoName:      "MoEFwdGateUp", GoArgs: "MoEFwdGateUpArgs", GoOrder: 4,
		// swigen_rt.moe's ops, not swigen_rt.ops': offs [E] (int32) is a
		// device pointer the kernel reads, not a tensor map.
		Ops: []OpVariant{
			{Op: "moe_gateup", Inputs: []string{"x", "W", "offs"}, Outputs: []string{"out"}},
			{Name: "train", StoreOut: true, Marker: "de",
				Op: "moe_gateup_train", Inputs: []string{"x", "W", "offs"}, Outputs: []string{"out", "de"}},
		},
		// swigen::moe_gateup and moe_gateup_train with a score launch these.
		ScoreOps: []OpVariant{
			{Op: "moe_gateup_score", Inputs: []string{"x", "W", "offs", "score"}, Outputs: []string{"out"}, F32: []string{"score"}},
			{Name: "train", StoreOut: true, Marker: "de", Op: "moe_gateup_train_score",
				Inputs: []string{"x", "W", "offs", "score"}, Outputs: []string{"out", "de"}, F32: []string{"score"}},
		},
		Grouped: true, ModeStoreOut: "training: de and out stored (_out)",
		Tunable: true, sm90Cands: groupedCands,
	},
	{
		Kernel: KernelMoEBwdDSwiGLU, shape: mlpShapeForm, NName: "I",
		Family:     "bwd",
		GoOperands: []OperandDoc{{Name: "W_down", K: "[E,K,I]"}},
		GoStoreOut: "also stores out (MoEBwdArgs.Out required)",

		StoreOut: true, FastSigmoid: true, Score: true,
		EpiTensors: 2, EpiTensorsStoreOut: 3,
		Baseline:     "a per-expert loop of cuBLAS GEMMs + dSwiGLU (bench/moe_perf.py)",
		ModeStoreOut: "the recomputed out also stored (for dW_down)",
		GoName:       "MoEBwdDswiglu", GoArgs: "MoEBwdArgs", GoOrder: 5,
		// SwiGLUExperts' backward: W_down [E,H,I] (nn.Linear's layout per
		// expert) is the MN-major B of dout = dy @ W_down[e].
		Ops: []OpVariant{{Name: "out", StoreOut: true, MajorB: MNMajor, Marker: "out",
			Op: "moe_dswiglu_out", Inputs: []string{"dy", "W_down", "de", "offs"}, Outputs: []string{"grad_de", "out"}}},
		// dscore_part [T, cdiv(I,TileN)]: the caller sums each row's
		// partials in column order into dscore.
		ScoreOps: []OpVariant{{Name: "out", StoreOut: true, MajorB: MNMajor, Marker: "out", Op: "moe_dswiglu_out_score",
			Inputs: []string{"dy", "W_down", "de", "offs", "score"}, Outputs: []string{"grad_de", "out", "dscore_part"},
			F32: []string{"score", "dscore_part"}}},
		Grouped: true, ExpertsAlongK: true,
		Tunable: true, sm90Cands: groupedCands,
	},
	{
		Kernel: KernelMoEGEMM, shape: gemmShapeForm, NName: "N",
		Family:     "gemm",
		GoOperands: []OperandDoc{{Name: "B", K: "[E,N,K]", MN: "[E,K,N]"}},

		Baseline: "torch._grouped_mm or a per-expert loop of cuBLAS GEMMs",
		GoName:   "MoEGemm", GoArgs: "MoEGemmArgs", GoOrder: 6,
		// SwiGLUExperts' down projection y = out @ W_down[e]^T: W_down
		// [E,H,I] (nn.Linear's layout per expert) is the K-major B.
		Ops:     []OpVariant{{Op: "moe_down", Inputs: []string{"A", "B", "offs"}, Outputs: []string{"C"}}},
		Grouped: true, ExpertMapB: true,
		Tunable: true, sm90Cands: groupedCands,
	},
	{
		// The GEMM's M, N and K are the sizes N, K and T: dW [E,N,K] =
		// per expert A^T @ B over its tokens, A [T,N] and B [T,K].
		Kernel: KernelMoEWgrad, shape: gemmShapeForm, NName: "N",
		Family:     "gemm",
		GoOperands: []OperandDoc{{Name: "A", MN: "[T,N]", A: true}, {Name: "B", MN: "[T,K]"}, {Name: "dW", K: "[E,N,K]"}},

		MajorA:   true,
		Baseline: "a per-expert loop of cuBLAS GEMMs (torch.mm of each expert's rows)",
		GoName:   "MoEWgrad", GoArgs: "MoEWgradArgs", GoOrder: 7,
		// SwiGLUExperts' weight gradients: dW_down = per expert dy^T @ out,
		// dW = grad_de^T @ x, each in its weight's layout.
		// B [T,K] is MN-major, as A is (the gate takes no other major).
		Ops:      []OpVariant{{Op: "moe_wgrad", MajorB: MNMajor, Inputs: []string{"A", "B", "offs"}, Outputs: []string{"dW"}}},
		sm90Rule: wgradRule,
		Grouped:  true, KGrouped: true,
		WheelHold: "its kernels have not run on a GPU yet (compile, SASS and protocol checks only; bench/moe_check.sh wgrad is the run)",
	},
}

// Kinds returns the registry's specs in catalog order.
func Kinds() []KindSpec { return append([]KindSpec(nil), kinds...) }

// KindOf returns kind k's spec; ok is false for an unregistered kind.
func KindOf(k Kernel) (spec KindSpec, ok bool) {
	for _, s := range kinds {
		if s.Kernel == k {
			return s, true
		}
	}
	return KindSpec{}, false
}

// DefaultKernel is the kind commands act on without --kernel: the first
// of the catalog.
func DefaultKernel() Kernel { return kinds[0].Kernel }

// PlainGEMM is the plain GEMM kind (KindSpec.Plain).
func PlainGEMM() Kernel { return kindsWith(func(s KindSpec) bool { return s.Plain })[0] }

// Kernels returns the catalog's kernel kinds (every kind but the grouped
// ones), in catalog order.
func Kernels() []Kernel { return kindsWith(func(s KindSpec) bool { return !s.Grouped }) }

// AllKernels returns every kind a config may have: Kernels, then the
// grouped kinds.
func AllKernels() []Kernel { return append(Kernels(), GroupedKernels()...) }

// GroupedKernels returns the grouped kinds (KindSpec.Grouped).
func GroupedKernels() []Kernel { return kindsWith(func(s KindSpec) bool { return s.Grouped }) }

// Mode says what k's kernels store with and without StoreOut, in words
// (ModeStoreOut or ModeDefault), "" where the mode needs no word.
func (k Kernel) Mode(storeOut bool) string {
	if storeOut {
		return spec(k).ModeStoreOut
	}
	return spec(k).ModeDefault
}

// Grouped reports whether k is a grouped (mixture-of-experts) kind.
func (k Kernel) Grouped() bool { return spec(k).Grouped }

// WheelHold is why swigen wheel leaves k out unless --kernel names it, or
// "" (KindSpec.WheelHold).
func (k Kernel) WheelHold() string { return spec(k).WheelHold }

// kindsWith returns the kinds whose spec satisfies has, in catalog order.
func kindsWith(has func(KindSpec) bool) []Kernel {
	var ks []Kernel
	for _, s := range kinds {
		if has(s) {
			ks = append(ks, s.Kernel)
		}
	}
	return ks
}

// UnfusedKinds returns the kinds with an unfused path.
func UnfusedKinds() []Kernel { return kindsWith(func(s KindSpec) bool { return s.UnfusedN > 0 }) }

// BenchedKinds returns the kinds bench bwd/gateup times.
func BenchedKinds() []Kernel { return kindsWith(func(s KindSpec) bool { return s.Benched != "" }) }

// TunableKinds returns the kinds tune measures.
func TunableKinds() []Kernel { return kindsWith(func(s KindSpec) bool { return s.Tunable }) }

// spec is KindOf without the ok: the zero spec (no options legal) for an
// unregistered kind, which validation reports separately.
func spec(k Kernel) KindSpec {
	s, _ := KindOf(k)
	return s
}

// Words lists kinds in prose: "a", "a and b", "a, b and c".
func Words(ks []Kernel) string {
	s := ""
	for i, k := range ks {
		switch {
		case i == 0:
		case i == len(ks)-1:
			s += " and "
		default:
			s += ", "
		}
		s += string(k)
	}
	return s
}

// OperandDoc is how one operand of a kind is stored, for its launcher
// docs: its shape K-major and MN-major; where one is "" the kind's docs
// say the other for either major. A marks the A operand (its major is
// Config.MajorA; B's is Config.MajorB).
type OperandDoc struct {
	Name, K, MN string
	A           bool
}
