package manifest

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swigen/swigen/tiling"
)

// New builds the manifest of k's kernel; tiling.Check decided k's
// legality, so New re-derives no rule.
func New(k tiling.Checked) (Manifest, error) {
	cfg := k.Config()
	boxes, err := BoxesOf(cfg)
	if err != nil {
		return Manifest{}, err
	}
	t, err := kindTable(cfg, boxes)
	if err != nil {
		return Manifest{}, err
	}
	dt, err := cfg.DType.Spec()
	if err != nil {
		return Manifest{}, fmt.Errorf("manifest: %s: %w", cfg.Name(), err)
	}
	hash, err := ConfigHash(cfg)
	if err != nil {
		return Manifest{}, err
	}
	maxCTAs, err := maxCTAsPerSM(cfg)
	if err != nil {
		return Manifest{}, err
	}
	return Manifest{
		Version:          Version,
		Name:             cfg.Name(),
		Entry:            cfg.Name(),
		Kernel:           cfg.Kernel,
		Arch:             cfg.Arch,
		Config:           cfg,
		ConfigHash:       hash,
		BlockThreads:     cfg.Threads(),
		ClusterDims:      [3]int{cfg.ClusterM * cfg.ClusterN, 1, 1}, // 1-D grid: a cluster is consecutive CTAs along x
		DynamicSmemBytes: cfg.SmemBytes(),
		MaxCTAsPerSM:     maxCTAs,
		Sizes:            t.sizes,
		Buffers:          t.buffers(),
		Params:           append(t.params(DType(dt.TMA), dt.Bytes), schedulerParams(cfg)...),
		ShapeRules:       append(t.rules, schedulerRules(cfg, t)...),
		Grid:             Grid{Tiles: t.tiles, CTAsPerTile: cfg.CTAsPerTile(), Scheduler: schedulerOf(cfg)},
		Boxes:            boxes,
	}, nil
}

// maxCTAsPerSM is how many CTAs of cfg tensor memory holds allocations for
// (0 for a kernel that allocates none).
func maxCTAsPerSM(cfg tiling.Config) (int, error) {
	lim, err := tiling.LimitsFor(cfg.Arch)
	if err != nil {
		return 0, err
	}
	cols := cfg.TMEMColumns()
	if cols <= 0 || lim.TMEMColumns <= 0 {
		return 0, nil
	}
	return lim.TMEMColumns / cols, nil
}

// ConfigHash identifies cfg: the first 8 bytes of the sha256 of its JSON,
// in hex.
func ConfigHash(cfg tiling.Config) (string, error) {
	b, err := json.Marshal(cfg)
	if err != nil {
		return "", fmt.Errorf("manifest: %s: marshal config: %w", cfg.Name(), err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8]), nil
}

func schedulerOf(cfg tiling.Config) Scheduler {
	switch cfg.Scheduler {
	case tiling.CLCScheduler:
		return SchedulerCLC
	case tiling.StreamKScheduler:
		return SchedulerStreamK
	}
	return SchedulerStatic
}

// schedulerRules are the shape rules cfg's tile scheduler adds: stream-K's
// work list takes at most tiling.StreamKMaxKBlocks k-blocks per tile (the
// reduction is the size the kernel's K parameter holds).
func schedulerRules(cfg tiling.Config, t table) []Rule {
	if cfg.Scheduler != tiling.StreamKScheduler {
		return nil
	}
	red := Expr("K")
	for _, s := range t.scalars {
		if s.param == "K" {
			red = s.value
		}
	}
	return []Rule{{Size: Expr(fmt.Sprintf("%d-cdiv(%s,%d)", tiling.StreamKMaxKBlocks+1, red, cfg.TileK)), Min: 1,
		Message: fmt.Sprintf("stream-K takes at most %d k-blocks of %d (%s <= %d): its work list is 32-bit", tiling.StreamKMaxKBlocks, cfg.TileK, red, tiling.StreamKMaxKBlocks*cfg.TileK)}}
}

// schedulerParams are the parameters cfg's tile scheduler adds after the
// kind's: stream-K's workspace (flags and the epoch header, then a
// partial-accumulator slot per CTA: tiling.StreamKWorkspace).
func schedulerParams(cfg tiling.Config) []Param {
	if cfg.Scheduler != tiling.StreamKScheduler {
		return nil
	}
	_, slot, _ := tiling.StreamKWorkspace(1, cfg.TileM, cfg.TileN)
	return []Param{{Name: "workspace", Kind: KindWorkspace, Size: 8, Align: 8,
		Doc: fmt.Sprintf("stream-K: a u32 flag per consumer part and CTA and the epoch header, then a %dx%d fp32 partial accumulator per CTA", cfg.TileM, cfg.TileN),
		Workspace: &Workspace{
			Bytes: Expr(fmt.Sprintf("cdiv(%s*%d+%d,128)*128+%s*%d", GridSymbol, tiling.StreamKFlagBytes, tiling.StreamKHeaderBytes,
				GridSymbol, slot)),
			Align:     256,
			ZeroBytes: Expr(fmt.Sprintf("%s*%d+%d", GridSymbol, tiling.StreamKFlagBytes, tiling.StreamKHeaderBytes)),
		}}}
}

// ParamLayout is the launch-relevant part of a parameter list, as one
// line: name:kind:size/align per parameter, in order. Docs are left out:
// they do not change how a launch packs its arguments.
func ParamLayout(ps []Param) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s:%s:%d/%d", p.Name, p.Kind, p.Size, p.Align)
	}
	return strings.Join(parts, ", ")
}

// ProbedName is the kernel name of cfg instrumented with the probe called
// probe, the manifest's Name and Entry for that build; with no probe ("")
// it is the product kernel's, cfg.Name().
func ProbedName(cfg tiling.Config, probe string) string {
	if probe == "" {
		return cfg.Name()
	}
	return cfg.Name() + "_probe_" + probe
}
