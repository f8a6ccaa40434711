package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"github.com/swigen/swigen/gen"
	"github.com/swigen/swigen/internal/join"
	"github.com/swigen/swigen/tiling"
	"github.com/swigen/swigen/tiling/pick"
)

// listOptions are the parsed flags of `swigen list`.
type listOptions struct {
	Kernels []string
	Arches  []string
	DTypes  []string
	Space   bool
	JSON    bool
}

// listRow is one config as list prints it; also the --json element.
type listRow struct {
	Name      string        `json:"name"`
	Kernel    tiling.Kernel `json:"kernel"`
	Arch      tiling.Arch   `json:"arch"`
	DType     tiling.DType  `json:"dtype"`
	SmemBytes int           `json:"smem_bytes"`
	Threads   int           `json:"threads"`
	Config    listConfig    `json:"config"`
}

// listOutput is the --json document.
type listOutput struct {
	Catalog []listRow   `json:"catalog"`
	Space   []listRow   `json:"space,omitempty"`
	Probes  []listProbe `json:"probes"`
}

// listProbe is one probe of gen.Probes.
type listProbe struct {
	Name         string `json:"name"`
	Doc          string `json:"doc"`
	ResultsRight bool   `json:"results_right"`
}

func newListCmd(e *env, runF func(context.Context, *listOptions) error) *cobra.Command {
	o := &listOptions{}
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the kernel catalog and the tuning space",
		Long:  longHelp("list"),
		Example: `  swigen list
  swigen list --space --kernel bwd_dswiglu --arch sm_90a --dtype bf16
  swigen list --json --arch sm_100a`,
		GroupID: groupGen,
		Args:    usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return runList(e, o)
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&o.Kernels, "kernel", nil, "only these kernel kinds: "+join.Strings(tiling.Kernels()))
	f.StringSliceVar(&o.Arches, "arch", nil, "only these targets: "+join.Strings(tiling.Arches()))
	f.StringSliceVar(&o.DTypes, "dtype", nil, "only these operand types: "+join.Strings(tiling.DTypes()))
	f.BoolVar(&o.Space, "space", false, "also print the tuning space")
	f.BoolVar(&o.JSON, "json", false, "print JSON instead of tables")
	return cmd
}

// filters parses the filter flags; empty flags select everything.
func (o *listOptions) filters() (ks []tiling.Kernel, as []tiling.Arch, ds []tiling.DType, err error) {
	for _, v := range o.Kernels {
		k, err := tiling.ParseKernel(v)
		if err != nil {
			return nil, nil, nil, err
		}
		ks = append(ks, k)
	}
	if len(o.Arches) > 0 {
		if as, err = pick.ParseArches(o.Arches); err != nil {
			return nil, nil, nil, err
		}
	}
	for _, v := range o.DTypes {
		d, err := tiling.ParseDType(v)
		if err != nil {
			return nil, nil, nil, err
		}
		ds = append(ds, d)
	}
	return pick.Uniq(ks), as, pick.Uniq(ds), nil
}

func runList(e *env, o *listOptions) error {
	ks, as, ds, err := o.filters()
	if err != nil {
		return usageError(fmt.Errorf("list: %w", err))
	}
	for _, k := range ks {
		if k.Grouped() {
			// Asked for by name, it would otherwise list nothing, unexplained.
			space := "no tuning space yet"
			if slices.Contains(tiling.TunableKinds(), k) {
				space = fmt.Sprintf("its tuning space is the grouped tiles at every ring depth that fits (swigen tune --kernel %s --shape %s,E)", k, tiling.ShapeOrder(k))
			}
			fmt.Fprintf(e.stderr, "note: %s is a grouped kind: not in the catalog yet; %s (emit --kernel picks the heuristic's config, verify and emit take --name)\n", k, space)
		}
	}
	out := listOutput{Catalog: rows(pick.FilterConfigs(tiling.Catalog(), ks, as, ds))}
	for _, p := range gen.Probes() {
		out.Probes = append(out.Probes, listProbe{Name: p.Name, Doc: p.Doc, ResultsRight: p.ResultsRight})
	}
	if o.Space {
		out.Space = []listRow{}
		for _, k := range orAll(ks, tiling.Kernels()) {
			for _, a := range orAll(as, tiling.Arches()) {
				for _, d := range orAll(ds, tiling.DTypes()) {
					out.Space = append(out.Space, rows(tiling.Space(k, a, d))...)
				}
			}
		}
	}
	if o.JSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	printRows(e.stdout, fmt.Sprintf("Catalog (%d configs):", len(out.Catalog)), out.Catalog)
	if o.Space {
		fmt.Fprintln(e.stdout)
		printRows(e.stdout, fmt.Sprintf("Space (%d configs):", len(out.Space)), out.Space)
	}
	printProbes(e.stdout, out.Probes)
	return nil
}

// printProbes lists the probes verify and bench can build a kernel with.
func printProbes(w io.Writer, ps []listProbe) {
	fmt.Fprintln(w, "\nProbes (swigen verify|bench --probe NAME; never in a shipped kernel):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range ps {
		results := "results wrong by design"
		if p.ResultsRight {
			results = "results right"
		}
		fmt.Fprintf(tw, "  %s\t%s (%s)\n", p.Name, p.Doc, results)
	}
	tw.Flush()
}

func rows(cfgs []tiling.Config) []listRow {
	rs := make([]listRow, len(cfgs))
	for i, c := range cfgs {
		rs[i] = listRow{
			Name: c.Name(), Kernel: c.Kernel, Arch: c.Arch, DType: c.DType,
			SmemBytes: c.SmemBytes(), Threads: c.Threads(), Config: listConfig(c),
		}
	}
	return rs
}

func printRows(w io.Writer, title string, rs []listRow) {
	fmt.Fprintln(w, title)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSMEM\tTHREADS\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t\n", r.Name, r.SmemBytes, r.Threads)
	}
	tw.Flush()
}

func orAll[T any](sel, all []T) []T {
	if len(sel) > 0 {
		return sel
	}
	return all
}
