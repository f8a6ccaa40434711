package toolchain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/swigen/swigen/internal/proc"
)

// SASS disassembles a cubin with `cuobjdump -sass`. cuobjdump runs nvdisasm,
// which the pip wheels install as a separate package, so the toolchain's
// nvdisasm directory is put on NVDISASM_PATH and PATH for it.
func (t *Toolchain) SASS(ctx context.Context, cubin []byte) (string, error) {
	if t == nil || t.CUObjdump == "" {
		return "", fmt.Errorf("sass: no cuobjdump next to nvcc (swigen toolchain install; or pip install nvidia-cuda-cuobjdump==%s nvidia-cuda-nvdisasm==%s)", PinnedCUObjdumpVersion, PinnedCUObjdumpVersion)
	}
	if len(cubin) == 0 {
		return "", errors.New("sass: empty cubin")
	}
	dir, err := os.MkdirTemp("", "swigen-sass-")
	if err != nil {
		return "", fmt.Errorf("sass: %w", err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "kernel.cubin")
	if err := os.WriteFile(path, cubin, 0o644); err != nil {
		return "", fmt.Errorf("sass: %w", err)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, t.CUObjdump, "-sass", path)
	proc.Isolate(cmd)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = t.toolEnv()
	err = cmd.Run()
	// cuobjdump prints "cuobjdump fatal : Could not find executable file
	// 'nvdisasm'" yet may still exit 0, so its stderr is checked as well.
	if err != nil || strings.Contains(stderr.String(), "fatal") {
		if ctx.Err() != nil {
			return "", fmt.Errorf("sass: %w", ctx.Err())
		}
		if err == nil {
			err = errors.New("fatal error")
		}
		return "", fmt.Errorf("sass: %s -sass: %w: %s", t.CUObjdump, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// toolEnv is the environment for cuobjdump: NVDISASM_PATH takes a directory.
func (t *Toolchain) toolEnv() []string {
	env := os.Environ()
	if t.NVDisasm == "" {
		return env
	}
	d := filepath.Dir(t.NVDisasm)
	path := d
	if p := os.Getenv("PATH"); p != "" {
		path += string(os.PathListSeparator) + p
	}
	return append(env, "NVDISASM_PATH="+d, "PATH="+path)
}

// sassOpRE matches one SASS instruction line of cuobjdump output, e.g.
// "        /*0150*/  @!P0 BAR.SYNC.DEFER_BLOCKING 0x0 ;", capturing the opcode.
var sassOpRE = regexp.MustCompile(`^\s*/\*[0-9a-f]+\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Za-z0-9_]+)*)`)

// sassOpcodes returns the set of opcodes (with their modifiers, e.g.
// "HGMMA.64x128x16.F32.BF16") in cuobjdump -sass output.
func sassOpcodes(sass string) map[string]bool {
	ops := map[string]bool{}
	for _, line := range strings.Split(sass, "\n") {
		if m := sassOpRE.FindStringSubmatch(line); m != nil {
			ops[m[1]] = true
		}
	}
	return ops
}

// CheckOpcodes reports the wanted opcodes that do not occur in sass. A want
// matches an opcode equal to it or extending it by modifiers: "HGMMA" matches
// "HGMMA.64x128x16.F32.BF16", "SYNCS.EXCH" matches "SYNCS.EXCH.64".
func CheckOpcodes(sass string, want []string) error {
	ops := sassOpcodes(sass)
	var missing []string
	for _, w := range want {
		found := ops[w]
		for op := range ops {
			if found {
				break
			}
			found = strings.HasPrefix(op, w+".")
		}
		if !found {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("check sass: missing opcodes %s (%d distinct opcodes present)", strings.Join(missing, ", "), len(ops))
	}
	return nil
}
