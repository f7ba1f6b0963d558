// Package plots draws the figures of `maslda plot` with gonum/plot: a
// metric versus the number of topics from an experiment's results.csv,
// the ELBO trace of history.csv files, estimated versus true confusion
// matrices as heat maps, estimated versus true annotator biases and
// precisions, and box plots of answers per annotator and annotator
// accuracy. It is kept apart from the core packages so that only the
// command line links gonum/plot.
//
// Each kind has a reader (ReadResults, ReadHistory, ReadAnnotators) that
// parses a file by its header or field names and reports bad input with
// the file name and line (errors wrap framework.ErrBadInput), and a
// builder (MetricFigure, HistoryFigure, ConfusionFigure,
// BiasPrecisionFigure, BoxFigure) that returns a *Figure. The truth of
// the annotator figures is either given (nominal accuracies, matrices,
// biases and precisions of a simulated crowd) or measured on the training
// documents from the answers and the ground truth (EmpiricalConfusions,
// EmpiricalBiasPrecisions: what a real crowd actually did). A Figure is
// one or more panels on a grid with an optional shared legend (right),
// colour bar (below) and caption; Figure.Encode writes it as PNG (150 dpi)
// or SVG. The package never prints and never writes files: the caller
// decides where the bytes go (the command line writes them atomically).
package plots
