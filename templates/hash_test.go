package templates

import (
	"regexp"
	"testing"
)

func TestHash(t *testing.T) {
	t.Parallel()
	h1, err := Hash()
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := Hash()
	if h1 != h2 || !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(h1) {
		t.Errorf("Hash = %q then %q; want one stable sha256", h1, h2)
	}
}
