package cli

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// docSections splits docs/cli.md into its sections by heading text
// ("## train" → "train", "### simulate corpus" → "simulate corpus"); a
// section runs to the next heading of its level or above.
func docSections(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("../../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	type head struct {
		level int
		name  string
		start int
	}
	var heads []head
	lines := strings.Split(string(b), "\n")
	inCode := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if m := regexp.MustCompile(`^(#{2,4}) (.*)$`).FindStringSubmatch(l); m != nil && !inCode {
			heads = append(heads, head{len(m[1]), strings.Trim(m[2], "` "), i})
		}
	}
	out := map[string]string{}
	if len(heads) > 0 {
		out[""] = strings.Join(lines[:heads[0].start], "\n") // the introduction and its command table
	}
	// prepare's section points to docs/prepare.md, which documents it.
	if b, err := os.ReadFile("../../../docs/prepare.md"); err == nil {
		defer func() { out["prepare"] += "\n" + string(b) }()
	}
	for i, h := range heads {
		end := len(lines)
		for _, n := range heads[i+1:] {
			if n.level <= h.level {
				end = n.start
				break
			}
		}
		out[h.name] = strings.Join(lines[h.start:end], "\n")
	}
	return out
}

// TestDocsMatchHelp: every command of `maslda help` (and every plot kind,
// simulate corpus) has its section in docs/cli.md, which names each of
// its flags as `--flag`, and the command's help names no flag that the
// docs lack; the docs' command table lists every command.
func TestDocsMatchHelp(t *testing.T) {
	sections := docSections(t)
	root := newRoot(&env{})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" || sub.Name() == "completion" || sub.Name() == "version" {
				continue
			}
			name := strings.TrimPrefix(sub.CommandPath(), "maslda ")
			sec, ok := sections[name]
			if !ok && sub.Parent().Name() == "plot" {
				name = "plot" // the plot kinds share one section and its tables
				sec, ok = sections[name]
			}
			if !ok {
				t.Errorf("docs/cli.md has no section %q (maslda %s)", "## "+name, name)
				walk(sub)
				continue
			}
			sub.Flags().VisitAll(func(f *pflag.Flag) {
				if f.Name == "help" {
					return
				}
				if !strings.Contains(sec, "`--"+f.Name+"`") && !strings.Contains(sec, "--"+f.Name+" ") && !strings.Contains(sec, "--"+f.Name+"=") {
					t.Errorf("docs/cli.md's section %q does not document --%s (%s)", name, f.Name, f.Usage)
				}
			})
			walk(sub)
		}
	}
	walk(root)
	table := sections[""]
	for _, c := range root.Commands() {
		if c.Hidden || c.Name() == "help" {
			continue
		}
		if !strings.Contains(table, "`"+c.Name()+"`") {
			t.Errorf("docs/cli.md's command table lacks %s", c.Name())
		}
	}
	// Each command's usage line, as its help prints it, is in its section
	// (spaces aside).
	for _, c := range append(root.Commands(), mustFind(t, root, "simulate", "corpus")) {
		name := strings.TrimPrefix(c.CommandPath(), "maslda ")
		sec, ok := sections[name]
		if !ok || c.Name() == "help" || c.Name() == "completion" || c.Name() == "version" {
			continue
		}
		if line := c.UseLine(); !strings.Contains(strings.Join(strings.Fields(sec), " "), strings.TrimSuffix(line, " [flags]")) {
			t.Errorf("docs/cli.md's section %q lacks the usage line %q", name, line)
		}
	}
	// And the docs document no flag that a command lacks: every `--flag`
	// in a command's flag table is one of its flags.
	for _, c := range root.Commands() {
		sec, ok := sections[c.Name()]
		if !ok || c.Name() == "plot" {
			continue
		}
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		c.InheritedFlags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		for _, m := range regexp.MustCompile("(?m)^\\| `--([a-z-]+)`").FindAllStringSubmatch(sec, -1) {
			if !slices.Contains(names, m[1]) && !subHas(c, m[1]) {
				t.Errorf("docs/cli.md's %s table documents --%s, which maslda %s does not have", c.Name(), m[1], c.Name())
			}
		}
	}
}

func mustFind(t *testing.T, root *cobra.Command, path ...string) *cobra.Command {
	t.Helper()
	c, _, err := root.Find(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// subHas: a subcommand of c has the flag (a section's table may cover
// them: simulate corpus).
func subHas(c *cobra.Command, name string) bool {
	for _, s := range c.Commands() {
		if s.Flags().Lookup(name) != nil {
			return true
		}
	}
	return false
}
