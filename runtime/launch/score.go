package launch

import (
	"fmt"

	"github.com/swigen/swigen/manifest"
)

// ScorePartBuffer is the manifest buffer in which a grouped backward with
// a router score (tiling.Config.Score) writes the score's gradient as
// per-tile row partials, [T, cols] fp32.
const ScorePartBuffer = "dscore_part"

// ScorePartCols is the column count of man's dscore_part buffer at sizes
// (one column per n-block of I). It fails for a kernel without the
// buffer, naming the kernel.
func ScorePartCols(man *manifest.Manifest, sizes manifest.Sizes) (int, error) {
	for _, b := range man.Buffers {
		if b.Name != ScorePartBuffer {
			continue
		}
		if len(b.Shape) != 2 {
			return 0, fmt.Errorf("launch: %s: buffer %s has shape %v, want [T, cols]", man.Name, b.Name, b.Shape)
		}
		v, err := b.Shape[1].Eval(sizes)
		if err != nil {
			return 0, fmt.Errorf("launch: %s: buffer %s: %w", man.Name, b.Name, err)
		}
		return int(v), nil
	}
	return 0, fmt.Errorf("launch: %s has no %s buffer: only a moe_bwd_dswiglu config with score (_score) writes the score's gradient", man.Name, ScorePartBuffer)
}

// SumScorePartials reduces part, a dscore_part buffer [t, cols] fp32
// (row-major), to dscore [t]: each row's partials added in column order in
// fp32, so the same partials always give the same bits. It fails when part
// does not hold t*cols elements.
func SumScorePartials(part []float32, t, cols int) ([]float32, error) {
	if t < 0 || cols <= 0 || len(part) != t*cols {
		return nil, fmt.Errorf("launch: sum score partials: %d partials for t=%d rows of cols=%d: want t >= 0, cols > 0 and t*cols partials", len(part), t, cols)
	}
	out := make([]float32, t)
	for r := range out {
		s := float32(0)
		for _, v := range part[r*cols : (r+1)*cols] {
			s += v
		}
		out[r] = s
	}
	return out, nil
}
