package framework

// DocState is the local variational state of one document during its local
// step (MODEL.md §1): γ_d, E[log θ_d], φ_d (one K-vector per unique word),
// φ̄_d and q(target). It is owned by one worker goroutine at a time.
type DocState struct {
	Index     int       // the document's index in the corpus; < 0 in Accumulate for evaluation-only statistics (Evaluator)
	Doc       *Doc      // the document
	Answers   []Answer  // its answers (nil when none or at prediction time)
	K         int       // number of topics
	Gamma     []float64 // γ_d, length K
	ElogTheta []float64 // E[log θ_dk] = ψ(γ_dk) − ψ(Σ_j γ_dj), length K
	Phi       []float64 // φ_d, row-major Len()×K: Phi[j*K+k] = φ_{d,Words[j],k}
	PhiBar    []float64 // φ̄_d = (1/N_d) Σ_v n_dv φ_dv, length K
	Target    Target    // q(target); nil for plain LDA

	// Logs is what the topic layer's last sweep of φ_d left so that its
	// bound's entropy term costs one logarithm per word instead of K
	// (topics.Layer.DocELBO). Bind and PhiChanged invalidate it: code that
	// writes φ other than through the topic layer's sweeps must call
	// PhiChanged.
	Logs PhiLogs
}

// PhiLogs caches the normalisers of a sweep of φ_d: for word j,
// Σ_k φ_jk log φ_jk = C[j] − log Z[j] or, where C[j] is NaN (a word whose
// φ the sweep took multiplicatively, φ_jk ∝ exp(Logf_k)·exp(E[log β_kw])),
// Σ_k φ_jk (Logf_k + E[log β_{k,w_j}]) − log Z[j] at the topics whose
// version is Version. It is valid while Valid; Deferred (some C[j] is NaN)
// is kept so that DocELBO need not scan C to know whether Version matters.
type PhiLogs struct {
	Valid    bool
	Deferred bool   // some C[j] is NaN (the doc comment says why it is stored)
	Version  uint64 // the topics' version (E[log β]) for the deferred words
	Logf     []float64
	C, Z     []float64
}

// CopyFrom sets l to a copy of o (its slices copied into l's own).
func (l *PhiLogs) CopyFrom(o *PhiLogs) {
	l.Valid, l.Deferred, l.Version = o.Valid, o.Deferred, o.Version
	l.Logf = append(l.Logf[:0], o.Logf...)
	l.C = append(l.C[:0], o.C...)
	l.Z = append(l.Z[:0], o.Z...)
}

// PhiChanged records that φ_d was written other than by a sweep of the
// topic layer: its cached normalisers (Logs) no longer hold.
func (s *DocState) PhiChanged() { s.Logs.Valid = false }

// NewDocState allocates a state for documents of up to maxLen unique words.
func NewDocState(k, maxLen int) *DocState {
	return &DocState{
		K:         k,
		Gamma:     make([]float64, k),
		ElogTheta: make([]float64, k),
		Phi:       make([]float64, maxLen*k),
		PhiBar:    make([]float64, k),
	}
}

// Bind points the state at document d (index i), growing φ if needed.
func (s *DocState) Bind(i int, d *Doc, answers []Answer) {
	s.Index, s.Doc, s.Answers = i, d, answers
	s.Logs.Valid = false
	if n := d.Len() * s.K; cap(s.Phi) < n {
		s.Phi = make([]float64, n)
	} else {
		s.Phi = s.Phi[:n]
	}
}

// PhiRow returns φ_{d,Words[j]}, a K-vector aliasing Phi.
func (s *DocState) PhiRow(j int) []float64 { return s.Phi[j*s.K : (j+1)*s.K] }

// UpdatePhiBar recomputes φ̄_d from φ. An empty document gets φ̄ = 0.
// It is what code that writes φ calls next, so it also invalidates the
// topic layer's cached normalisers (PhiChanged).
func (s *DocState) UpdatePhiBar() {
	s.Logs.Valid = false
	s.PhiBarOnly()
}

// PhiBarOnly is UpdatePhiBar for the topic layer's sweeps, which keep
// their normalisers (Logs) valid.
func (s *DocState) PhiBarOnly() {
	for k := range s.PhiBar {
		s.PhiBar[k] = 0
	}
	d := s.Doc
	if d.N == 0 {
		return
	}
	for j, n := range d.Counts {
		row := s.PhiRow(j)
		for k, p := range row {
			s.PhiBar[k] += n * p
		}
	}
	inv := 1 / d.N
	for k := range s.PhiBar {
		s.PhiBar[k] *= inv
	}
}
