package protocol

import (
	"fmt"
	"strings"
)

// The checks a Violation names.
const (
	// CheckArrivals: every arrival lands on the phase it is meant for,
	// and each phase receives exactly its barrier's init count.
	CheckArrivals = "arrivals"
	// CheckTx: the bytes landing in a phase are the bytes the phase
	// expects (the buffer they fill), all meant for that phase.
	CheckTx = "tx"
	// CheckParity: a wait returns on the phase it means, never on one
	// its parity aliases, and no phase it needs is overtaken first.
	CheckParity = "parity"
	// CheckDeadlock: every wait's phase completes and every role
	// terminates.
	CheckDeadlock = "deadlock"
	// CheckOverwrite: no buffer generation is overwritten before its
	// readers have read and released it.
	CheckOverwrite = "overwrite"
	// CheckRead: no buffer is read before its generation is fully
	// written.
	CheckRead = "read"
	// CheckExit: nothing asynchronous is in flight towards a CTA when it
	// exits.
	CheckExit = "exit"
	// CheckTerminates: the run ends within its step budget.
	CheckTerminates = "terminates"
)

// What a deadlock does on the GPU (Violation.Outcome).
const (
	OutcomeTrap  = "trap: a trapping mbarrier wait hits the hang deadline and the launch fails"
	OutcomeWrong = "consumer waits give up at the deadline: the kernel finishes with wrong results"
	OutcomeHang  = "hang: the blocked operations have no deadline (setmaxnreg, barrier.cluster)"
)

// Violation is one failed check of a run.
type Violation struct {
	Check  string
	Where  string
	Detail string
	// Outcome (deadlocks) is what the kernel does on the GPU.
	Outcome string `json:",omitempty"`
}

func (v Violation) String() string { return fmt.Sprintf("%s: %s: %s", v.Check, v.Where, v.Detail) }

// Result is a failed run: the scenario, cluster and policy it ran and
// what it found.
type Result struct {
	Spec, Scenario, Policy string
	Cluster                int
	Violations             []Violation
}

func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s, scenario %s, cluster %d, policy %s:", r.Spec, r.Scenario, r.Cluster, r.Policy)
	for _, v := range r.Violations {
		b.WriteString("\n\t" + v.String())
	}
	return b.String()
}

// Policy picks which of the roles and asynchronous operations that can
// move moves next. Lag holds back a role class ("producer", "consumer1",
// "mma", ...), a CTA ("cta1"), every asynchronous operation ("async") or
// one kind of them ("tma", "commit", "store", "clc") while anything else
// can move: the others run as far ahead as the protocol lets them, which
// is where a missing wait or a short ring shows. Seed, if not zero, picks
// at random among the rest; otherwise they take turns.
type Policy struct {
	Name string
	Lag  string
	Seed uint64
}

// lagCTA is the CTA the policy holds back, or -1.
func (p Policy) lagCTA() int {
	var r int
	if _, err := fmt.Sscanf(p.Lag, "cta%d", &r); err != nil {
		return -1
	}
	return r
}

// Policies are the schedules every scenario runs under: round robin, a
// few random streams, and each role class, each CTA and each kind of
// asynchronous operation held back in turn.
func Policies(sp Spec) []Policy {
	ps := []Policy{{Name: "round-robin"}}
	for seed := uint64(1); seed <= 3; seed++ {
		ps = append(ps, Policy{Name: fmt.Sprintf("random-%d", seed), Seed: seed})
	}
	lags := []string{"async", "tma", "store"}
	if sp.Arch == SM90a {
		lags = append(lags, "producer", "consumer0", "consumer1")
		if len(sp.Epi.Loads) > 0 {
			lags = append(lags, "epiload0", "epiload1")
		}
	} else {
		lags = append(lags, "commit", "producer", "mma", "epilogue")
		if len(sp.Epi.Loads) > 0 {
			lags = append(lags, "epiload")
		}
		if sp.SM100 != nil && sp.SM100.CLC {
			lags = append(lags, "clc", "scheduler")
		}
	}
	for r := 0; r < sp.clusterSize(); r++ {
		lags = append(lags, fmt.Sprintf("cta%d", r))
	}
	for _, l := range lags {
		ps = append(ps, Policy{Name: "lag-" + l, Lag: l})
	}
	return ps
}

// stepLimit bounds a run; the programs are finite, so only a model bug
// reaches it.
const stepLimit = 5_000_000

// Run simulates one cluster of scenario sc under policy pol and returns
// the violations found (none when the protocol held). A run stops at its
// first violation.
func Run(sp Spec, sc Scenario, cluster int, pol Policy) ([]Violation, error) {
	if err := sp.Validate(); err != nil {
		return nil, err
	}
	if err := sc.validate(&sp); err != nil {
		return nil, err
	}
	var s *sim
	switch sp.Arch {
	case SM90a:
		s = buildSM90(&sp, sc, cluster, pol)
	case SM100a:
		s = buildSM100(&sp, sc, cluster, pol)
	}
	s.run(stepLimit)
	return s.viol, nil
}

// Verify runs every scenario of scs (Scenarios(sp) when nil) on each of
// its clusters under every policy and returns the failed runs, at most
// one per scenario and cluster.
func Verify(sp Spec, scs []Scenario) ([]Result, error) { return explore(sp, scs, false) }

// Explore is Verify returning every failed run: a bug can show as a
// deadlock under one policy and as a parity alias under another.
func Explore(sp Spec, scs []Scenario) ([]Result, error) { return explore(sp, scs, true) }

func explore(sp Spec, scs []Scenario, all bool) ([]Result, error) {
	if scs == nil {
		scs = Scenarios(sp)
	}
	var out []Result
	for _, sc := range scs {
		for _, cl := range sc.clusters(&sp) {
			for _, pol := range Policies(sp) {
				v, err := Run(sp, sc, cl, pol)
				if err != nil {
					return nil, err
				}
				if len(v) > 0 {
					out = append(out, Result{Spec: sp.Name, Scenario: sc.Name, Policy: pol.Name, Cluster: cl, Violations: v})
					if !all {
						break
					}
				}
			}
		}
	}
	return out, nil
}
