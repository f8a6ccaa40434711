package tests

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// apache2SHA256 is the sha256 of the Apache License 2.0 as the Apache
// Software Foundation publishes it (www.apache.org/licenses/LICENSE-2.0.txt).
const apache2SHA256 = "cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30"

// TestLicense: LICENSE is the Apache License 2.0 word for word, and the
// README and the Python package's metadata name it.
func TestLicense(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	sum := sha256.Sum256([]byte(read("LICENSE")))
	if got := hex.EncodeToString(sum[:]); got != apache2SHA256 {
		t.Errorf("LICENSE has sha256 %s, not the Apache License 2.0's %s", got, apache2SHA256)
	}
	if r := read("README.md"); !strings.Contains(r, "## License\n\nApache License 2.0: [LICENSE](LICENSE)") {
		t.Error("README.md has no License section naming LICENSE")
	}
	if p := read("python/pyproject.toml"); !strings.Contains(p, `license = {text = "Apache-2.0"}`) {
		t.Error(`python/pyproject.toml's [project] lacks license = {text = "Apache-2.0"}`)
	}
}
