package toolchain

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/swigen/swigen/internal/readfile"
)

// cacheFormat is mixed into every key; bump it when the entry layout or the
// meaning of a cached field changes so old entries are simply missed (v2:
// reports carry no ptxas compile times).
const cacheFormat = "swigen-build-cache-v2"

// DefaultCacheDir is $SWIGEN_CACHE_DIR, or "swigen" under os.UserCacheDir.
func DefaultCacheDir() (string, error) {
	if d := os.Getenv("SWIGEN_CACHE_DIR"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("build cache dir: %w (set SWIGEN_CACHE_DIR)", err)
	}
	return filepath.Join(d, "swigen"), nil
}

// cacheKey hashes everything that determines the compiler output: the
// toolchain version, the arch, both commands' arguments (tool paths left out,
// so moving a toolchain keeps its cache), the source and the headers of its
// include tree, paths and contents (none for a self-contained unit, whose
// key is then what it was before units had headers). Fields are length
// prefixed so no two inputs can collide by shifting bytes between fields.
func cacheKey(version, arch string, nvccArgs, ptxasArgs []string, src []byte, inc ...includeFile) string {
	h := sha256.New()
	field := func(b []byte) {
		fmt.Fprintf(h, "%d:", len(b))
		h.Write(b)
	}
	field([]byte(cacheFormat))
	field([]byte(version))
	field([]byte(arch))
	for _, args := range [][]string{nvccArgs, ptxasArgs} {
		fmt.Fprintf(h, "%d;", len(args))
		for _, a := range args {
			field([]byte(a))
		}
	}
	field(src)
	if len(inc) > 0 {
		fmt.Fprintf(h, "%d;", len(inc))
		for _, f := range inc {
			field([]byte(f.Path))
			field(f.Data)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// buildCache is a directory of entries <stem>-<key[:16]>/ holding
// kernel.cubin, kernel.ptx and build.json. An entry is written into a
// ".tmp-*" sibling and renamed into place, so readers see all of it or none.
type buildCache struct {
	dir string
}

const (
	cacheCubinFile = "kernel.cubin"
	cachePTXFile   = "kernel.ptx"
	cacheMetaFile  = "build.json"
	cacheTmpPrefix = ".tmp-"
	// staleTmpAge is how old an abandoned ".tmp-*" directory (a writer that
	// crashed) must be before a later store removes it.
	staleTmpAge = 24 * time.Hour
)

// cacheMeta is build.json. The full key and the cubin hash let load reject
// a truncated-prefix collision or a damaged file.
type cacheMeta struct {
	Format    string      `json:"format"`
	Key       string      `json:"key"`
	Name      string      `json:"name"`
	Version   string      `json:"toolchain_version"`
	Argv      []string    `json:"argv"`
	PtxasArgv []string    `json:"ptxas_argv"`
	SHA256    string      `json:"cubin_sha256"`
	Report    BuildReport `json:"report"`
}

func (c *buildCache) entryDir(name, key string) string {
	return filepath.Join(c.dir, fileStem(name)+"-"+key[:16])
}

// load returns the cached result for key, or false when there is none or the
// entry does not verify (then the caller rebuilds and store replaces it).
func (c *buildCache) load(name, key string) (*BuildResult, bool) {
	dir := c.entryDir(name, key)
	mb, err := readfile.Read(filepath.Join(dir, cacheMetaFile), readfile.MaxJSON)
	if err != nil {
		return nil, false
	}
	var m cacheMeta
	if err := json.Unmarshal(mb, &m); err != nil || m.Format != cacheFormat || m.Key != key {
		return nil, false
	}
	cubin, err := readfile.Read(filepath.Join(dir, cacheCubinFile), readfile.MaxArtifact)
	if err != nil {
		return nil, false
	}
	sum := sha256.Sum256(cubin)
	if hex.EncodeToString(sum[:]) != m.SHA256 {
		return nil, false
	}
	ptx, err := readfile.Read(filepath.Join(dir, cachePTXFile), readfile.MaxArtifact)
	if err != nil {
		return nil, false
	}
	return &BuildResult{
		Name:      name,
		Cubin:     cubin,
		PTX:       ptx,
		Report:    m.Report,
		Argv:      m.Argv,
		PtxasArgv: m.PtxasArgv,
		SHA256:    m.SHA256,
	}, true
}

// store publishes r under key. A concurrent writer of the same key may win
// the rename; its entry is equivalent, so that is not an error.
func (c *buildCache) store(name, key, version string, r *BuildResult) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	c.removeStaleTmp()
	tmp, err := os.MkdirTemp(c.dir, cacheTmpPrefix+fileStem(name)+"-")
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	meta, err := json.MarshalIndent(cacheMeta{
		Format: cacheFormat, Key: key, Name: name, Version: version,
		Argv: r.Argv, PtxasArgv: r.PtxasArgv, SHA256: r.SHA256, Report: r.Report,
	}, "", "  ")
	if err != nil {
		return fmt.Errorf("build cache: %w", err)
	}
	for _, f := range []struct {
		name string
		data []byte
	}{{cacheCubinFile, r.Cubin}, {cachePTXFile, r.PTX}, {cacheMetaFile, meta}} {
		if err := writeFileSync(filepath.Join(tmp, f.name), f.data); err != nil {
			return fmt.Errorf("build cache: %w", err)
		}
	}
	dst := c.entryDir(name, key)
	err = os.Rename(tmp, dst)
	if err == nil {
		return nil
	}
	// dst exists: either a concurrent writer's valid entry (keep it) or a
	// damaged one that load rejected (move it aside, then retry once).
	if _, ok := c.load(name, key); ok {
		return nil
	}
	trash := tmp + ".old"
	if rerr := os.Rename(dst, trash); rerr == nil {
		os.RemoveAll(trash)
	}
	if err := os.Rename(tmp, dst); err != nil {
		if _, ok := c.load(name, key); ok {
			return nil
		}
		return fmt.Errorf("build cache: publish %s: %w", dst, err)
	}
	return nil
}

// removeStaleTmp deletes temp directories left by writers that died before
// their rename; young ones may belong to a live writer and are left alone.
func (c *buildCache) removeStaleTmp() {
	ents, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), cacheTmpPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil && time.Since(fi.ModTime()) > staleTmpAge {
			os.RemoveAll(filepath.Join(c.dir, e.Name()))
		}
	}
}

func writeFileSync(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	serr := f.Sync()
	cerr := f.Close()
	return errors.Join(werr, serr, cerr)
}
