package models_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/maslda/maslda/framework/synth"
)

// TestFamilyDump writes draws of the randomised family (RandomFamily(50, 1),
// or from MASLDA_FAMILY_BASE)
// as files the command line reads, so that one draw can be studied with
// maslda itself: DIR/drawN/docs.ldac, answers.csv (task,worker,label),
// truth.csv and spec.txt (the draw's settings, majority vote, the crowd
// oracle, and each annotator's community, answer count and planted
// matrix). Gated:
//
//	MASLDA_FAMILY_DUMP=/tmp/fam MASLDA_FAMILY_DRAWS=0,21 go test ./models -run '^TestFamilyDump$'
func TestFamilyDump(t *testing.T) {
	dir := os.Getenv("MASLDA_FAMILY_DUMP")
	if dir == "" {
		t.Skip("set MASLDA_FAMILY_DUMP=DIR (and MASLDA_FAMILY_DRAWS) to write draws of the family")
	}
	for _, spec := range familyDraws(t, familyBase(t, 50), "MASLDA_FAMILY_DRAWS") {
		cr, err := synth.NewFamilyCrowd(spec)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, spec.Name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		var docs, answers, truth, info strings.Builder
		for _, d := range cr.Train.Docs {
			fmt.Fprintf(&docs, "%d", len(d.Words))
			for j, w := range d.Words {
				fmt.Fprintf(&docs, " %d:%d", w, int(d.Counts[j]))
			}
			docs.WriteString("\n")
		}
		answers.WriteString("task,worker,label\n")
		n := make([]int, spec.R)
		for d, as := range cr.Train.Answers.ByDoc {
			for _, a := range as {
				fmt.Fprintf(&answers, "%d,a%d,c%d\n", d, a.Annotator, a.Class)
				n[a.Annotator]++
			}
		}
		truth.WriteString("task,label\n")
		for d, c := range cr.Truth {
			fmt.Fprintf(&truth, "%d,c%d\n", d, c)
		}
		fmt.Fprintf(&info, "%s\nMV %.3f, crowd oracle %.3f, model K %d\n", spec, cr.MajorityVote(), cr.OracleAccuracy(synth.OracleCrowd), spec.ModelK)
		for r := range spec.R {
			fmt.Fprintf(&info, "a%d community %d, %d answers, planted %.2f\n", r, cr.Community[r], n[r], cr.Planted[r])
		}
		for name, b := range map[string]*strings.Builder{"docs.ldac": &docs, "answers.csv": &answers, "truth.csv": &truth, "spec.txt": &info} {
			if err := os.WriteFile(filepath.Join(out, name), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestValueFamilyDump writes draws of the randomised value family
// (RandomValueFamily(50, 1)) as DIR/drawN/answers.csv (task,worker,value),
// truth.csv (task,value) and spec.txt (the draw's settings and each
// annotator's community), for answers-only cross-checks. Gated:
//
//	MASLDA_VALUE_FAMILY_DUMP=/tmp/vfam MASLDA_VALUE_FAMILY_DRAWS=3,27 go test ./models -run '^TestValueFamilyDump$'
func TestValueFamilyDump(t *testing.T) {
	dir := os.Getenv("MASLDA_VALUE_FAMILY_DUMP")
	if dir == "" {
		t.Skip("set MASLDA_VALUE_FAMILY_DUMP=DIR (and MASLDA_VALUE_FAMILY_DRAWS) to write draws of the value family")
	}
	for _, spec := range familyDraws(t, valueFamilyBase(t, 50), "MASLDA_VALUE_FAMILY_DRAWS") {
		fc, err := synth.NewValueFamilyCrowd(spec)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, spec.Name)
		if err := os.MkdirAll(out, 0o755); err != nil {
			t.Fatal(err)
		}
		var answers, truth, info strings.Builder
		answers.WriteString("task,worker,value\n")
		for d, as := range fc.Train.Answers.ByDoc {
			for _, a := range as {
				fmt.Fprintf(&answers, "%d,a%d,%g\n", d, a.Annotator, a.Value)
			}
		}
		truth.WriteString("task,value\n")
		for d, x := range fc.Truth {
			fmt.Fprintf(&truth, "%d,%g\n", d, x)
		}
		fmt.Fprintf(&info, "%+v\nmean answer R² %.3f, oracle R² %.3f\n", spec, fc.MeanAnswer(), fc.OracleR2())
		for r, c := range fc.Community {
			fmt.Fprintf(&info, "a%d community %d bias %.3g prec %.3g\n", r, c, fc.Bias[r], fc.Prec[r])
		}
		for name, b := range map[string]*strings.Builder{"answers.csv": &answers, "truth.csv": &truth, "spec.txt": &info} {
			if err := os.WriteFile(filepath.Join(out, name), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
