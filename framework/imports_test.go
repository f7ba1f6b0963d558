package framework_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/maslda/maslda/"

// allowed lists, for each top-level package family, the project packages it
// may import (ARCHITECTURE.md): framework imports no plug-in and not optim;
// plug-ins import framework (likelihoods also optim) and never each other or
// models; plugins/std links the standard plug-ins; models sees everything,
// cmd everything but the plug-ins themselves, which it links through
// plugins/std.
var allowed = map[string][]string{
	"framework":   {"framework"},
	"topics":      {"framework"},
	"optim":       {"framework"},
	"likelihoods": {"framework", "optim"},
	"annotators":  {"framework"},
	"models":      {"framework", "topics", "optim", "likelihoods", "annotators"},
	"plugins":     {"framework", "optim", "likelihoods", "annotators"},
	// cmd reaches the plug-ins (likelihoods, annotators) only through
	// plugins/std (cmd/maslda/rules_test.go checks the tests too).
	"cmd": {"framework", "topics", "optim", "models", "cmd", "plugins", "plot"},
}

// packageAllowed overrides the family's rule for one package: the
// conformance kit assembles models (topics, optim, models) around the
// component under test, and is imported only by tests.
var packageAllowed = map[string][]string{
	"framework/frameworktest": {"framework", "topics", "optim", "models"},
}

// thirdParty lists the non-project, non-standard imports each family may use.
var thirdParty = map[string][]string{
	"framework": {"gonum.org/v1/gonum"},
	"topics":    {"gonum.org/v1/gonum"},
	"optim":     {"gonum.org/v1/gonum"},
}

// plotsDir is where gonum.org/v1/plot may be imported: the command
// (cmd/maslda/plots draws, cmd/maslda/cli sets sizes), never the library.
const plotsDir = "cmd/"

// textprepThirdParty are also allowed under framework/textprep (a stemmer
// and Unicode word segmentation).
var textprepThirdParty = []string{"github.com/kljensen/snowball", "github.com/rivo/uniseg"}

func TestImportRules(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		family := strings.Split(filepath.ToSlash(rel), "/")[0]
		rules, ok := allowed[family]
		if !ok {
			return nil
		}
		if r, ok := packageAllowed[filepath.ToSlash(filepath.Dir(rel))]; ok {
			rules = r
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case strings.HasPrefix(p, module):
				target := strings.Split(strings.TrimPrefix(p, module), "/")[0]
				if !contains(rules, target) {
					t.Errorf("%s imports %s: %s may import only %v", rel, p, family, rules)
				}
			case !strings.Contains(strings.Split(p, "/")[0], "."):
				// standard library
			default:
				tp, limited := thirdParty[family]
				if strings.HasPrefix(filepath.ToSlash(rel), "framework/textprep/") {
					tp = append(tp[:len(tp):len(tp)], textprepThirdParty...)
				}
				if limited && !hasPrefix(p, tp) {
					t.Errorf("%s imports %s: %s may import only the standard library and %v", rel, p, family, tp)
				}
				if strings.HasPrefix(p, "gonum.org/v1/plot") && !strings.HasPrefix(filepath.ToSlash(rel), plotsDir) {
					t.Errorf("%s imports %s: only %s may draw (the core stays free of gonum/plot)", rel, p, plotsDir)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d files: is the walk rooted at the module?", checked)
	}
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if x == y {
			return true
		}
	}
	return false
}

func hasPrefix(p string, prefixes []string) bool {
	for _, x := range prefixes {
		if strings.HasPrefix(p, x) {
			return true
		}
	}
	return false
}
