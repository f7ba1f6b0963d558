package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/maslda/maslda/"

// pluginFamilies are the packages of specific plug-ins: cmd reaches them
// only through plugins/std.
var pluginFamilies = []string{"annotators", "likelihoods"}

// closedTargets are the built-in targets: the command line handles every
// kind of target through framework.TargetKind, never by its Go type.
var closedTargets = []string{"Categorical", "Gaussian"}

// violations lists, for one file, its imports of a plug-in package and
// (unless it is a test) its type switches and type assertions on
// *framework.Categorical or *framework.Gaussian, as "line: what".
func violations(fset *token.FileSet, f *ast.File, isTest bool) []string {
	var out []string
	fw := "" // the file's name for the framework package
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		rel, ok := strings.CutPrefix(p, module)
		if !ok {
			continue
		}
		if family := strings.Split(rel, "/")[0]; contains(pluginFamilies, family) {
			out = append(out, fmt.Sprintf("%d: imports %s (link plug-ins through plugins/std)", fset.Position(imp.Pos()).Line, p))
		}
		if rel == "framework" {
			fw = path.Base(p)
			if imp.Name != nil {
				fw = imp.Name.Name
			}
		}
	}
	if isTest || fw == "" || fw == "_" {
		return out
	}
	closed := func(e ast.Expr) (string, bool) {
		star, ok := e.(*ast.StarExpr)
		if !ok {
			return "", false
		}
		sel, ok := star.X.(*ast.SelectorExpr)
		if !ok {
			return "", false
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok || id.Name != fw || !contains(closedTargets, sel.Sel.Name) {
			return "", false
		}
		return "*framework." + sel.Sel.Name, true
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.TypeSwitchStmt:
			for _, c := range n.Body.List {
				for _, e := range c.(*ast.CaseClause).List {
					if name, ok := closed(e); ok {
						out = append(out, fmt.Sprintf("%d: type switch case %s (use the kind of target)", fset.Position(e.Pos()).Line, name))
					}
				}
			}
		case *ast.TypeAssertExpr:
			if n.Type != nil {
				if name, ok := closed(n.Type); ok {
					out = append(out, fmt.Sprintf("%d: type assertion to %s (use the kind of target)", fset.Position(n.Pos()).Line, name))
				}
			}
		}
		return true
	})
	return out
}

func contains(s []string, x string) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// TestCommandIsOpen: no file under cmd/ (tests included) imports a
// plug-in package, and no non-test file there switches on the Go type of
// the built-in targets: the command line is open to plug-ins and kinds of
// target it does not know (issue 13).
func TestCommandIsOpen(t *testing.T) {
	root := filepath.Join("..")
	checked := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, v := range violations(fset, f, strings.HasSuffix(p, "_test.go")) {
			t.Errorf("%s:%s", p, v)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Fatalf("checked only %d files: is the walk rooted at cmd/?", checked)
	}
}

// TestViolations: the checker finds what it forbids, under any import name.
func TestViolations(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		test      bool
		want      []string
	}{
		{"clean", `package p
import "github.com/maslda/maslda/framework"
func f(t framework.Target) bool { _, ok := t.(framework.Kinded); return ok }`, false, nil},
		{"a plug-in import", `package p
import _ "github.com/maslda/maslda/annotators/confusion"`, false, []string{"2: imports github.com/maslda/maslda/annotators/confusion (link plug-ins through plugins/std)"}},
		{"a plug-in import in a test", `package p
import "github.com/maslda/maslda/likelihoods/softmax"`, true, []string{"2: imports github.com/maslda/maslda/likelihoods/softmax (link plug-ins through plugins/std)"}},
		{"a type switch", `package p
import "github.com/maslda/maslda/framework"
func f(t framework.Target) {
	switch t.(type) {
	case *framework.Categorical, *framework.Gaussian:
	}
}`, false, []string{"5: type switch case *framework.Categorical (use the kind of target)", "5: type switch case *framework.Gaussian (use the kind of target)"}},
		{"an assertion under another name", `package p
import fw "github.com/maslda/maslda/framework"
func f(t fw.Target) int { return t.(*fw.Categorical).Argmax() }`, false, []string{"3: type assertion to *framework.Categorical (use the kind of target)"}},
		{"an assertion in a test", `package p
import "github.com/maslda/maslda/framework"
func f(t framework.Target) float64 { return t.(*framework.Gaussian).Mean }`, true, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "x.go", tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, violations(fset, f, tc.test)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
