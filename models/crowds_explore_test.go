package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/maslda/maslda/annotators/confusion"
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/synth"
	_ "github.com/maslda/maslda/likelihoods/classprior"
	"github.com/maslda/maslda/models"
)

// crowdRun is one fitted configuration on a planted crowd problem.
type crowdRun struct {
	truth, heldout float64
	iters          int
	elbo           float64
	trace          []float64 // truth accuracy after each update (from the stored targets)
	stages         []int
}

// fitCrowd trains src on cr's training documents and scores the inferred
// truth (posterior pass) and the held-out predictions. With oracle, the
// confusion matrices are held at the planted ones (reset after every
// update): EM that knows the annotators.
func fitCrowd(t testing.TB, cr *synth.Crowd, src string, oracle, heldout bool) crowdRun {
	return fitCrowdMode(t, cr, src, map[bool]string{true: "fixed", false: ""}[oracle], heldout)
}

// fitCrowdMode is fitCrowd with the oracle's mode: "" none, "fixed" the
// planted matrices held fixed, "start" EM started from the planted
// matrices (ξ = 1 + n_r·π_r, n_r annotator r's answers, as one M-step from
// the true labels would give) and then free.
func fitCrowdMode(t testing.TB, cr *synth.Crowd, src, mode string, heldout bool) crowdRun {
	t.Helper()
	out, err := fitCrowdErr(cr, src, mode, heldout)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// fitCrowdErr is fitCrowdMode returning its error (callable from any
// goroutine).
func fitCrowdErr(cr *synth.Crowd, src, mode string, heldout bool) (crowdRun, error) {
	oracle := mode == "fixed"
	var out crowdRun
	cfg, err := models.ParseConfig([]byte(src), "c.hcl")
	if err != nil {
		return out, err
	}
	r, err := models.Build(cfg, nil, cr.Train)
	if err != nil {
		return out, err
	}
	ctx := context.Background()
	cm, _ := r.Model.Noise.(*confusion.Model)
	if mode != "" && cm == nil {
		return out, fmt.Errorf("oracle mode %q needs confusion annotators", mode)
	}
	nAns := make([]float64, len(cr.Pis))
	for _, as := range cr.Train.Answers.ByDoc {
		for _, a := range as {
			nAns[a.Annotator]++
		}
	}
	setOracle := func() error {
		xi := make([][][]float64, len(cr.Pis))
		for q, pi := range cr.Pis {
			if mode == "start" {
				xi[q] = make([][]float64, len(pi))
				for c := range pi {
					xi[q][c] = make([]float64, len(pi[c]))
					for l := range pi[c] {
						xi[q][c][l] = 1 + nAns[q]/float64(len(pi))*pi[c][l]
					}
				}
				continue
			}
			xi[q] = make([][]float64, len(pi))
			for c := range pi {
				xi[q][c] = make([]float64, len(pi[c]))
				for l := range pi[c] {
					xi[q][c][l] = 1e6*pi[c][l] + 1e-9
				}
			}
		}
		return cm.SetXi(xi)
	}
	if mode != "" {
		if err := setOracle(); err != nil {
			return out, err
		}
	}
	res, err := r.Fit(ctx, func(p framework.Progress) error {
		if oracle {
			if err := setOracle(); err != nil {
				return err
			}
		}
		right := 0
		for d, c := range cr.Truth {
			if tg := r.Model.Target(d); tg != nil && tg.(*framework.Categorical).Argmax() == c {
				right++
			}
		}
		out.trace = append(out.trace, float64(right)/float64(len(cr.Truth)))
		out.stages = append(out.stages, p.Stage)
		return nil
	})
	if err != nil {
		return out, err
	}
	out.iters, out.elbo = res.Iters, res.ELBO
	post, err := r.Model.Posterior(ctx)
	if err != nil {
		return out, err
	}
	out.truth = accuracyOf(post, cr.Truth)
	if heldout {
		pred, err := r.Model.Predict(ctx, cr.Test)
		if err != nil {
			return out, err
		}
		out.heldout = accuracyOf(pred, cr.TestTruth)
	}
	return out, nil
}

// expectedMV is the expected accuracy of majority vote with ties broken
// uniformly at random (synth.Crowd.MajorityVote).
func expectedMV(cr *synth.Crowd) float64 { return cr.MajorityVote() }

// crowdConfigs are the configurations the harness compares; MASLDA_ANN
// replaces the annotators block of both MA-sLDAc ones, MASLDA_RESP their
// response block (and the oracle's), MASLDA_TOPICS adds lines to the topics
// block, and MASLDA_EXTRA is
// appended to them (to measure a variant).
func crowdConfigs(spec synth.CrowdSpec, seed uint64) (batch, svi, oracle, ds string) {
	k := spec.K
	if s := os.Getenv("MASLDA_K"); s != "" {
		k, _ = strconv.Atoi(s)
	}
	resp := "response \"softmax\" {}"
	if r := os.Getenv("MASLDA_RESP"); r != "" { // e.g. response "softmax" { bound = "quadratic" }
		resp = r
	}
	topicsExtra := os.Getenv("MASLDA_TOPICS") // e.g. local_tol = 0.01
	head := fmt.Sprintf("seed = %d\ntopics {\n k = %d\n %s\n}\n%s\n", seed, k, topicsExtra, resp)
	extra := os.Getenv("MASLDA_EXTRA")
	ann := "annotators \"confusion\" {}\n"
	if a := os.Getenv("MASLDA_ANN"); a != "" {
		ann = a + "\n"
	}
	inf := "max_iters = 60"
	if b := os.Getenv("MASLDA_BATCH"); b != "" { // e.g. "max_iters = 300\n tol = 0"
		inf = b
	}
	batch = head + ann + "inference \"batch\" {\n " + inf + "\n}\n" + extra
	svi = head + ann + fmt.Sprintf("inference \"svi\" {\n batch_size = %d\n epochs = 20\n}\n", max(spec.D/5, 1)) + extra
	oracle = head + "annotators \"confusion\" {\n init = \"uniform\"\n}\ninference \"batch\" {\n " + inf + "\n}\n"
	ds = fmt.Sprintf("seed = %d\nmodel = \"dawid-skene\"\n", seed)
	return
}

// TestExploreCrowds is the harness of the planted generator family
// (synth.CrowdFamily; docs/results-classification.md, "Planted
// generators"): per generator and seed, majority vote, Dawid–Skene,
// MA-sLDAc batch and SVI (truth and held-out), EM with the planted
// confusion matrices held fixed ("EM oracle"), the closed-form oracles of
// synth (crowd: planted matrices and class prior; full: planted matrices
// and planted softmax on the planted z̄), and the share of the gap from
// majority vote to the EM oracle's truth that MA-sLDAc closes.
//
//	MASLDA_CROWDS=all MASLDA_SEEDS=1,2,3 go test ./models -run ExploreCrowds -v -timeout 0
//
// MASLDA_CROWDS takes a comma-separated list of generator names (or
// "all"); MASLDA_SEEDS a list of seeds (default 1,2,3); MASLDA_SKIP=svi,oracle
// leaves runs out; MASLDA_TRACE=1 prints the batch run's truth after every
// iteration; MASLDA_K sets the model's number of topics (default the
// generator's); MASLDA_ANN and MASLDA_EXTRA change the MA-sLDAc
// configurations (crowdConfigs).
func TestExploreCrowds(t *testing.T) {
	want := os.Getenv("MASLDA_CROWDS")
	if want == "" {
		t.Skip("exploration only: set MASLDA_CROWDS=all (or a list of generator names) to run")
	}
	seeds := []uint64{1, 2, 3}
	if s := os.Getenv("MASLDA_SEEDS"); s != "" {
		seeds = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseUint(f, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, n)
		}
	}
	skip := strings.Split(os.Getenv("MASLDA_SKIP"), ",")
	fmt.Printf("| generator | seed | MV | DS | crowd oracle | full oracle | EM oracle truth / held-out | batch truth / held-out | SVI truth / held-out | gap closed batch / SVI | Bayes held-out |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, spec := range synth.CrowdFamily() {
		if want != "all" && !slices.Contains(strings.Split(want, ","), spec.Name) {
			continue
		}
		for _, seed := range seeds {
			cr, err := synth.NewCrowd(spec, rand.New(rand.NewPCG(seed, 12)))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			bc, sc, oc, dc := crowdConfigs(spec, seed)
			mv := expectedMV(cr)
			ds := fitCrowd(t, cr, dc, false, false)
			b := fitCrowd(t, cr, bc, false, true)
			if os.Getenv("MASLDA_TRACE") != "" {
				fmt.Printf("trace %s seed %d: %.3f stages %v ELBO %.7g\n", spec.Name, seed, b.trace, b.stages, b.elbo)
			}
			var s, o crowdRun
			if !slices.Contains(skip, "svi") {
				s = fitCrowd(t, cr, sc, false, true)
			}
			if !slices.Contains(skip, "oracle") {
				o = fitCrowd(t, cr, oc, true, true)
			}
			if os.Getenv("MASLDA_FREE") != "" {
				f := fitCrowdMode(t, cr, oc, "start", true)
				fmt.Printf("free from the planted matrices %s seed %d: truth %.3f held-out %.3f ELBO %.7g (default batch: %.3f / %.3f ELBO %.7g); trace %.3f\n", spec.Name, seed, f.truth, f.heldout, f.elbo, b.truth, b.heldout, b.elbo, f.trace)
			}
			gap := func(x float64) float64 { return (x - mv) / (o.truth - mv) }
			fmt.Printf("| %s | %d | %.3f | %.3f | %.3f | %.3f | %.3f / %.3f | %.3f / %.3f | %.3f / %.3f | %.2f / %.2f | %.3f |\n",
				spec.Name, seed, mv, ds.truth, cr.OracleAccuracy(synth.OracleCrowd), cr.OracleAccuracy(synth.OracleFull),
				o.truth, o.heldout, b.truth, b.heldout, s.truth, s.heldout, gap(b.truth), gap(s.truth), cr.BayesHeldOut())
			t.Logf("%s seed %d: %.0f s; batch %d iterations", spec.Name, seed, time.Since(start).Seconds(), b.iters)
		}
	}
}
