package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/swigen/swigen/lab/tune"
)

// recipeDir holds the multi-host tuning recipes
// (docs/DESIGN.md#tuning-across-gpus-and-hosts).
const recipeDir = "../../docs/recipes"

// recipe is one job-array recipe: its file, how the test finds its
// shard count n, and the shell variables of one of its n tasks.
type recipe struct {
	file string
	// shards reads n from the file (the array's size).
	shards func(t *testing.T, text string) int
	// vars are the variables task i of n sees; dir is a scratch
	// directory for the shared storage.
	vars func(i, n int, dir string) map[string]string
}

var recipes = []recipe{
	{
		file: "tune-slurm.sh",
		shards: func(t *testing.T, text string) int {
			lo, hi := atoiMatch(t, text, `(?m)^#SBATCH --array=(\d+)-(\d+)$`, 1), atoiMatch(t, text, `(?m)^#SBATCH --array=(\d+)-(\d+)$`, 2)
			n := atoiMatch(t, text, `(?m)^shards=(\d+)$`, 1)
			if lo != 0 || hi != n-1 {
				t.Errorf("--array=%d-%d, shards=%d: the task ids must be 0 to shards-1", lo, hi, n)
			}
			return n
		},
		vars: func(i, n int, dir string) map[string]string {
			return map[string]string{"SLURM_ARRAY_TASK_ID": strconv.Itoa(i), "shards": strconv.Itoa(n), "out": dir}
		},
	},
	{
		file: "tune-k8s-indexed-job.yaml",
		shards: func(t *testing.T, text string) int {
			if !regexp.MustCompile(`(?m)^  completionMode: Indexed$`).MatchString(text) {
				t.Error("the Job is not an Indexed Job: its pods get no $JOB_COMPLETION_INDEX")
			}
			if strings.Contains(text, "\t") {
				t.Error("a tab: YAML indents with spaces only")
			}
			n := atoiMatch(t, text, `(?m)^  completions: (\d+)$`, 1)
			if p := atoiMatch(t, text, `(?m)^  parallelism: (\d+)$`, 1); p > n {
				t.Errorf("parallelism %d above completions %d", p, n)
			}
			return n
		},
		vars: func(i, n int, dir string) map[string]string {
			return map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(i)}
		},
	},
}

// atoiMatch is the integer of group g of re's first match in text.
func atoiMatch(t *testing.T, text, re string, g int) int {
	t.Helper()
	m := regexp.MustCompile(re).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("no line matches %s", re)
	}
	v, err := strconv.Atoi(m[g])
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRecipes checks each recipe's swigen command lines, for every task
// index of its array: each parses and validates with the real command
// tree (validatingRoot: up to where a compiler or GPU would be needed),
// the tune lines of tasks 0 to n-1 are --shard 0/n to n-1/n, each into
// its own DB, and the merge reads every one of those DBs.
func TestRecipes(t *testing.T) {
	t.Parallel()
	for _, r := range recipes {
		t.Run(r.file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(filepath.Join(recipeDir, r.file))
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			n := r.shards(t, text)
			lines := recipeCommands(text)
			if len(lines) != 2 {
				t.Fatalf("%d swigen command lines %q, want a tune and a merge", len(lines), lines)
			}
			dir := t.TempDir()
			dbs := map[string]int{} // shard DB -> task
			var merge []string
			for i := range n {
				for _, line := range lines {
					args, err := shellWords(line, r.vars(i, n, dir))
					if err != nil {
						t.Fatalf("task %d: %q: %v", i, line, err)
					}
					validateRecipeArgs(t, i, args)
					switch {
					case len(args) > 2 && args[1] == "tune" && args[2] == "merge":
						merge = args
					case len(args) > 1 && args[1] == "tune":
						o, err := parseTune(t, args[2:]...)
						if err != nil {
							t.Fatal(err)
						}
						if si, sn, err := tune.ParseShard(o.Shard); err != nil || si != i || sn != n {
							t.Errorf("task %d of %d: --shard %s, want %d/%d", i, n, o.Shard, i, n)
						}
						if j, dup := dbs[o.DB]; dup {
							t.Errorf("tasks %d and %d share --db %s", j, i, o.DB)
						}
						dbs[o.DB] = i
					default:
						t.Fatalf("task %d: %q is neither swigen tune nor swigen tune merge", i, line)
					}
				}
			}
			checkMergeReads(t, merge, dbs)
		})
	}
}

// validateRecipeArgs runs one command line through validatingRoot.
func validateRecipeArgs(t *testing.T, task int, args []string) {
	t.Helper()
	if len(args) == 0 || args[0] != "swigen" {
		t.Fatalf("task %d: %q does not run swigen", task, args)
	}
	root := validatingRoot(t)
	root.SetArgs(args[1:])
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	if err := root.ExecuteContext(context.Background()); err != nil {
		t.Errorf("task %d: %q is rejected (exit %d): %v", task, args, exitCode(err), err)
	}
}

// checkMergeReads checks that the merge's inputs, as a shell expands
// their globs, name every shard's DB.
func checkMergeReads(t *testing.T, merge []string, dbs map[string]int) {
	t.Helper()
	if merge == nil {
		t.Fatal("no swigen tune merge line")
	}
	var inputs []string
	cmd := newTuneMergeCmd(&env{stdout: io.Discard, stderr: io.Discard}, func(in []string, _ string) error { inputs = in; return nil })
	cmd.SetArgs(merge[3:])
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	if err := cmd.Execute(); err != nil {
		t.Fatalf("%q: %v", merge, err)
	}
	var missed []string
	for db := range dbs {
		found := false
		for _, in := range inputs {
			ok, err := filepath.Match(in, db)
			if err != nil {
				t.Fatalf("merge input %q: %v", in, err)
			}
			found = found || ok
		}
		if !found {
			missed = append(missed, db)
		}
	}
	if len(missed) > 0 {
		t.Errorf("merge inputs %q miss the shard DBs %q", inputs, missed)
	}
}

// recipeCommands are the command lines of text that run swigen: lines
// whose first word (past the indentation) is swigen, with the lines a
// trailing backslash continues joined on. Comments are not commands.
func recipeCommands(text string) []string {
	var out []string
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "swigen ") {
			continue
		}
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		out = append(out, l)
	}
	return out
}

// shellWords splits one command line into words as a POSIX shell would,
// for the shell the recipes use: blanks separate words, single and
// double quotes and backslashes quote, $name and ${name} expand from
// vars (an unknown one is an error, so no variable goes unchecked; an
// unquoted value is split at blanks), and globs stay as written. Anything more (command substitution, pipes,
// redirection, lists) is an error: the test would not know its words.
func shellWords(line string, vars map[string]string) ([]string, error) {
	var (
		words []string
		cur   strings.Builder
		inW   bool // a word has begun (perhaps an empty "")
		quote rune // 0, '\'' or '"'
	)
	rs := []rune(line)
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteRune(c)
			}
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("a backslash ends %q", line)
			}
			i++
			if quote == '"' && !strings.ContainsRune(`$"\`+"`", rs[i]) {
				cur.WriteRune('\\')
			}
			cur.WriteRune(rs[i])
			inW = true
		case c == '$':
			v, n, err := expandVar(rs[i+1:], vars)
			if err != nil {
				return nil, fmt.Errorf("%q: %w", line, err)
			}
			i += n
			if quote == '"' {
				cur.WriteString(v)
				inW = true
				break
			}
			// Unquoted, the value is split into words at blanks.
			for j, f := range strings.Split(v, " ") {
				if j > 0 && inW {
					words = append(words, cur.String())
					cur.Reset()
					inW = false
				}
				cur.WriteString(f)
				inW = inW || f != ""
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '`' {
				return nil, fmt.Errorf("%q: command substitution", line)
			} else {
				cur.WriteRune(c)
			}
		case c == '\'' || c == '"':
			quote, inW = c, true
		case c == ' ' || c == '\t':
			if inW {
				words = append(words, cur.String())
				cur.Reset()
				inW = false
			}
		case strings.ContainsRune(";|&<>()`#", c):
			return nil, fmt.Errorf("%q: %q needs more shell than this test reads", line, c)
		default:
			cur.WriteRune(c)
			inW = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("%q: unclosed %c", line, quote)
	}
	if inW {
		words = append(words, cur.String())
	}
	return words, nil
}

// expandVar expands the variable that rs (what follows a "$") begins
// with; n is how many runes it took.
func expandVar(rs []rune, vars map[string]string) (v string, n int, err error) {
	name := func(rs []rune) int {
		k := 0
		for k < len(rs) && (rs[k] == '_' || unicode.IsLetter(rs[k]) || k > 0 && unicode.IsDigit(rs[k])) {
			k++
		}
		return k
	}
	braced := len(rs) > 0 && rs[0] == '{'
	if braced {
		rs = rs[1:]
	}
	k := name(rs)
	switch {
	case k == 0:
		return "", 0, fmt.Errorf("$ not followed by a variable name (%q)", string(rs))
	case braced && (k == len(rs) || rs[k] != '}'):
		return "", 0, fmt.Errorf("${%s...: only ${name} is read", string(rs[:k]))
	}
	v, ok := vars[string(rs[:k])]
	if !ok {
		return "", 0, fmt.Errorf("variable $%s: the test gives no value for it", string(rs[:k]))
	}
	if braced {
		return v, k + 2, nil
	}
	return v, k, nil
}

func TestShellWords(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"i": "3", "out": "/s d", "N_2": "8"}
	for _, tt := range []struct {
		in   string
		want []string
		err  string
	}{
		{`swigen tune --shard "$i/$N_2" --db "$out/shard-${i}.json"`, []string{"swigen", "tune", "--shard", "3/8", "--db", "/s d/shard-3.json"}, ""},
		{`a "$out"/shard-*.json -o '$out' \"x`, []string{"a", "/s d/shard-*.json", "-o", "$out", `"x`}, ""},
		{`a "" b "\$i\q"`, []string{"a", "", "b", `$i\q`}, ""},
		{`a $out"$i"`, []string{"a", "/s", "d3"}, ""}, // unquoted: split at the blank
		{`a $nope`, nil, "variable $nope"},
		{`a ${i:-0}`, nil, "only ${name}"},
		{`a "$(date)"`, nil, "$ not followed"},
		{`a | b`, nil, "needs more shell"},
		{`a "b`, nil, "unclosed"},
	} {
		got, err := shellWords(tt.in, vars)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("shellWords(%q) = %q, %v; want an error with %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("shellWords(%q): %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("shellWords(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestRecipeSlurmSyntax runs bash -n on the Slurm recipe: its shell,
// heredoc included, parses.
func TestRecipeSlurmSyntax(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	var stderr bytes.Buffer
	cmd := exec.Command(bash, "-n", filepath.Join(recipeDir, "tune-slurm.sh"))
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, stderr.String())
	}
}
