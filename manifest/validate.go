package manifest

import (
	"errors"
	"fmt"
)

// Validate checks that m is self-consistent, so that a loader can trust
// it: every expression parses and uses only the sizes m names, every
// parameter's kind has its payload, and every buffer a parameter names is
// listed. Sizes themselves are checked per launch (CheckSizes).
func (m *Manifest) Validate() error {
	if err := m.wellFormed(); err != nil {
		return fmt.Errorf("manifest: %s: %w", m.Name, err)
	}
	return nil
}

func (m *Manifest) wellFormed() error {
	ones := Sizes{}
	for _, s := range m.Sizes {
		ones[s] = 1
	}
	buffers := map[string]bool{}
	for _, b := range m.Buffers {
		buffers[b.Name] = true
		if err := evalOnes(ones, b.Shape...); err != nil {
			return fmt.Errorf("buffer %s: %w", b.Name, err)
		}
	}
	var errs []error
	for i := range m.Params {
		if want, ok := kindSizes[m.Params[i].Kind]; ok && m.Params[i].Size != want {
			errs = append(errs, fmt.Errorf("parameter %d (%s): size %d: a %s is %d bytes", i, m.Params[i].Name, m.Params[i].Size, m.Params[i].Kind, want))
		}
		if err := m.Params[i].wellFormed(ones, buffers); err != nil {
			errs = append(errs, fmt.Errorf("parameter %d (%s): %w", i, m.Params[i].Name, err))
		}
	}
	for _, r := range m.ShapeRules {
		if err := evalOnes(ones, r.Size); err != nil {
			errs = append(errs, fmt.Errorf("shape rule: %w", err))
		}
	}
	if err := evalOnes(ones, m.Grid.Tiles); err != nil {
		errs = append(errs, fmt.Errorf("grid: %w", err))
	}
	if m.BlockThreads < 1 || m.ClusterDims[0] < 1 || m.ClusterDims[1] < 1 || m.DynamicSmemBytes < 0 {
		errs = append(errs, fmt.Errorf("block %d threads, cluster %v, %d bytes of shared memory: want positive dims", m.BlockThreads, m.ClusterDims, m.DynamicSmemBytes))
	}
	return errors.Join(errs...)
}

func (p *Param) wellFormed(ones Sizes, buffers map[string]bool) error {
	switch p.Kind {
	case KindTensorMap:
		if p.Map == nil {
			return fmt.Errorf("a tensormap without a map")
		}
		if !buffers[p.Map.Buffer] {
			return fmt.Errorf("map of buffer %q, which is not listed", p.Map.Buffer)
		}
		if r := p.Map.Rank(); r < 1 || r > 5 {
			return fmt.Errorf("rank %d: want 1 to 5", r)
		}
		if err := evalOnes(ones, append(append([]Expr(nil), p.Map.Dims...), p.Map.Strides...)...); err != nil {
			return err
		}
		_, err := p.Map.resolve(ones)
		return err
	case KindI32, KindI64:
		return evalOnes(ones, p.Value)
	case KindPtr:
		if !buffers[p.Buffer] {
			return fmt.Errorf("pointer to buffer %q, which is not listed", p.Buffer)
		}
		return nil
	case KindWorkspace:
		if p.Workspace == nil {
			return fmt.Errorf("a workspace without its size")
		}
		withGrid := Sizes{GridSymbol: 1}
		for k, v := range ones {
			withGrid[k] = v
		}
		if err := evalOnes(withGrid, p.Workspace.Bytes, p.Workspace.ZeroBytes); err != nil {
			return err
		}
		_, err := p.Workspace.resolve(ones, 1)
		return err
	}
	return fmt.Errorf("kind %q: want %s", p.Kind, kindList)
}

// evalOnes evaluates es with every size 1: it fails on a syntax error or a
// size the manifest does not name.
func evalOnes(ones Sizes, es ...Expr) error {
	for _, e := range es {
		if _, err := e.Eval(ones); err != nil {
			return err
		}
	}
	return nil
}
