// Package experiment runs a grid of maslda runs described by a spec file
// and turns it into one tidy CSV and a Markdown summary (docs/experiments.md).
//
//   - LoadSpec / ParseSpec: the spec (HCL, decoded strictly: unknown keys
//     are errors that list the valid ones, with file and line): the data
//     files and the optional prepare / simulate steps that make them, the
//     models as configuration templates (${k}, ${alpha}, ${tau}, ${omega},
//     ${seed} substituted textually), the grid and the workers per run.
//   - Spec.Cells: the grid expanded into cells (model × grid point × seed)
//     in a fixed order. An axis a model's template does not mention is not
//     expanded for that model. A cell's id is a hash of its substituted
//     configuration, its grid point and the data's content.
//   - Runner.Run: runs the steps once (cached in OUT/data), then every cell
//     not yet done, at most Cores / Workers at a time, as child processes of
//     the maslda binary (train, predict, eval --json), so that each run's
//     peak memory is its own. A cell writes into OUT/cells/<id>/ and is done
//     when its result.json is there (written atomically); a rerun skips done
//     cells, and a cancelled context stops the children and leaves done cells
//     intact. Finally OUT/results.csv (Columns) and OUT/summary.md.
//   - WriteCSV / WriteSummary: the two outputs from a list of Results.
//
// The package never prints: it logs through an hclog.Logger.
package experiment
