package view

import (
	"strings"
	"testing"

	"github.com/swigen/swigen/manifest"
)

func TestKernelParamsRejectsUnknownKind(t *testing.T) {
	t.Parallel()
	_, err := cParams([]manifest.Param{{Name: "p", Kind: "f64"}})
	if err == nil || !strings.Contains(err.Error(), `parameter p: kind "f64"`) {
		t.Errorf("cParams = %v; want an error naming the parameter and kind", err)
	}
}
