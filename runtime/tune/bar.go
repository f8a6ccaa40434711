package tune

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
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
	if f, ok := w.(*os.File); ok && n > 0 {
		if st, err := f.Stat(); err == nil && st.Mode()&fs.ModeCharDevice != 0 {
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
