package framework

import (
	"fmt"
	"io"
	"math/rand/v2"
)

// KindTarget is the registry's kind of target kinds (TargetKind): the
// names a response's Kinded.Kind may return.
const KindTarget = "target"

// Kinded is an optional capability of a Likelihood (looked up first) and
// of a Target: the name of its kind of target, a registered TargetKind.
// The built-in targets declare theirs (*Categorical: "categorical",
// *Gaussian: "gaussian"); a response whose target is one of them but is
// read, written or scored differently declares its own kind on the
// Likelihood (the ordinal response: "ordinal", ordered classes).
type Kinded interface {
	Kind() string
}

// Kind of a Categorical target: "categorical".
func (*Categorical) Kind() string { return "categorical" }

// Kind of a Gaussian target: "gaussian".
func (*Gaussian) Kind() string { return "gaussian" }

// LabelParser resolves one label as written in a file (an answer, or a
// document's true value) read at file:line: class is the index into the
// classes (−1 for a kind without classes), value the number (for classes,
// float64(class), as Answer.Value). Errors wrap ErrBadInput and name the
// file and the line (LineError).
type LabelParser func(label, file string, line int) (class int32, value float64, err error)

// Truth is the true target of every document of a corpus, as read from a
// truth file (train --truth, simulate): document d has a true value when
// Has[d], then Class[d] (−1 for a kind without classes) and Value[d].
type Truth struct {
	Classes []string // the classes (nil for a kind without classes)
	Has     []bool
	Class   []int32
	Value   []float64
}

// EvalInput is what `maslda eval` scores: the predicted labels (the
// `label` column of a predictions or posterior file) of the tasks that
// have a true label, in the truth file's order.
type EvalInput struct {
	Pred, Truth []string // predicted and true labels, aligned
	Lines       []int    // the truth file's line of each true label
	PredFile    string   // the predictions' file name, for messages
	TruthFile   string   // the truth's file name, for messages
	// Classes are the declared classes (eval --classes), nil when not
	// declared; only a kind with classes accepts them.
	Classes []string
	// Columns are the predictions file's columns after task (label
	// first), and Rows each scored prediction's cells under them, aligned
	// with Pred: a kind may score more than the label (the ordinal kind
	// reads its median and p:<level> columns). Both nil when the caller
	// has the labels only.
	Columns []string
	Rows    [][]string
}

// Metrics are the scores of `maslda eval`: encoding/json marshals them
// for --json; WriteText writes the table a person reads.
type Metrics interface {
	WriteText(w io.Writer) error
}

// TargetKind is everything the command line needs to know about a kind of
// target, so that it reads, writes and scores any registered kind without
// knowing which: how answers and true values are parsed, the columns of
// posterior.csv and of predictions, and the metrics of `eval` and of
// train --truth. Register one with Registry.RegisterTargetKind; a response
// names its kind with Kinded. Implementations are in framework/targets
// (categorical, gaussian, ordinal). A TargetKind is used concurrently and
// must not change after registration.
type TargetKind interface {
	// Name is the kind's name (what Kinded.Kind returns, eval --kind).
	Name() string
	// HasClasses reports whether the targets are over named classes
	// (declared with train --classes, or else the answers' distinct
	// labels).
	HasClasses() bool
	// Classes orders the distinct labels of the answers into the classes
	// when none are declared (only called when HasClasses).
	Classes(labels []string) []string
	// Parser returns the parser of labels given the classes (nil for a
	// kind without classes); invalid classes (an empty name, a
	// duplicate) are an error wrapping ErrBadInput.
	Parser(classes []string) (LabelParser, error)
	// Columns are the target's columns in posterior.csv and in
	// predictions, after `task`; the first is `label`, the point
	// estimate, which eval reads.
	Columns(classes []string) []string
	// AppendCells appends target t's cells, under Columns, to row.
	AppendCells(row []string, t Target, classes []string) ([]string, error)
	// Matches reports whether the columns of a predictions or posterior
	// file after `task` (theta:k columns included) are this kind's: eval
	// without --kind uses the one kind that matches.
	Matches(columns []string) bool
	// TruthMetric names the truth-inference score, a history.csv column
	// (truth_accuracy, truth_r2).
	TruthMetric() string
	// ScoreTruth scores the targets of the documents with a true value
	// against it; target(d) is document d's current posterior. NaN when
	// undefined (no document to score).
	ScoreTruth(truth *Truth, target func(d int) Target) float64
	// Evaluate scores predicted labels against true ones (maslda eval).
	// Errors wrap ErrBadInput and name the file and line at fault.
	Evaluate(in *EvalInput) (Metrics, error)
}

// Sampler is an optional capability of a NoiseModel: it simulates
// annotators (`maslda simulate` with an `annotators "NAME" {}` block, and
// its shorthand flags). The simulated annotators are described by their
// own parameters, not by the model's training parameters; the model need
// not be initialised.
type Sampler interface {
	// SampleKind names the kind of target (a registered TargetKind) whose
	// true values the simulated annotators answer about.
	SampleKind() string
	// Simulate decodes the simulated annotators from p (strictly: an
	// unknown key is an error listing the valid ones) and checks them
	// against the truth (its classes, for a kind with classes); every
	// document has a true value (truth.Has). Errors wrap ErrBadInput.
	Simulate(p Params, truth *Truth) (Simulation, error)
}

// Simulation is a set of simulated annotators ready to answer (Sampler).
type Simulation interface {
	// Annotators is the number of simulated annotators, in the order of
	// their parameters (the caller names them, a0, a1, … for simulate).
	Annotators() int
	// Sample draws, from rng only, the answers of perDoc distinct
	// annotators chosen at random for every document (0: every
	// annotator; at most Annotators()), each document's answers ordered
	// by annotator, as Answers.ByDoc (Worker the annotator's index).
	Sample(perDoc int, rng *rand.Rand) ([][]Answer, error)
}

// RegisterTargetKind registers a kind of target under its Name. It panics
// on a nil kind, an empty name or a duplicate, as the Register functions
// of plug-ins do.
func (r *Registry) RegisterTargetKind(k TargetKind) {
	if k == nil {
		panic("framework: RegisterTargetKind with a nil kind")
	}
	r.register(KindTarget, k.Name(), k, false)
}

// TargetKind returns the named kind of target; an unknown name is an error
// (ErrUnknownComponent) listing the registered ones.
func (r *Registry) TargetKind(name string) (TargetKind, error) {
	k, err := r.lookup(KindTarget, name)
	if err != nil {
		return nil, err
	}
	return k.(TargetKind), nil
}

// KindOf returns the kind of target of a response: the name its Kinded
// declares (the Likelihood's, else its target's), looked up in r. A
// response that declares no kind is an error wrapping ErrIncompatible.
func (r *Registry) KindOf(l Likelihood) (TargetKind, error) {
	k, ok := l.(Kinded)
	if !ok {
		k, ok = l.NewTarget().(Kinded)
	}
	if !ok {
		return nil, fmt.Errorf("%w: the response's target %T declares no kind (framework.Kinded); registered kinds: %s", ErrIncompatible, l.NewTarget(), listOrNone(r.Names(KindTarget)))
	}
	return r.TargetKind(k.Kind())
}

// RegisterTargetKind registers on Default.
func RegisterTargetKind(k TargetKind) { Default.RegisterTargetKind(k) }
