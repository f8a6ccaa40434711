package launch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/swigen/swigen/manifest"
	"github.com/swigen/swigen/tiling"
)

// This file is the part of the generated Go bindings that does not need a
// GPU: the generated package calls it at load time, so the checks are
// unit-tested here instead of living untested in generated code.

// Binding is what generated Go bindings know about one embedded kernel:
// the facts baked into the Go code when it was generated, and the files
// embedded next to it. Check compares the two.
type Binding struct {
	Name        string
	Arch        tiling.Arch
	ConfigHash  string // Manifest.ConfigHash at generation time
	ParamLayout string // manifest.ParamLayout(Manifest.Params) at generation time
	// CubinSHA256 is the hex sha256 of the cubin at generation time; empty
	// when the bindings were generated without a CUDA compiler.
	CubinSHA256 string
	Manifest    []byte // the embedded <name>.json
	Cubin       []byte // the embedded <name>.<arch>.cubin; nil without one
}

// HasCubin reports whether the bindings were generated with a cubin.
func (b *Binding) HasCubin() bool { return b.CubinSHA256 != "" }

// Check parses the embedded manifest and checks that it and the embedded
// cubin are the ones the bindings were generated for. A mismatch means the
// files were re-emitted without regenerating the Go code; the error names
// both values.
func (b *Binding) Check() (manifest.Manifest, error) {
	var m manifest.Manifest
	if err := json.Unmarshal(b.Manifest, &m); err != nil {
		return manifest.Manifest{}, fmt.Errorf("%s: embedded manifest: %w", b.Name, err)
	}
	const regen = "the kernel files were re-emitted without regenerating the Go bindings; run swigen emit --go-package again (go generate)"
	switch {
	case m.Name != b.Name:
		return manifest.Manifest{}, fmt.Errorf("%s: embedded manifest is for %q: %s", b.Name, m.Name, regen)
	case m.Arch != b.Arch:
		return manifest.Manifest{}, fmt.Errorf("%s: embedded manifest targets %s, the bindings %s: %s", b.Name, m.Arch, b.Arch, regen)
	case m.ConfigHash != b.ConfigHash:
		return manifest.Manifest{}, fmt.Errorf("%s: stale bindings: embedded manifest has config hash %s, the bindings were generated for %s: %s",
			b.Name, m.ConfigHash, b.ConfigHash, regen)
	}
	if got := manifest.ParamLayout(m.Params); got != b.ParamLayout {
		return manifest.Manifest{}, fmt.Errorf("%s: stale bindings: embedded manifest has parameters %q (config hash %s), the bindings were generated for %q: %s",
			b.Name, got, m.ConfigHash, b.ParamLayout, regen)
	}
	if !b.HasCubin() {
		return manifest.Manifest{}, fmt.Errorf("%s: no cubin embedded: the bindings were generated without a CUDA compiler (sources only); run swigen emit --go-package where nvcc is available", b.Name)
	}
	sum := sha256.Sum256(b.Cubin)
	if got := hex.EncodeToString(sum[:]); got != b.CubinSHA256 {
		return manifest.Manifest{}, fmt.Errorf("%s: stale bindings: embedded cubin has sha256 %s, the bindings were generated for %s: %s",
			b.Name, got, b.CubinSHA256, regen)
	}
	return m, nil
}

// SelectBinding picks, among bs, the binding that runs on the named device
// of compute capability major.minor. The error names the device, its
// capability and the archs embedded.
func SelectBinding(device string, major, minor int, bs []*Binding) (*Binding, error) {
	var embedded []string
	for _, b := range bs {
		if b.HasCubin() {
			embedded = append(embedded, string(b.Arch))
		} else {
			embedded = append(embedded, string(b.Arch)+" (source only, no cubin)")
		}
	}
	have := strings.Join(embedded, ", ")
	if have == "" {
		have = "none"
	}
	arch, ok := tiling.ArchForCC(major, minor)
	if !ok {
		return nil, fmt.Errorf("device %s has compute capability %d.%d: swigen kernels run on 9.0 (sm_90a) or 10.0 (sm_100a); embedded: %s",
			device, major, minor, have)
	}
	for _, b := range bs {
		if b.Arch != arch {
			continue
		}
		if !b.HasCubin() {
			return nil, fmt.Errorf("device %s (compute capability %d.%d) needs %s, whose cubin was not built: the bindings were generated without a CUDA compiler; run swigen emit --go-package where nvcc is available",
				device, major, minor, arch)
		}
		return b, nil
	}
	return nil, fmt.Errorf("no cubin for device %s (compute capability %d.%d, needs %s); embedded: %s; add --arch %s to swigen emit",
		device, major, minor, arch, have, arch)
}
