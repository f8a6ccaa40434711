package wheel

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/swigen/swigen/gen"
)

// Dist is the wheel's distribution name (PEP 427: its dashes as
// underscores; pip installs it as swigen-kernels).
const Dist = "swigen_kernels"

// epoch is every member's modification time: the earliest a zip holds,
// so the wheel's bytes do not depend on when it was built.
var epoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// File is one file of the wheel as Wheel.Files lists it.
type File struct {
	Name   string
	Size   int
	SHA256 string // hex
}

// versionOf is the version in files' swigen_kernels/bundle.json header
// (runtimeFiles' version), found by its __init__.py.
func versionOf(files []gen.OutputFile) string {
	for _, f := range files {
		if f.Name == Package+"/__init__.py" {
			for _, l := range strings.Split(string(f.Data), "\n") {
				if v, ok := strings.CutPrefix(l, "__version__ = \""); ok {
					return strings.TrimSuffix(v, "\"")
				}
			}
		}
	}
	return ""
}

// zipWheel is the wheel of files (sorted by name): its file name, bytes
// and listing, with the dist-info (METADATA, WHEEL, top_level.txt and a
// RECORD of every file's sha256) last, as PEP 427 has it.
func zipWheel(files []gen.OutputFile) (string, []byte, []File, error) {
	version := versionOf(files)
	if version == "" {
		return "", nil, nil, fmt.Errorf("wheel: %s/__init__.py has no __version__", Package)
	}
	info := Dist + "-" + version + ".dist-info/"
	files = append(files,
		gen.OutputFile{Name: info + "METADATA", Data: metadata(version)},
		gen.OutputFile{Name: info + "WHEEL", Data: []byte("Wheel-Version: 1.0\nGenerator: swigen wheel\nRoot-Is-Purelib: true\nTag: py3-none-any\n")},
		gen.OutputFile{Name: info + "top_level.txt", Data: []byte("swigen_kernels\nswigen_rt\n")})
	var record strings.Builder
	var listing []File
	for _, f := range files {
		sum := sha256.Sum256(f.Data)
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f.Name, base64.RawURLEncoding.EncodeToString(sum[:]), len(f.Data))
		listing = append(listing, File{Name: f.Name, Size: len(f.Data), SHA256: hex.EncodeToString(sum[:])})
	}
	fmt.Fprintf(&record, "%sRECORD,,\n", info)
	files = append(files, gen.OutputFile{Name: info + "RECORD", Data: []byte(record.String())})
	listing = append(listing, File{Name: info + "RECORD", Size: record.Len()})
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: epoch}
		h.SetMode(0o644)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return "", nil, nil, fmt.Errorf("wheel: zip %s: %w", f.Name, err)
		}
		if _, err := w.Write(f.Data); err != nil {
			return "", nil, nil, fmt.Errorf("wheel: zip %s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return "", nil, nil, fmt.Errorf("wheel: zip: %w", err)
	}
	return Dist + "-" + version + "-py3-none-any.whl", buf.Bytes(), listing, nil
}

// metadata is the wheel's METADATA (core metadata 2.1).
func metadata(version string) []byte {
	return []byte("Metadata-Version: 2.1\nName: swigen-kernels\nVersion: " + version + "\n" +
		"Summary: swigen's prebuilt fused SwiGLU-MLP CUDA kernels and their pure-Python runtime (swigen_rt): torch.ops.swigen and SwiGLUMLP with no compiler\n" +
		"Requires-Python: >=3.9\nProvides-Extra: torch\nRequires-Dist: torch>=2.1; extra == \"torch\"\n")
}
