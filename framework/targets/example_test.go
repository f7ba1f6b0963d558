package targets_test

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/maslda/maslda/framework"
	_ "github.com/maslda/maslda/framework/targets" // registers categorical and gaussian
)

// A program that reads, writes and scores targets without knowing their
// kind: it asks the registry for the kind a response (here, its target)
// declares.
func Example() {
	target := framework.NewCategorical(3)
	target.Log[2] = math.Log(3)
	target.Finalize()
	kind, err := framework.Default.TargetKind(target.Kind())
	if err != nil {
		panic(err)
	}
	classes := []string{"neg", "neutral", "pos"}
	fmt.Println(strings.Join(append([]string{"task"}, kind.Columns(classes)...), ","))
	row, err := kind.AppendCells([]string{"doc1"}, target, classes)
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.Join(row, ","))

	m, err := kind.Evaluate(&framework.EvalInput{Pred: []string{"pos", "neg"}, Truth: []string{"pos", "pos"}, Lines: []int{2, 3}})
	if err != nil {
		panic(err)
	}
	m.WriteText(os.Stdout)
	// Output:
	// task,label,p:neg,p:neutral,p:pos
	// doc1,pos,0.2,0.2,0.6
	// n          2
	// accuracy   0.5000
	// macro-F1   0.6667
	//
	// confusion (rows: truth, columns: predicted)
	//          neg   pos
	//    neg     0     0
	//    pos     1     1
}
