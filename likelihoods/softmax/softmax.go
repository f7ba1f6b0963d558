package softmax

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/optim"
)

func init() { framework.RegisterLikelihood("softmax", New) }

// Defaults of the `response "softmax" { ... }` block.
const (
	DefaultMaxIters = 50 // L-BFGS iterations per batch M-step
	DefaultSVIIters = 5  // L-BFGS iterations per SVI mini-batch
	// DefaultGradTol ends an M-step's L-BFGS when the largest component of
	// the objective's gradient per document is below it (1e-6, the
	// solver's default, until 2026-11-26: twice the evaluations for the
	// same accuracy; docs/performance.md).
	DefaultGradTol = 1e-5
	// DefaultGainTol ends a batch M-step's L-BFGS after the first iteration
	// that gains at most this fraction of what the M-step has gained so far
	// (a generalised EM M-step; docs/performance.md, "A generalised EM
	// M-step").
	DefaultGainTol = 0.01
	// DefaultTextL2Folds is text_l2_folds when unset: text_l2 chosen by
	// 5-fold cross-validation once a run with the classifier start has
	// converged (docs/results-classification.md, "The text's say").
	DefaultTextL2Folds = 5
)

// Params is the `response "softmax" { ... }` block. The zero value gives the
// documented defaults.
type Params struct {
	// L2 is μ ≥ 0, the L2 penalty (μ/2)‖η‖² of the M-step (a Gaussian prior
	// on η with variance 1/μ). Default (nil): 1/D, D the number of training
	// documents. 0 reproduces the paper (and lets η diverge on separable
	// classes).
	L2 *float64 `hcl:"l2,optional"`
	// TextL2 is μ_t ≥ 0, the L2 penalty on what the topics say: each
	// class's coefficients about their mean, (μ_t/2)Σ_l‖η_l − η̄_l1‖²,
	// where l2 then weighs the means alone, (μ/2)Σ_l K·η̄_l² (each class's
	// base rate: z̄ sums to 1, so η̄_l acts as class l's intercept). The
	// two add up to (μ/2)‖η‖² when μ_t = μ. Default (nil): l2. A large
	// μ_t leaves a class prior: the text's say is taken away, the classes'
	// balance kept.
	TextL2 *float64 `hcl:"text_l2,optional"`
	// TextL2Folds F ≥ 2 chooses μ_t by F-fold cross-validation of the
	// answers' likelihood through the annotators (tune.go, Softmax.Tune)
	// when the model asks (framework.Tuner: a converged run with the
	// annotators' classifier start); text_l2 (or l2) is the value until
	// then. 0: no choice. Default (nil): DefaultTextL2Folds, or 0 with
	// mstep = "mm".
	TextL2Folds *int `hcl:"text_l2_folds,optional"`
	// MaxIters is the number of L-BFGS iterations of a batch M-step
	// (warm-started from the current η). Default (0): 50.
	MaxIters int `hcl:"max_iters,optional"`
	// SVIIters is the number of L-BFGS iterations on each SVI mini-batch's
	// objective. Default (0): 5.
	SVIIters int `hcl:"svi_iters,optional"`
	// GradTol ends an M-step's L-BFGS (batch and SVI) when the largest
	// component of the gradient of the objective divided by the number of
	// documents is below it. Default (0): 1e-5.
	GradTol float64 `hcl:"grad_tol,optional"`
	// GainTol ends a batch M-step's L-BFGS (converged) after the first
	// iteration that raises the objective by at most gain_tol times what
	// the M-step has raised it by so far (optim.LBFGSOptions.GainTol): EM
	// needs the M-step to raise the bound, not to maximise it, and the
	// iterations that crawl along a nearly flat direction of η are left to
	// the next M-steps, which start where this one ends. As EM converges
	// the M-steps' gains shrink and so does the test's threshold. Default
	// (nil): DefaultGainTol under the product bound, 0 under the quadratic
	// bound (whose evaluations cost O(D·K·C), not O(Σ_d L_d·K·C): little
	// to save); 0: the M-step runs to grad_tol or max_iters (the behaviour
	// before 2026-11-27). SVI's steps (svi_iters) do not use it.
	GainTol *float64 `hcl:"gain_tol,optional"`
	// Precondition is how a batch M-step's L-BFGS under the product bound
	// is preconditioned: "hessian" (L-BFGS in the variables of the
	// Cholesky factor of an upper bound on the objective's Hessian at the
	// M-step's start, the bound's own curvature included; precond.go) or
	// "none" (L-BFGS on η, the M-step before 2026-11-27's sixth session).
	// Default (""): "hessian". With gain_tol > 0 its gain test also stops
	// at an iterate whose predicted next gain (the Newton decrement) is
	// below the threshold. SVI's steps and the quadratic bound are never
	// preconditioned; nor is C·K above 1024 or D·C·K above 2^23 (plain
	// L-BFGS then).
	Precondition string `hcl:"precondition,optional"`
	// Bound is the bound on E[log Σ_l exp(η_l·z̄_d)]: "product" (default;
	// MODEL.md §2, Jensen on the product of per-word factors, whose M-step
	// needs every training document's φ) or "quadratic" (Böhning's bound,
	// quad.go, whose M-step needs λ_d and φ̄_d per document only).
	Bound string `hcl:"bound,optional"`
	// MStep is how a global step fits η: "lbfgs" (default; L-BFGS on the
	// bound, whose statistics hold every document's λ_d and φ̄_d, or φ) or
	// "mm" (bound = "quadratic" only: one Böhning minorise-maximise step
	// per update from fixed-size statistics, mm.go, which an engine can
	// sum exactly: issue 26). "mm" needs l2 > 0.
	MStep string `hcl:"mstep,optional"`
}

// Validate checks the parameters; errors wrap framework.ErrBadInput.
func (p Params) Validate() error {
	switch {
	case p.L2 != nil && !(*p.L2 >= 0 && !math.IsInf(*p.L2, 0)):
		return fmt.Errorf("%w: softmax l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, *p.L2)
	case p.TextL2 != nil && !(*p.TextL2 >= 0 && !math.IsInf(*p.TextL2, 0)):
		return fmt.Errorf("%w: softmax text_l2 = %v, want a finite number ≥ 0", framework.ErrBadInput, *p.TextL2)
	case p.TextL2Folds != nil && (*p.TextL2Folds < 0 || *p.TextL2Folds == 1):
		return fmt.Errorf("%w: softmax text_l2_folds = %d, want 0 (no choice) or ≥ 2", framework.ErrBadInput, *p.TextL2Folds)
	case p.TextL2Folds != nil && *p.TextL2Folds > 0 && p.MStep == "mm":
		return fmt.Errorf("%w: softmax text_l2_folds needs mstep = \"lbfgs\" (the MM step's statistics hold no documents to cross-validate)", framework.ErrBadInput)
	case p.MaxIters < 0:
		return fmt.Errorf("%w: softmax max_iters = %d, want ≥ 1 (0 = default %d)", framework.ErrBadInput, p.MaxIters, DefaultMaxIters)
	case p.SVIIters < 0:
		return fmt.Errorf("%w: softmax svi_iters = %d, want ≥ 1 (0 = default %d)", framework.ErrBadInput, p.SVIIters, DefaultSVIIters)
	case !(p.GradTol >= 0) || math.IsInf(p.GradTol, 0):
		return fmt.Errorf("%w: softmax grad_tol = %v, want a finite number > 0 (0 = default %g)", framework.ErrBadInput, p.GradTol, DefaultGradTol)
	case p.GainTol != nil && !(*p.GainTol >= 0 && !math.IsInf(*p.GainTol, 0)):
		return fmt.Errorf("%w: softmax gain_tol = %v, want a finite number ≥ 0 (0: no such test)", framework.ErrBadInput, *p.GainTol)
	case p.Precondition != "" && p.Precondition != "none" && p.Precondition != "hessian":
		return fmt.Errorf("%w: softmax precondition = %q; valid: none, hessian", framework.ErrBadInput, p.Precondition)
	case p.Bound != "" && p.Bound != "product" && p.Bound != "quadratic":
		return fmt.Errorf("%w: softmax bound = %q; valid: product, quadratic", framework.ErrBadInput, p.Bound)
	case p.MStep != "" && p.MStep != "lbfgs" && p.MStep != "mm":
		return fmt.Errorf("%w: softmax mstep = %q; valid: lbfgs, mm", framework.ErrBadInput, p.MStep)
	case p.MStep == "mm" && p.Bound != "quadratic":
		return fmt.Errorf("%w: softmax mstep = \"mm\" needs bound = \"quadratic\" (the product bound's statistics are not fixed-size)", framework.ErrBadInput)
	case p.MStep == "mm" && p.L2 != nil && !(*p.L2 > 0):
		return fmt.Errorf("%w: softmax mstep = \"mm\" needs l2 > 0 (the direction of η along the classes is otherwise free)", framework.ErrBadInput)
	}
	return nil
}

// New builds a softmax response from its configuration block (the factory
// registered as "softmax"). Call Init before use.
func New(p framework.Params) (framework.Likelihood, error) {
	var pr Params
	if p == nil {
		p = framework.NoParams{}
	}
	if err := p.Decode(&pr); err != nil {
		if !errors.Is(err, framework.ErrBadInput) {
			err = fmt.Errorf("%w: %v", framework.ErrBadInput, err)
		}
		return nil, err
	}
	if err := pr.Validate(); err != nil {
		return nil, err
	}
	s := &Softmax{params: pr, guard: true, quad: pr.Bound == "quadratic", mm: pr.MStep == "mm", precond: pr.Precondition != "none"}
	s.pool.New = func() any { return newEvalScratch(s.C, s.K) }
	return s, nil
}

// Softmax is the softmax response of MA-sLDAc (MODEL.md §2): the true class
// c_d | z̄_d ~ Softmax(η z̄_d), with the product bound log Σ_l B_dl on the
// log-normaliser in both the local step and the M-step. It implements
// framework.Likelihood, framework.DocScorer and framework.Persister.
//
// The global parameters (Eta, Mu) are read-only during the E-step. One
// Softmax belongs to one model (its statistics point into a per-document
// store sized from the training corpus at Init).
type Softmax struct {
	C, K int       // classes, topics
	Eta  []float64 // η, C×K row-major: Eta[l*K+k] = η_lk
	Mu   float64   // the L2 penalty μ in use (on the rows' means when MuText differs)
	// MuText is the L2 penalty μ_t on the rows about their means (Params.TextL2).
	MuText   float64
	tuned    bool      // MuText was chosen by Tune (saved with η)
	lastTune Tuning    // the last Tune
	etaE     []float64 // η of the E-step whose statistics Update last read (Tune removes its message)

	params             Params
	quad               bool // bound = "quadratic"
	mm                 bool // mstep = "mm" (mm.go)
	precond            bool // precondition = "hessian" (precond.go)
	maxIters, sviIters int
	gradTol, gainTol   float64
	st                 *store
	phis               framework.PhiStore // the model's φ store (UsePhi; nil: φ copied into the statistics)

	// The data term Σ_{d∈batch}[λ_d·ηφ̄_d − log Σ_l B_dl] at the η set by
	// the last Update, for the statistics (and their version) it was
	// computed from.
	lastStats *Stats
	lastVer   uint64
	lastData  float64
	last      Solve

	hess      *hessRecs // the preconditioner's records, kept for the next batch M-step (precond.go; at most maxPrecondRecs numbers, 64 MiB)
	hbuf      []float64 // and its Hessian's buffer ((C·K)², C·K ≤ maxPrecondDim)
	pool      sync.Pool // *evalScratch for DocELBO (called concurrently)
	workers   int       // the M-step's goroutines (framework.Parallel; 0: GOMAXPROCS)
	guard     bool      // safeguarded φ step (always true outside tests)
	noRestore bool      // RestoreTarget refuses (tests only)
	probe     *probe    // test instrumentation; nil in production
}

// Solve describes the last M-step.
type Solve struct {
	Docs      int     // documents in the (mini-)batch
	Iters     int     // L-BFGS iterations
	Evals     int     // objective evaluations
	Status    string  // gonum's termination status ("" when no solve ran)
	Objective float64 // the maximised objective (data term scaled, minus the penalty) at the solver's point
	Warning   error   // a line-search failure that ended the solve with an accepted point, or a solve that made no progress
}

var (
	_ framework.Likelihood      = (*Softmax)(nil)
	_ framework.DocScorer       = (*Softmax)(nil)
	_ framework.Persister       = (*Softmax)(nil)
	_ framework.PhiUser         = (*Softmax)(nil)
	_ framework.LikelihoodLocal = (*local)(nil)
	_ framework.DocScorer       = (*local)(nil)
	_ framework.PhiDocTerm      = (*local)(nil)
	_ framework.Parallel        = (*Softmax)(nil)
)

// Init sizes η (C×K, zero: the first E-step is then unsupervised, since a
// zero η gives ρ_dvk a value independent of k) and, from setup.Corpus, the
// per-document store the M-step needs (see the package documentation for
// its size). μ defaults to 1/D.
func (s *Softmax) Init(setup *framework.Setup) error {
	if setup == nil {
		return fmt.Errorf("%w: softmax: no setup", framework.ErrBadInput)
	}
	switch c := len(setup.Classes); {
	case c == 0:
		return fmt.Errorf("%w: the softmax response needs class names: give answers", framework.ErrBadInput)
	case c < 2:
		return fmt.Errorf("%w: the softmax response needs at least 2 classes, got %d (%q)", framework.ErrBadInput, c, setup.Classes[0])
	}
	if setup.K < 1 {
		return fmt.Errorf("%w: softmax: %d topics, want ≥ 1", framework.ErrBadInput, setup.K)
	}
	s.C, s.K = len(setup.Classes), setup.K
	s.Eta = make([]float64, s.C*s.K)
	s.maxIters, s.sviIters = s.params.MaxIters, s.params.SVIIters
	if s.maxIters == 0 {
		s.maxIters = DefaultMaxIters
	}
	s.gradTol = s.params.GradTol
	if s.gradTol == 0 {
		s.gradTol = DefaultGradTol
	}
	if s.sviIters == 0 {
		s.sviIters = DefaultSVIIters
	}
	s.gainTol = DefaultGainTol
	if s.quad {
		s.gainTol = 0
	}
	if s.params.GainTol != nil {
		s.gainTol = *s.params.GainTol
	}
	D := setup.NumDocs()
	if s.params.L2 != nil {
		s.Mu = *s.params.L2
	} else {
		s.Mu = 1 / float64(max(D, 1))
	}
	s.MuText = s.Mu
	if s.params.TextL2 != nil {
		s.MuText = *s.params.TextL2
	}
	s.tuned, s.lastTune = false, Tuning{}
	s.st = newStore(setup.Corpus, s.K, s.C)
	s.lastStats, s.last = nil, Solve{}
	return nil
}

// textL2Folds is text_l2_folds in use (Params.TextL2Folds).
func (s *Softmax) textL2Folds() int {
	switch {
	case s.params.TextL2Folds != nil:
		return *s.params.TextL2Folds
	case s.mm:
		return 0
	}
	return DefaultTextL2Folds
}

// Ascends reports whether Update only promises not to lower the bound
// (framework.Ascender): the MM step maximises a minoriser, not the bound,
// and with gain_tol > 0 (the product bound's default) a batch M-step stops
// before the maximum once its L-BFGS crawls.
func (s *Softmax) Ascends() bool { return s.mm || s.gainTol > 0 }

// NeedsPhi reports whether the M-step reads every training document's φ:
// under the product bound (framework.PhiUser).
func (s *Softmax) NeedsPhi() bool { return !s.quad }

// UsePhi gives the response the model's φ store (framework.PhiUser), from
// which the product bound's M-step reads the φ of the documents in its
// statistics. Without it, Accumulate copies every document's φ.
func (s *Softmax) UsePhi(ps framework.PhiStore) { s.phis = ps }

// SetWorkers sets the number of goroutines of the M-step's objective
// (framework.Parallel): the model's number of workers, so that a run with
// one worker uses one core. n ≤ 0 means GOMAXPROCS. The M-step's result
// does not depend on n (Softmax.data).
func (s *Softmax) SetWorkers(n int) { s.workers = n }

// goroutines is the M-step's number of goroutines.
func (s *Softmax) goroutines() int {
	if s.workers > 0 {
		return s.workers
	}
	return runtime.GOMAXPROCS(0)
}

// NewTarget returns q(c_d) = Cat(λ_d) over the C classes.
func (s *Softmax) NewTarget() framework.Target { return framework.NewCategorical(s.C) }

// NewLocal returns one goroutine's scratch for the local step.
func (s *Softmax) NewLocal() framework.LikelihoodLocal {
	if s.quad {
		return newQLocal(s)
	}
	return newLocal(s)
}

// Predict sets d.Target (a *framework.Categorical) to softmax(η φ̄_d)
// (MODEL.md §2 "Prediction"): Log[l] = η_l·φ̄_d, then Finalize. An empty
// document (φ̄ = 0) gets the uniform distribution.
func (s *Softmax) Predict(d *framework.DocState) {
	t := d.Target.(*framework.Categorical)
	K := s.K
	for l := range t.Log {
		t.Log[l] = dot(s.Eta[l*K:(l+1)*K], d.PhiBar)
	}
	t.Finalize()
}

// LastSolve describes the last M-step (for diagnostics).
func (s *Softmax) LastSolve() Solve { return s.last }

// Update is the M-step for η (MODEL.md §2, §5). With the statistics of the
// (mini-)batch B and S = st.Scale it maximises
//
//	L_B(η) = S Σ_{d∈B} [ Σ_l λ_dl η_l·φ̄_d − log Σ_l B_dl(η) ] − (μ/2)‖η‖²
//
// with L-BFGS (optim.Minimize on −L_B, gradient of MODEL.md §2 with its
// [fix]) warm-started from the current η: max_iters iterations when
// st.Full (batch), svi_iters otherwise. The solver's point η_B is never
// worse than the start, so a batch step (ρ = 1) cannot lower L. The new η is
// (1−ρ)η + ρ η_B; ρ = 0 leaves η unchanged (no solve).
func (s *Softmax) Update(ctx context.Context, st framework.Stats, step framework.Step) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.Eta == nil {
		return fmt.Errorf("%w: softmax: Update before Init", framework.ErrNotTrained)
	}
	if !(step.Rho >= 0 && step.Rho <= 1) || !(step.Scale >= 0) || math.IsInf(step.Scale, 0) {
		return fmt.Errorf("softmax: invalid step ρ = %v, scale = %v", step.Rho, step.Scale)
	}
	if s.mm {
		return s.updateMM(ctx, st.(*mmStats), step)
	}
	stats := st.(*Stats)
	recs := s.records(stats)
	s.last = Solve{Docs: len(recs)}
	var memo dataMemo
	if step.Rho > 0 && (len(recs) > 0 || s.Mu > 0) {
		iters, gain := s.sviIters, 0.0
		if step.Full {
			iters, gain = s.maxIters, s.gainTol
		}
		opt := optim.LBFGSOptions{MaxIters: iters, GradTol: s.gradTol, FuncTol: 1e-12, GainTol: gain}
		var res optim.LBFGSResult
		var err error
		ok := false
		if step.Full && s.usePrecond(len(recs)) {
			res, ok, err = s.solvePrecond(ctx, recs, step.Scale, opt, &memo)
		}
		if !ok {
			f := s.objective(recs, stats.Cov, step.Scale, &memo)
			res, err = optim.Minimize(ctx, f, s.Eta, opt)
		}
		s.last.Iters, s.last.Evals, s.last.Status = res.Iters, res.FuncEvals, res.Status
		s.last.Objective, s.last.Warning = -res.F*objectiveWeight(len(recs), step.Scale), res.Warning
		if err != nil {
			if ctx.Err() != nil || math.IsNaN(res.F) {
				return fmt.Errorf("softmax M-step: %w", err)
			}
			// No progress from the start (x0 returned): keep η.
			s.last.Warning = err
		}
		r := step.Rho
		for i, x := range res.X {
			if r == 1 {
				s.Eta[i] = x
			} else {
				s.Eta[i] = (1-r)*s.Eta[i] + r*x
			}
		}
	}
	if v, ok := memo.get(s.Eta); ok {
		s.lastData = v
	} else {
		s.lastData = s.data(s.Eta, recs, stats.Cov, nil)
	}
	s.lastStats, s.lastVer = stats, stats.version
	return nil
}

// objectiveWeight is W = max(1, S·|B|): the M-step minimises −L_B/W, so
// that the solver's gradient tolerance means "per document".
func objectiveWeight(docs int, scale float64) float64 { return math.Max(1, scale*float64(docs)) }

// objective returns −L_B(η)/W and its gradient (in g, when non-nil), the
// function Update minimises: L_B(η) = S·data(η) − (μ/2)‖η‖². It records
// data(η) at the points it evaluates in memo (nil: not recorded).
func (s *Softmax) objective(recs []docView[float32], cov []float64, scale float64, memo *dataMemo) func(x, g []float64) float64 {
	W := objectiveWeight(len(recs), scale)
	var pg []float64
	return func(x, g []float64) float64 {
		v := s.data(x, recs, cov, g)
		memo.put(x, v)
		if g != nil && len(pg) != len(g) {
			pg = make([]float64, len(g))
		}
		pen := s.penalty(x, pg)
		if g != nil {
			for i := range g {
				g[i] = -(scale*g[i] - pg[i]) / W
			}
		}
		return -(scale*v - 0.5*pen) / W
	}
}

// dataMemo remembers data(η) at the last two points the M-step's objective
// evaluated, so that Update does not evaluate it once more at the
// solver's point (the same value: data's result does not depend on whether
// the gradient is asked for).
type dataMemo struct {
	x    [2][]float64
	v    [2]float64
	next int
}

// put records data(x) = v (a nil memo records nothing).
func (m *dataMemo) put(x []float64, v float64) {
	if m == nil {
		return
	}
	m.x[m.next] = append(m.x[m.next][:0], x...)
	m.v[m.next] = v
	m.next = 1 - m.next
}

// get returns data(x) if x is one of the recorded points, bit for bit.
func (m *dataMemo) get(x []float64) (float64, bool) {
	for i, y := range m.x {
		if y != nil && equal(x, y) {
			return m.v[i], true
		}
	}
	return 0, false
}

// ELBO is the response's part of MODEL.md §4 after Update, at the new η:
//
//	S Σ_{d∈batch} [ λ_d·ηφ̄_d − log Σ_l B_dl + H(λ_d) ] − (μ/2)‖η‖²
func (s *Softmax) ELBO(st framework.Stats, step framework.Step) float64 {
	if s.mm {
		return s.elboMM(st.(*mmStats), step)
	}
	stats := st.(*Stats)
	data := s.lastData
	if stats != s.lastStats || stats.version != s.lastVer {
		data = s.data(s.Eta, s.records(stats), stats.Cov, nil)
	}
	return step.Scale*(data+stats.Entropy) - 0.5*s.penalty(s.Eta, nil)
}

// penalty returns 2× the M-step's penalty at η,
//
//	μ_t Σ_l ‖η_l − η̄_l1‖² + μ Σ_l K·η̄_l²   (= μ‖η‖² when μ_t = μ),
//
// and, when g is non-nil, its half-gradient in g: μ_t(η_lk − η̄_l) + μη̄_l.
func (s *Softmax) penalty(eta, g []float64) float64 {
	mu, mt := s.Mu, s.MuText
	if mt == mu {
		pen := 0.0
		for i, e := range eta {
			pen += e * e
			if g != nil {
				g[i] = mu * e
			}
		}
		return mu * pen
	}
	K := s.K
	pen := 0.0
	for l := 0; l < len(eta)/K; l++ {
		row := eta[l*K : (l+1)*K]
		m := 0.0
		for _, e := range row {
			m += e
		}
		m /= float64(K)
		dev := 0.0
		for k, e := range row {
			dev += (e - m) * (e - m)
			if g != nil {
				g[l*K+k] = mt*(e-m) + mu*m
			}
		}
		pen += mt*dev + mu*float64(K)*m*m
	}
	return pen
}

// DocELBO is the response's part of document d's ELBO at the current η and
// local state, computed from d.Phi and d.Target (no cache):
// λ_d·ηφ̄_d − log Σ_l B_dl + H(λ_d). It is safe for concurrent use.
func (s *Softmax) DocELBO(d *framework.DocState) float64 {
	sc := s.pool.Get().(*evalScratch)
	if !sc.fits(s.C, s.K) {
		sc = newEvalScratch(s.C, s.K)
	}
	e := docELBO(s, d, sc)
	s.pool.Put(sc)
	return e
}

func docELBO(s *Softmax, d *framework.DocState, sc *evalScratch) float64 {
	eta, C, K := s.Eta, s.C, s.K
	t := d.Target.(*framework.Categorical)
	bar := sc.bar
	for k := range bar {
		bar[k] = 0
	}
	doc := d.Doc
	if doc.N > 0 {
		for j, n := range doc.Counts {
			for k, p := range d.PhiRow(j) {
				bar[k] += n * p
			}
		}
		for k := range bar {
			bar[k] /= doc.N
		}
	}
	v := docView[float64]{doc: doc, phi: d.Phi, lam: t.P, bar: bar}
	if s.quad {
		setA(eta, C, K, sc.qa, sc.qs)
		return evalDocQ(eta, C, K, v, sc, nil) - docCov(eta, C, K, d, sc.qa, sc.qs) + t.Entropy()
	}
	return evalDoc(eta, C, K, v, sc, nil) + t.Entropy()
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// Coefficients returns η per class and the L2 penalty in use
// (framework.Coefficients).
func (s *Softmax) Coefficients() ([][]float64, map[string]float64) {
	eta := make([][]float64, s.C)
	for l := range eta {
		eta[l] = append([]float64(nil), s.Eta[l*s.K:(l+1)*s.K]...)
	}
	extra := map[string]float64{"mu": s.Mu}
	if s.MuText != s.Mu || s.tuned {
		extra["text_l2"] = s.MuText
	}
	return eta, extra
}
