// Package annotators holds the annotator noise models p(answer | target,
// annotator): each implements framework.NoiseModel, registers itself by
// name from init (framework.RegisterNoise), and may also sample answers (the
// simulator of MODEL.md §7).
//
// Registered models: `confusion` (package annotators/confusion), the
// Dirichlet confusion matrices of MA-sLDAc (MODEL.md §2), and
// `bias-precision` (package annotators/biasprecision), the Gaussian
// bias/precision annotators of MA-sLDAr (MODEL.md §3), and `perfect`
// (package annotators/perfect), one annotator who gives the crowd's
// majority vote or mean answer and is trusted: the single-annotator
// baselines of MODEL.md §6. docs/design.md describes the contract a noise
// model fulfils.
package annotators
