package corpus_test

import (
	"fmt"
	"strings"

	"github.com/maslda/maslda/framework/corpus"
)

func ExampleReadLDAC() {
	// Three documents: word 2 repeated (summed), a zero count (dropped) and
	// an empty document.
	in := "3 2:1 0:4 2:2\n2 5:0 1:1\n0\n"
	docs, V, err := corpus.ReadLDAC(strings.NewReader(in), "docs.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("V =", V)
	for _, d := range docs {
		fmt.Printf("doc %s: words %v counts %v N %v\n", d.ID, d.Words, d.Counts, d.N)
	}
	_, _, err = corpus.ReadLDAC(strings.NewReader("2 0:1 3:\n"), "docs.txt")
	fmt.Println(err)
	// Output:
	// V = 6
	// doc 0: words [0 2] counts [4 3] N 7
	// doc 1: words [1] counts [1] N 1
	// doc 2: words [] counts [] N 0
	// docs.txt:1: malformed pair "3:": want id:count, e.g. 17:2
}
