package tune

import (
	"bytes"
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzLoadDB: LoadDB never panics, every error it returns for a file's
// bytes wraps ErrInvalidDB, and what it accepts is a DB the rest of the
// package can use: it is written and loaded again equal, byte for byte.
func FuzzLoadDB(f *testing.F) {
	const (
		key   = `"key":{"kernel":"bwd_dswiglu","arch":"sm_90a","dtype":"bf16","shape":{"M":16384,"K":768,"I":4608},"gpu":"NVIDIA H200","driver":13000,"compiler":"nvcc 13.0.88","templates":"abc123"}`
		ceil  = `"ceilings":{"gemm_tflops":780,"copy_gbs":4255}`
		okRes = `{"config":"` + nameA + `","status":"ok","us":269.4,"p20_us":268,"p80_us":271,"baseline_us":347.5,"rel_err":0.001,"device":0,"wall_s":3.5,"date":"2026-12-01T10:00:01Z"}`
		slow  = `{"config":"` + nameC + `","status":"slow","us":900,"error":"stopped early","device":1}`
	)
	entry := func(k, c, results string) string { return `{` + k + `,` + c + `,"results":[` + results + `]}` }
	db := func(entries ...string) string {
		s := `{"format":"swigen-tune-v1","entries":[`
		for i, e := range entries {
			if i > 0 {
				s += ","
			}
			s += e
		}
		return s + `]}`
	}
	for _, s := range []string{
		db(),
		db(entry(key, ceil, okRes+","+slow)),
		db(entry(key, ceil, `{"config":"`+nameH+`","status":"timeout","device":0}`)),
		`{"format":"swigen-tune-v1","entries":[{"key":{"kernel":"fwd_gateup","arch":"sm_90a","dtype":"bf16","shape":{"M":1,"K":8,"I":8},"store_out":true},"ceilings":{"gemm_tflops":0,"copy_gbs":0},"results":null}]}`,
		`{"format":"swigen-tune-v1","entries":[{"key":{"kernel":"moe_gemm","arch":"sm_90a","dtype":"bf16","shape":{"M":32768,"K":2048,"I":7168},"experts":256,"routing":"zipf"},"ceilings":{"gemm_tflops":0,"copy_gbs":0},"results":null}]}`,
		`{"format":"swigen-tune-v1","entries":[{"key":{"kernel":"moe_gemm","arch":"sm_90a","dtype":"bf16","shape":{"M":32768,"K":2048,"I":7168},"routing":"zipf"},"ceilings":{"gemm_tflops":0,"copy_gbs":0},"results":null}]}`,
		// Rejected: each breaks one rule.
		`{"format":"swigen-tune-v1","entries":[`,
		`{"format":"other","entries":[]}`,
		db(`null`),
		db(entry(key, ceil, `{"config":"`+nameA+`","status":"ok","us":-3}`)),
		db(entry(key, ceil, `{"config":"`+nameA+`","status":"done","us":1}`)),
		db(entry(key, ceil, `{"config":"`+nameA+`","status":"wrong","p80_us":-1}`)),
		db(entry(key, ceil, okRes+","+okRes)),
		db(entry(key, ceil, `{"config":"`+nameGateUp+`","status":"ok","us":1}`)),
		db(entry(`"key":{"kernel":"bwd_dswiglu","arch":"sm_90a","dtype":"bf16","shape":{"M":-5,"K":0,"I":8}}`, ceil, okRes)),
		db(entry(`"key":{"kernel":"bwd_dswiglu","arch":"90a","dtype":"fp8","shape":{"M":1,"K":8,"I":8}}`, ceil, okRes)),
		db(entry(key, `"ceilings":{"gemm_tflops":-1,"copy_gbs":1e999}`, okRes)),
		db(entry(key, ceil, okRes), entry(key, ceil, slow)),
	} {
		f.Add([]byte(s))
	}
	// One directory for every input, and no WriteFile (which syncs): the
	// fuzzer runs each input many times over while minimising it.
	dir := f.TempDir()
	write := func(t *testing.T, b []byte) string {
		fh, err := os.CreateTemp(dir, "db-*.json")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Remove(fh.Name()) })
		_, err = fh.Write(b)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		return fh.Name()
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		path := write(t, b)
		got, err := LoadDB(path)
		if err != nil {
			if !errors.Is(err, ErrInvalidDB) {
				t.Fatalf("LoadDB = %v, which does not wrap ErrInvalidDB", err)
			}
			return
		}
		// What the lookups do with an accepted DB must not panic either.
		for _, e := range got.Entries {
			e.Best()
			e.Provisional()
			e.BaselineUS()
			for _, r := range e.Results {
				e.FloorUS(r.Config)
			}
			got.Lookup(e.Key.Kernel, e.Key.Arch, e.Key.DType, e.Key.Shape, e.Key.StoreOut, e.Key.Templates)
		}
		out, err := got.Marshal()
		if err != nil {
			t.Fatalf("an accepted DB does not encode: %v", err)
		}
		reloaded, err := LoadDB(write(t, out))
		if err != nil {
			t.Fatalf("an accepted DB, written, does not load: %v\n%s", err, out)
		}
		if diff := cmp.Diff(got, reloaded); diff != "" {
			t.Fatalf("round trip (-loaded +reloaded):\n%s", diff)
		}
		if out2, err := reloaded.Marshal(); err != nil || !bytes.Equal(out, out2) {
			t.Fatalf("re-encoding changed the bytes (%v):\n%s\nthen\n%s", err, out, out2)
		}
	})
}
