package tune

import (
	"fmt"
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/swigen/swigen/internal/tty"
)

// TermBar is a round's progress bar on a terminal, above the lines;
// elsewhere (a log file) only the per-candidate lines, which carry the
// ETA themselves.
type TermBar struct {
	w   io.Writer
	bar *progressbar.ProgressBar
}

// NewTermBar is a Bar for n jobs on w (a bar only when w is a terminal).
func NewTermBar(w io.Writer, n int) Bar {
	t := &TermBar{w: w}
	if n > 0 && tty.IsTerminal(w) {
		t.bar = progressbar.NewOptions(n,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription("tuning"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionClearOnFinish())
		t.bar.RenderBlank()
	}
	return t
}

// Line prints s and advances the bar.
func (t *TermBar) Line(s string) {
	if t.bar != nil {
		t.bar.Clear()
	}
	fmt.Fprintln(t.w, s)
	if t.bar != nil {
		t.bar.Add(1)
	}
}

// Finish ends the bar.
func (t *TermBar) Finish() {
	if t.bar != nil {
		t.bar.Finish()
	}
}
