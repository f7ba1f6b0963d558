#!/usr/bin/env bash
# Mutation check of the tests (issues 13 and 29): applies each mutation below, one
# at a time, to a scratch copy of the repository, runs the tests of the
# package named beside it (without -short: what CI's first pass runs) and
# reports the mutations that no test catches. Exit 1 if one survives, or
# if a mutation no longer applies (the code moved: update its line here).
#
#   bash docs/scripts/mutations.sh            # every mutation
#   bash docs/scripts/mutations.sh glad       # those whose name contains "glad"
#
# Run it when a file of maths changes. Each mutation is one or more Perl
# substitutions (no '|' in them: it separates the fields); a mutation that
# does not compile is reported BROKEN, not caught.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
filter=${1:-}

# name | file | perl substitution | package whose tests must catch it
mutations=(
  'onecoin-point-mean|annotators/onecoin/onecoin.go|s/m\.Acc\[r\] = \(c \+ al - 1\) \/ \(n \+ al \+ be - 2\)/m.Acc[r] = (c + al) \/ (n + al + be)/|./annotators/onecoin'
  'glad-onecoin-start|annotators/glad/glad.go|s/m\.Ability\[r\] = math\.Log\(x\/\(1-x\)\) \/ eb/m.Ability[r] = math.Log(x\/(1-x)) * eb/|./annotators/glad'
  'gaussian-running-weight|likelihoods/gaussian/gaussian.go|s/eff\.axpy\(1\/r\.runW, r\.run\)/eff.axpy(1, r.run)/|./likelihoods/gaussian'
  'ordinalshift-running-weight|annotators/ordinalshift/ordinalshift.go|s/m\.run\.N\[r\*C\*C\+i\]\/m\.runW \+ m\.prior\[i\]/m.run.N[r*C*C+i] + m.prior[i]/|./annotators/ordinalshift'
  'sweepdoc-fallback-term|topics/layer.go|s/s\.logit\[k\] = logf\[k\] \+ lb\[k\]/s.logit[k] = d.ElogTheta[k] + lb[k]/|./topics'
  'consensus-keep-last|models/consensus.go|s/if s < bestSum \{/if s > -bestSum {/|./models'
  'consensus-same-seed|models/consensus.go|s/c\.Seed = r\.Config\.Seed \+ uint64\(i\)/c.Seed = r.Config.Seed + 0*uint64(i)/|./models'
  'consensus-keeps-own-fit|models/consensus.go|s/r\.Model, r\.Schedule, r\.Result = s\.Model, s\.Schedule, s\.Result/r.Schedule, r.Result = s.Schedule, s.Result/|./models'
  'restarts-keep-lowest|models/build.go|s/if res\.ELBO > bestELBO \{/if res.ELBO < bestELBO {/; s/best, bestELBO := r\.Model, math\.Inf\(-1\)/best, bestELBO := r.Model, math.Inf(1)/|./models'
  'restored-phi-counts|models/model.go|s/ds\.Gamma\[k\] \+= n \* p\n/ds.Gamma[k] += p + 0*n\n/|./models'
  'softmax-backtrack-gain|likelihoods/softmax/local.go|s/if n\*\(t\*lin\+ht-hOld\)-\(special\.LogSumExp\(lb\)-lc\.logZ\) >= -tol \{/if (t*lin+ht-hOld)-(special.LogSumExp(lb)-lc.logZ) >= -tol {/|./likelihoods/softmax'
  'svi-rho-without-delay|optim/schedule.go|s/return math\.Pow\(float64\(t\)\+s\.Delay, -s\.Kappa\)/return math.Pow(float64(t), -s.Kappa)/|./optim'
  'svi-scale-nominal-batch|optim/schedule.go|s/Scale: float64\(D\) \/ float64\(len\(batch\)\)/Scale: float64(D) \/ float64(bs)/|./optim'
  'svi-batch-tokens-inverted|optim/schedule.go|s/s\.BatchSize = max\(1, int\(math\.Round\(s\.BatchTokens\*float64\(d\)\/n\)\)\)/s.BatchSize = max(1, int(math.Round(s.BatchTokens\/float64(d)*n)))/|./optim'
  'softmax-blend-ignores-rho|likelihoods/softmax/softmax.go|s/r := step\.Rho\n/r := 1.0 + 0*step.Rho\n/|./likelihoods/softmax'
  'softmax-mstep-ignores-scale|likelihoods/softmax/softmax.go|s/f := s\.objective\(recs, stats\.Cov, step\.Scale, &memo\)/f := s.objective(recs, stats.Cov, 1, \&memo)/|./likelihoods/softmax'
  'ordinal-prior-top-level|likelihoods/ordinal/ordinal.go|s/for c := 0; c < r\.C; c\+\+ \{\n\t\tlp, _, du, dl := level\(c, 0, cuts\)/for c := 0; c < r.C-1; c++ {\n\t\tlp, _, du, dl := level(c, 0, cuts)/|./likelihoods/ordinal'
  'communities-membership-sign|annotators/confusion/communities.go|s/s \+= \(a - 1\) \* e\[i\]/s += (1 - a) * e[i]/|./annotators/confusion'
  'communities-membership-norm|annotators/confusion/communities.go|s/s \+= norms\[k\*C\+c\]/s += 0 * norms[k*C+c]/|./annotators/confusion'
  'communities-entropy-sign|annotators/confusion/confusion.go|s/kl \+= p \* \(math\.Log\(cm\.w\[k\]\) - math\.Log\(p\) \+ nk\)/kl += p * (math.Log(cm.w[k]) + math.Log(p) + nk)/|./annotators/confusion'
  'learned-posterior-rate|annotators/biasprecision/learned.go|s/rate = l\.b0 \+ 0\.5\*math\.Max\(0, sq\[r\]-sy\[r\]\*mu\)/rate = l.b0 + 0.5*math.Max(0, sq[r])/|./annotators/biasprecision'
  'learned-kl-term|annotators/biasprecision/learned.go|s/- x\*mathext\.Digamma\(a\) \+ a\*c\/rate/+ x*mathext.Digamma(a) + a*c\/rate/|./annotators/biasprecision'
  'bias-prior-auto-ignored|annotators/biasprecision/biasprecision.go|s/m\.Kappa = AutoKappa\(m\.Answers\)/m.Kappa = 0 * AutoKappa(m.Answers)/|./annotators/biasprecision'
  'learn-bias-ignored|annotators/biasprecision/learned.go|s/if l\.biasOnly \{/if false \&\& l.biasOnly {/|./annotators/biasprecision'
  'learn-bias-anchor-dropped|annotators/biasprecision/learned.go|s/lam := num \/ den/lam := 0 * num \/ den/|./annotators/biasprecision'
  'prior-auto-never-learns|annotators/biasprecision/biasprecision.go|s/learn = auto \&\& AutoKappa\(m\.Answers\) == 0 \&\&/learn = false \&\& auto \&\& AutoKappa(m.Answers) == 0 \&\&/|./annotators/biasprecision'
  'prior-auto-load-config|annotators/biasprecision/biasprecision.go|s/biasOnly: m\.Config\.learnBiasOnly\(\), gammaOnly/biasOnly: m.Config.Learn == LearnBias, gammaOnly/|./annotators/biasprecision'
  'anchored-inactive-stale|annotators/biasprecision/learned.go|s/\t\t\tcontinue\n\t\t\}\n\t\tl\.kap\[r\], l\.shape\[r\], l\.rate\[r\] = l\.k0, l\.a0, l\.b0\n/\t\t\tcontinue\n\t\t}\n\t\tif false {\n\t\t\tl.kap[r], l.shape[r], l.rate[r] = l.k0, l.a0, l.b0\n\t\t}\n/|./annotators/biasprecision'
  'learn-precision-floor|annotators/biasprecision/learned.go|s/\tif b0 >= floor \{\n\t\treturn a0, b0\n\t\}/\tif true {\n\t\treturn a0, max(b0, floor)\n\t}/|./annotators/biasprecision'
  'learn-precision-rate|annotators/biasprecision/learned.go|s/\tb0 = a0 \/ s1\n/\tb0 = a0 \/ s1 * 1.01\n/|./annotators/biasprecision'
  'learn-precision-kappa-held|annotators/biasprecision/learned.go|s/lo\[2\], hi\[2\] = u\[2\], u\[2\]/_ = u[2]/; s/if bias \&\& !l\.gammaOnly \{/if bias {/|./annotators/biasprecision'
  'learn-bias-anchor-minibatch|annotators/biasprecision/biasprecision.go|s/m\.anchoredStep\(n, sy, sq\)/m.anchoredStep(s.N, s.SY, s.SQ)/|./annotators/biasprecision'
  'learn-bias-kappa-step|annotators/biasprecision/learned.go|s/k0 := min\(max\(cnt\/ss,/k0 := min(max(1.5*cnt\/ss,/|./annotators/biasprecision'
  'sampler-bias-scale|annotators/biasprecision/sampler.go|s/rng\.NormFloat64\(\) \/ math\.Sqrt\(p\.Kappa\*s\.prec\[r\]\)/rng.NormFloat64() \/ math.Sqrt(p.Kappa)/|./annotators/biasprecision'
  'exact-mergeround-part-edge|framework/exact.go|s/\t\t\t\tf\(j, j\*n\/c, \(j\+1\)\*n\/c\)/\t\t\t\tf(j, j*n\/c, max(j*n\/c, (j+1)*n\/c-1))/|./framework'
  'exact-mergeround-others-blocks|framework/exact.go|s/\t\t\tif e\.slot\[b\] == 0 \{\n\t\t\t\te\.newBlock/\t\t\tif false \&\& e.slot[b] == 0 {\n\t\t\t\te.newBlock/|./framework'
  'exact-merge-bad-dropped|framework/exact.go|s/\t\te\.markBad\(i, x\)\n\t\}\n\}/\t\t_, _ = i, x\n\t}\n}/|./framework'
  'exact-mergeround-last-overflow|framework/exact.go|s/k < over\[j\] \{/k > over[j] {/|./framework'
  'zeta-terms-stored-short|topics/parallel.go|s/for _, x := range ring\[j\*size:\]\[:hi-lo\]/for _, x := range ring[j*size:][:hi-lo-1]/|./topics'
  'special-trigamma-term|framework/special/special.go|s/x2\*\(1\.0\/30-x2\*5\.0\/66\)/x2*(1.0\/30+x2*5.0\/66)/|./framework/special'
  'special-digamma-half|framework/special/special.go|s/return v \+ math\.Log\(x\) - 0\.5\/x/return v + math.Log(x) + 0.5\/x/|./framework/special'
  'communities-weights|annotators/confusion/communities.go|s/st\.w\[k\] = max\(s\/float64\(R\), 1e-300\)/st.w[k] = 1 \/ float64(M)/|./annotators/confusion'
  'communities-profile-weight|annotators/confusion/communities.go|s/den \+= p \* \(mathext\.Digamma\(sx\) - psa\)/den += mathext.Digamma(sx) - psa/|./annotators/confusion'
  'communities-floor-ignored|annotators/confusion/communities.go|s/v := max\(nl\/\(den\+b\), floor\)/v := max(nl\/(den+b), 0.01+0*floor)/|./annotators/confusion'
  'communities-diagonal-numerator|annotators/confusion/communities.go|s/nl \+= dl\n/nl += 0 * dl\n/|./annotators/confusion'
  'communities-diagonal-denominator|annotators/confusion/communities.go|s/den \+= dl \/ sa/den += 0 * dl \/ sa/|./annotators/confusion'
  'communities-diagonal-bound|annotators/confusion/communities.go|s/return dl \* f\n/return 0 * dl * f\n/|./annotators/confusion'
  'communities-outsiders-slope|annotators/confusion/communities.go|s/lB\[l\] \+= p \* p \* special\.Trigamma\(x\)/lB[l] += 0 * p * special.Trigamma(x)/|./annotators/confusion'
  'communities-svi-refit-every-update|annotators/confusion/communities.go|s/\tif step\.EpochEnd \{/\tif step.EpochEnd == step.EpochEnd {/|./annotators/confusion'
  'communities-svi-refit-never|annotators/confusion/communities.go|s/\tif step\.EpochEnd \{/\tif false \&\& step.EpochEnd {/|./annotators/confusion'
  'communities-svi-refit-from-minibatch|annotators/confusion/communities.go|s/n\[i\] = max\(0, x-pri\[i\]\)/n[i] = max(0, sc*counts[i]+0*(x-pri[i]))/|./annotators/confusion'
  'communities-svi-refit-removed|annotators/confusion/confusion.go|s/if m\.comm != nil && !step\.Full \{/if false \&\& m.comm != nil \&\& !step.Full {/|./annotators/confusion'
  'svi-epoch-end-never|optim/schedule.go|s/Iter: t, EpochEnd: last\}/Iter: t, EpochEnd: false \&\& last}/|./optim'
  'structured-membership-no-evidence|annotators/confusion/structured.go|s/s \+= norms\[k\*C\+c\] - dirNorm\(buf\)/s += norms[k*C+c] - dirNorm(a)/|./annotators/confusion'
  'structured-elog-counts-dropped|annotators/confusion/structured.go|s/\t\t\t\t\tbuf\[l\] = a\[l\] \+ nh\[l\]/\t\t\t\t\tbuf[l] = a[l] + 0*nh[l]/|./annotators/confusion'
  'structured-kl-data-term|annotators/confusion/structured.go|s/t -= nh\[l\] \* el/t -= 0 * nh[l] * el/|./annotators/confusion'
  'structured-mean-prior-only|annotators/confusion/structured.go|s/dst\[l\] \+= p \* \(a\[l\] \+ nh\[l\]\) \/ s/dst[l] += p * a[l] \/ s/|./annotators/confusion'
  'structured-update-meanfield|annotators/confusion/confusion.go|s/xi, st := m\.fitComm\(s\.Counts, sc\)/xi, st := m.fitCommunities(s.Counts, sc)/|./annotators/confusion'
  'structured-svi-meanfield|annotators/confusion/communities.go|s/xi, st := m\.fitComm\(n, 1\)/xi, st := m.fitCommunities(n, 1)/|./annotators/confusion'
  'structured-stop-after-one-round|annotators/confusion/structured.go|s/if it > 0 && bound-prevBound <= structuredTol\*math\.Abs\(bound\) \{/if it > 0 \&\& bound-prevBound <= 1e300*math.Abs(bound) {/|./annotators/confusion'
  'structured-inner-none|annotators/confusion/structured.go|s/const polyaInner = 1e-8/const polyaInner = 1.5/|./annotators/confusion'
  'structured-polya-den-digamma|annotators/confusion/structured.go|s/den \+= p \* \(mathext\.Digamma\(sa\+sumOf\(x\)\) - psa\)/den += p * (mathext.Digamma(sa+sumOf(x)) - 0*psa)/|./annotators/confusion'
  'structured-empty-row-weight|annotators/confusion/structured.go|s/e\[l\] \+= p \* x\n/e[l] += x\n/|./annotators/confusion'
  'softmax-into-logz|annotators/confusion/communities.go|s/return top \+ math\.Log\(z\)/return top + 0*math.Log(z)/|./annotators/confusion'
  'structured-one-round|annotators/confusion/structured.go|s/const structuredRounds = 5/const structuredRounds = 1/|./annotators/confusion'
  # the Beam driver's second warm-up (a package under beam/ runs in the beam module)
  'beam-rewarm-never-resumes|beam/beamtrain/train.go|s/p\.Pass == 2 \{/p.Pass == -2 {/|beam/beamtrain'
  'beam-rewarm-first-pass-iterations|beam/beamtrain/train.go|s/res\.Iters \+= pass\.iters\(\)/res.Iters += 0/|beam/beamtrain'
  'structured-polya-diagonal|annotators/confusion/structured.go|s/\t\tden \+= dl \/ sa\n\t\tif !\(den\+b > 0\)/\t\tden += 0 * dl \/ sa\n\t\tif !(den+b > 0)/|./annotators/confusion'
  'auto-min-annotators|annotators/confusion/confusion.go|s/len\(seen\) >= AutoMinAnnotators/len(seen) > AutoMinAnnotators/|./annotators/confusion'
  'softmax-resume-other-doc|likelihoods/softmax/local.go|s/if lc\.doc != doc /if false \&\& lc.doc != doc /|./likelihoods/softmax'
  'softmax-docelbo-stale-phi|likelihoods/softmax/local.go|s/if p != was\[k\] \{/if false \&\& p != was[k] {/|./likelihoods/softmax'
  'precond-diag-count|likelihoods/softmax/precond.go|s/H\[\(l\*K\+k\)\*n\+l\*K\+k\] \+= x \/ N/H[(l*K+k)*n+l*K+k] += x + 0*N/|./likelihoods/softmax'
  'precond-rank1-sign|likelihoods/softmax/precond.go|s/blas64\.Syrk\(blas\.Trans, -1,/blas64.Syrk(blas.Trans, 1,/|./likelihoods/softmax'
  'gain-tol-against-step|optim/lbfgs.go|s/if !\(dec > c\.tol\*\(c\.f0-c\.best\)\) \{/if !(dec > c.tol*dec) {/|./optim'
  'gain-tol-predict-unscaled|optim/lbfgs.go|s/c\.predict\(l\.Gradient\) <= c\.tol\*\(c\.f0-c\.best\)/c.predict(l.Gradient) <= c.f0-c.best/|./optim'
  'learned-np-kappa|annotators/biasprecision/biasprecision.go|s/local -= 0\.5 \* n \/ l\.kap\[r\]/local -= 0.5 \/ l.kap[r]/|./annotators/biasprecision'
  'convergence-part-off|models/model.go|s/return m\.weight \* sup, true/return m.weight * sup, false/|./models'
  'learned-hyper-grad|annotators/biasprecision/learned.go|s/gb \+= A\/B - ar\/br/gb += A\/B - A\/br/|./annotators/biasprecision'
  'mm-bohning-sign|likelihoods/softmax/mm.go|s/an := 0\.5 \* \(N\[l\*K\+k\] - colN/an := 0.5 * (N[l*K+k] + colN/|./likelihoods/softmax'
  'mm-scale-dropped|likelihoods/softmax/mm.go|s/v := scale\*\(st\.G\[l\*K\+k\]-an\)/v := (st.G[l*K+k]-an)/|./likelihoods/softmax'
  'mm-gradient-sign|likelihoods/softmax/mm.go|s/w := t\.P\[l\] - x\[l\]/w := x[l] - t.P[l]/|./likelihoods/softmax'
  'exact-carry-dropped|framework/exact.go|s/f\.hi, c = bits\.Add64\(f\.hi, hi, c\)/f.hi, c = bits.Add64(f.hi, hi, 0)/|./framework'
  'restart-not-lda|models/build.go|s/\t\t\t\tm\.setRestartPhase\(true\)\n/\t\t\t\t_ = 0\n/|./models'
  'constant-chance-direction|framework/constant.go|s/flag\[r\] = p < chance/flag[r] = p > chance/|./framework'
  'constant-evidence-kept|annotators/biasprecision/biasprecision.go|s/\t\tif m\.ignores\(int\(a\.Annotator\)\) \{\n\t\t\tcontinue\n\t\t\}\n\t\tp := m\.Prec\[a\.Annotator\]\n\t\tt\.Prec \+= p/\t\tp := m.Prec[a.Annotator]\n\t\tt.Prec += p/|./annotators/biasprecision'
  'constant-residual-precision|annotators/biasprecision/biasprecision.go|s/m\.Prec\[r\] = \(float64\(m\.Answers\[r\]\) \+ nu\) \/ \(nu \* m\.S0\)/m.Prec[r] = (float64(m.Answers[r]) + nu) \/ m.S0/|./annotators/biasprecision'
  'constant-update-not-skipped|annotators/biasprecision/biasprecision.go|s/\t\tif m\.ignores\(r\) \{\n\t\t\tcontinue \/\/ b_r and p_r fixed by Init\n\t\t\}\n//|./annotators/biasprecision'
  'almost-constant-bf-sign|annotators/confusion/nearconst.go|s/m\.cfg\.Omega, m\.startPrior\) > 0\)/m.cfg.Omega, m.startPrior) < 0)/|./annotators/confusion'
  'almost-constant-no-concentration|annotators/confusion/nearconst.go|s/!\(float64\(C\)\*binomialTail\(ni, k, f\[v\]\) < /!(0*binomialTail(ni, k, f[v]) < /|./annotators/confusion'
  'almost-constant-xi-kept|annotators/confusion/confusion.go|s/\t\t\txi\[i\] = prior\[i\]\n//|./annotators/confusion'
  'almost-constant-polya-order|annotators/confusion/nearconst.go|s/return dirNorm\(a\) - dirNorm\(an\)/return dirNorm(an) - dirNorm(a)/|./annotators/confusion'
  'almost-constant-tail-shape|annotators/confusion/nearconst.go|s/float64\(n-k\+1\), p\)/float64(n-k), p)/|./annotators/confusion'
  'almost-constant-largest-share|annotators/confusion/nearconst.go|s/!\(float64\(k\)\/n > top\)/!(float64(k)\/n > 0*top)/|./annotators/confusion'
  'almost-constant-no-classifier-shares|annotators/confusion/nearconst.go|s/f\[c\] = max\(f\[c\], x\)/f[c] = max(f[c], 0*x)/|./annotators/confusion'
  'almost-constant-counts-no-classifier|annotators/confusion/confusion.go|s/tallyLabel\(counts\[len\(m\.xi\)\+C:\], as, c, C\)/_ = as/|./annotators/confusion'
  'rewarm-marks-not-handed|annotators/confusion/confusion.go|s/if v >= 0 \&\& !exact\[r\] \{/if v >= 0 \&\& !exact[r] \&\& false {/|./annotators/confusion'
  'rewarm-second-pass-restarts|models/build.go|s/if r\.marks != nil \{\n\t\treturn 1\n/if r.marks != nil {\n\t\treturn r.Config.Restarts\n/|./models'
  'rewarm-third-pass|annotators/confusion/confusion.go|s/m\.cfg\.Constant == ConstantAlmost \&\& !m\.handed/m.cfg.Constant == ConstantAlmost/|./annotators/confusion'
  'rewarm-start-ignored|models/build.go|s/if marks := rw\.Rewarm\(\); marks != nil \{/if marks := rw.Rewarm(); marks != nil \&\& false {/|./models'
  'rewarm-not-reseeded|models/rewarm.go|s/\tr\.src\.Seed\(r\.Config\.Seed, randStream\)\n//|./models'
  'rewarm-position-offset|models/rewarm.go|s/\tp\.Iter \+= r\.pass\.Iter\n//|./models'
  'rewarm-resume-without-marks|models/checkpoint.go|s/if p := man\.Position; p\.Marks != nil \{/if p := man.Position; p.Marks != nil \&\& false {/|./models'
  'constant-confusion-accumulate|annotators/confusion/confusion.go|s/\t\tif m\.ignores\(a\.Annotator\) \{\n\t\t\tcontinue\n\t\t\}\n\t\ts\.touch\(a\.Annotator\)/\t\ts.touch(a.Annotator)/|./annotators/confusion'
  'hold-target-ignored|models/model.go|s/\tif !m\.hold /\tif m.hold == m.hold /|./models'
  'hold-annotators-updated|models/model.go|s/if t\.noise != nil && !m\.hold \{/if t.noise != nil {/|./models'
  'hold-pilot-sigma-rule|models/build.go|s/if !holds && p\.PilotDone\(\) \{/if p.PilotDone() {/|./models'
  'hold-warm-not-reopened|models/warm.go|s/\tr\.reopen\(\)\n\treturn r\.Model\.syncWeight\(\)/\treturn r.Model.syncWeight()/|./models'
  'sweepquad-no-distance-test|topics/layer.go|s/if !\(math\.Abs\(x-gRef\[k\]\) <= taylorMax\) \{/if false \&\& !(math.Abs(x-gRef[k]) <= taylorMax) {/|./topics'
  'sweepquad-taylor-degree-1|topics/layer.go|s/p := t \* xb\[k\] \* eRef\[k\] \* \(1 \+ e\*\(1\+e\*\(0\.5\+e\*\(1\.0\/6\+e\*\(1\.0\/24\)\)\)\)\)/p := t * xb[k] * eRef[k] * (1 + e)/|./topics'
  'text-l2-mean-weight|likelihoods/softmax/softmax.go|s/g\[l\*K\+k\] = mt\*\(e-m\) \+ mu\*m/g[l*K+k] = mt*(e-m) + mt*m/|./likelihoods/softmax'
  'mm-text-common|likelihoods/softmax/mm.go|s/common\[k\] = \(colR\[k\]\/float64\(C\)-m\)\/mt \+ m\/mu/common[k] = colR[k] \/ (float64(C) * mu)/|./likelihoods/softmax'
  'tune-no-third-run|models/build.go|s/\ts\.tuned = true\n\ts\.iter, s\.epoch = res2\.Iters, res2\.Epochs\n\treturn s\.third\(ctx, nil, res2\)/\treturn res2, nil/|./models'
  'tune-cv-gradient-sign|likelihoods/softmax/tune.go|s/r := p\[c\] - p\[c\]\*d\.q\[c\]\/m/r := p[c]*d.q[c]\/m - p[c]/|./likelihoods/softmax'
  'text-l2-objective-scale|likelihoods/softmax/softmax.go|s/g\[i\] = -\(scale\*g\[i\] - pg\[i\]\) \/ W/g[i] = -(g[i] - pg[i]) \/ W/|./likelihoods/softmax'
  'tune-resume-chooses-again|models/build.go|s/if from != nil && from\.Tuned \{/if from != nil \&\& from.Tuned \&\& false {/|./models'
  'relabel-agreement-direction|annotators/confusion/relabel.go|s/if !\(best > own\*\(1\+1e-9\)\) \{/if best > own*(1+1e-9) {/|./annotators/confusion'
  'relabel-fixed-prior-permuted|annotators/confusion/relabel.go|s/\tif m\.cfg\.Prior == PriorLearned \{\n\t\trows\(m\.alpha\)/\tif true {\n\t\trows(m.alpha)/|./annotators/confusion'
  'relabel-keeps-lower-bound|models/relabel.go|s/kept := twin\.ELBO > runs\[0\]\.ELBO/kept := twin.ELBO < runs[0].ELBO/|./models'
  'relabel-agreement-no-test|annotators/confusion/relabel.go|s/if m\.ByAgreement\(\) && !m\.agreementSignificant\(targets, perm, best-own\) \{/if false \&\& m.ByAgreement() {/|./annotators/confusion'
  'relabel-agreement-no-sqrt|annotators/confusion/relabel.go|s/delta >= relabelZ\*math\.Sqrt\(ss\)/delta >= relabelZ*math.Sqrt(ss)*math.Sqrt(ss)/|./annotators/confusion'
  'relabel-agreement-delta|annotators/confusion/relabel.go|s/agreementSignificant\(targets, perm, best-own\)/agreementSignificant(targets, perm, own-best)/|./annotators/confusion'
  'relabel-agreement-never|annotators/confusion/relabel.go|s/func \(m \*Model\) ByAgreement\(\) bool \{\n\treturn /func (m *Model) ByAgreement() bool {\n\treturn false \&\& /|./annotators/confusion'
  'communities-dominant-off|annotators/confusion/communities.go|s/if top := slices\.Max\(next\); next\[c\] < top \{/if top := slices.Max(next); next[c] < 0*top {/|./annotators/confusion'
  'synth-decoy-oracle|framework/synth/family.go|s/e\[l\] = \(1-mix\)\*row\[l\] \+ mix\*confusable\[c\]\[l\]/e[l] = (1-mix)*row[l] + mix\/float64(spec.C)/|./framework/synth'
  'synth-decoy-answers|framework/synth/family.go|s/\t\t\t\t\ty = decoy\[d\]/\t\t\t\t\ty = rng.IntN(spec.C) + 0*decoy[d]/|./framework/synth'
  'relabel-agreement-fit-kept|models/relabel.go|s/if agreement \{\n\t\tr\.Relabelled = \&Relabelled\{Perm: perm, ELBO: res\.ELBO, TwinELBO: twin\.ELBO, Kept: true, ByAgreement: true\}\n\t\tr\.Model = fits\[1\]/if agreement {\n\t\tr.Relabelled = \&Relabelled{Perm: perm, ELBO: res.ELBO, TwinELBO: twin.ELBO, Kept: true, ByAgreement: true}/|./models'
  'lapse-split-weight|annotators/confusion/confusion.go|s/col\[c\*C\] \+= p \* w\n/col[c*C] += p + 0*w\n/|./annotators/confusion'
  'lapse-entropy|annotators/confusion/lapse.go|s/rest -= w \* math\.Log\(w\)/rest -= 0 * w * math.Log(w)/|./annotators/confusion'
  'lapse-rest-dropped|annotators/confusion/confusion.go|s/return step\.Scale\*\(local\+s\.Lapse\) \+ m\.kl/return step.Scale*local + m.kl/|./annotators/confusion'
  'lapse-uniform-share|annotators/confusion/lapse.go|s/b := math\.Log\(d \/ float64\(m\.nc\)\)/b := math.Log(d)/|./annotators/confusion'
  'lapse-start|annotators/confusion/confusion.go|s/base\[l\] \+= m\.lapsed\(e\)/base[l] += e/|./annotators/confusion'
  'lapse-predictive|annotators/confusion/confusion.go|s/p = \(1-d\)\*p \+ d\/float64\(C\)/p = p + 0*d/|./annotators/confusion'
  'affine-degree2-taylor|topics/layer.go|s/v \*= 1 \+ e\*\(1\+e\*0\.5\)/v *= 1 + e*(1+e*0.25)/|./topics'
  'affine-moved-moments|topics/layer.go|s/t1, q1 = pt, pq/t1, q1 = pt, 0.5*pq/|./topics'
  'newton-bracket-side|topics/layer.go|s/\t\t\tlo = t\n\t\t\} else \{\n\t\t\thi = t/\t\t\thi = t\n\t\t} else {\n\t\t\tlo = t/|./topics'
  'warm-state-normalisers|models/model.go|s/\tds\.Logs\.CopyFrom\(&w\.logsW\)\n//|./models'
  'softmax-phiterm-four-sums|likelihoods/softmax/local.go|s/r1 -= ql \* hl\[1\]/r1 -= ql * hl[0]/|./likelihoods/softmax'
  'softmax-quad-rho-four-sums|likelihoods/softmax/quad.go|s/r2 \+= cl \* e\[2\]/r2 += cl * e[1]/|./likelihoods/softmax'
  'softmax-deferred-logb-kind|likelihoods/softmax/local.go|s/lc\.pendLU = append\(lc\.pendLU, lc\.u\.\.\.\)/lc.pendLU = append(lc.pendLU, lc.lu...)/|./likelihoods/softmax'
  'softmax-deferred-logb-takeslog|likelihoods/softmax/local.go|s/return n != 1 && n != 2/return n != 1/|./likelihoods/softmax'
  'softmax-deferred-logb-lost|likelihoods/softmax/local.go|s/lc\.pendN = append\(lc\.pendN, n\)/lc.pendN = append(lc.pendN, 0*n)/|./likelihoods/softmax'
  'fresh-every-stagger|models/model.go|s/m\.settled\[i\] && \(m\.estep\+i\)%m\.Topics\.FreshEvery != 0/m.settled[i]/|./models'
  'fresh-every-checkpoint|models/checkpoint.go|s/\tif m\.Topics\.FreshEvery > 1 \{\n\t\t\/\/ The thinned/\tif false \&\& m.Topics.FreshEvery > 1 {\n\t\t\/\/ The thinned/|./models'
  'fresh-every-tolerance|models/model.go|s/return d < settledTol\*max\(1, n\)/return d < 1e9/|./models'
  'fresh-every-mini|models/model.go|s/if !m\.mini && m\.Topics\.FreshEvery > 1 \{/if m.Topics.FreshEvery > 1 {/|./models'
  'squarem-step-sign|topics/squarem.go|s/g2\[k\] = x - 2\*st\*r \+ st\*st\*v/g2[k] = x + 2*st*r + st*st*v/|./topics'
  'squarem-step-sign-models|topics/squarem.go|s/g2\[k\] = x - 2\*st\*r \+ st\*st\*v/g2[k] = x + 2*st*r + st*st*v/|./models'
  'squarem-stale-elog|topics/squarem.go|s/\t\t\tElogDirichlet\(d\.ElogTheta, d\.Gamma\)\n//|./topics'
  'squarem-below-alpha|topics/squarem.go|s/if y := x - 2\*st\*r \+ st\*st\*v; !\(y >= alpha\)/if y := x - 2*st*r + st*st*v; !(y >= 0)/|./topics'
  'squarem-warm|topics/layer.go|s/\tif warm == nil \{\n\t\treturn l\.FreshSweeps\(d, s\)/\tif true {\n\t\treturn l.FreshSweeps(d, s)/|./topics'
  'fresh-exact-never|models/model.go|s/\t\tif settledAt\(w\.ds\.Gamma, gw, doc\.N\) \{\n\t\t\tw\.confirmed\+\+/\t\tif false \&\& settledAt(w.ds.Gamma, gw, doc.N) {\n\t\t\tw.confirmed++/|./models'
  'fresh-exact-always-skip|models/model.go|s/\t\tif settledAt\(w\.ds\.Gamma, gw, doc\.N\) \{\n\t\t\tw\.confirmed\+\+/\t\tif settledAt(w.ds.Gamma, gw, doc.N) == settledAt(w.ds.Gamma, gw, doc.N) {\n\t\t\tw.confirmed++/|./models'
  'fresh-exact-keeps-cheap-half|models/model.go|s/\t\t\tm\.resumeWarm\(w, gw, change\)\n\t\t\treturn\n\t\t\}\n\t\tm\.inferFrom\(w, 1, math\.Inf\(1\)\)/\t\t\tm.inferFrom(w, 2, change)\n\t\t\treturn\n\t\t}\n\t\tm.inferFrom(w, 1, math.Inf(1))/|./models'
  'fresh-exact-in-mini-batches|models/model.go|s/restored \&\& !m\.mini \&\& m\.Topics\.FreshExact/restored \&\& m.Topics.FreshExact/|./models'
  'hessian-rows-doc-order|likelihoods/softmax/precond.go|s/for j := 0; j < nb; j\+\+ \{\n\t\t\t\tu := hs\.u/for j := nb - 1; j >= 0; j-- {\n\t\t\t\tu := hs.u/|./likelihoods/softmax'
  'hessian-rows-dealt-once|likelihoods/softmax/precond.go|s/\t\t\tr = 2\*nw - 1 - r\n/\t\t\tr = 2*nw - 1 - r\n\t\t\tcontinue\n/|./likelihoods/softmax'
  'hessian-buffer-not-cleared|likelihoods/softmax/precond.go|s/\t\tclear\(H\[i\*n : \(i\+1\)\*n\]\)\n/\t\t_ = i\n/|./likelihoods/softmax'
  'docs-then-chunks-order|likelihoods/softmax/objective.go|s/for d := lo; d < hi; d\+\+ \{\n\t\t\t\tfor i, x := range terms/for d := hi - 1; d >= lo; d-- {\n\t\t\t\tfor i, x := range terms/|./likelihoods/softmax'
  'prior-rare-never-holds|annotators/confusion/structured.go|s/if k, c := i\/C, i%C; rare\[c\] \{/if k, c := i\/C, i%C; false \&\& rare[c] {/|./annotators/confusion'
  'prior-rare-share-of-all|annotators/confusion/structured.go|s/rare\[c\] = mass\[c\] < m\.cfg\.PriorRare\*total\/float64\(C\)/rare[c] = mass[c] < m.cfg.PriorRare*total/|./annotators/confusion'
  'start-row-no-grading|annotators/confusion/structured.go|s/d := cfg\.Diagonal \* float64\(M-k\) \/ float64\(M\)/d := cfg.Diagonal/|./annotators/confusion'
  'prior-rare-absolute-mass|annotators/confusion/structured.go|s/rare\[c\] = mass\[c\] < m\.cfg\.PriorRare\*total\/float64\(C\)/rare[c] = mass[c] < 20*m.cfg.PriorRare/|./annotators/confusion'
  'forrange-drops-tail|framework/parallel.go|s/chunks := \(n \+ size - 1\) \/ size/chunks := n \/ size/|./framework'
  'structured-parallel-drops-tail|framework/parallel.go|s/chunks := \(n \+ size - 1\) \/ size/chunks := n \/ size/|./annotators/confusion'
  'squarem-not-in-first-phi|models/model.go|s/\t\tt\.FreshSweeps\(ds, w\.scr\)\n/\t\tfor it := 1; it <= t.LocalIters; it++ {\n\t\t\tif t.Sweep(ds, nil, w.scr) < t.LocalTol {\n\t\t\t\tbreak\n\t\t\t}\n\t\t}\n/|./models'
  'fresh-every-phase|models/phase.go|s/\t\tclear\(m\.seen\)\n\t\tclear\(m\.settled\)/\t\tclear(m.seen)/|./models'
)

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
survived=0
ran=0
for m in "${mutations[@]}"; do
  IFS='|' read -r name file subst pkg <<<"$m"
  [[ -n $filter && $name != *"$filter"* ]] && continue
  rm -rf "$scratch/repo"
  mkdir -p "$scratch/repo"
  git ls-files -z | xargs -0 cp --parents -t "$scratch/repo"
  target="$scratch/repo/$file"
  before=$(md5sum <"$target")
  perl -0777 -pi -e "$subst" "$target"
  if [[ $(md5sum <"$target") == "$before" ]]; then
    echo "NOT APPLIED  $name: the pattern no longer matches $file"
    survived=1
    continue
  fi
  ran=$((ran + 1))
  dir=$scratch/repo
  if [[ $pkg == beam/* ]]; then
    dir=$scratch/repo/beam
    pkg=./${pkg#beam/}
  fi
  if ! (cd "$dir" && go vet "$pkg" >/dev/null 2>&1); then
    echo "BROKEN       $name: the mutated $file does not compile (fix its line here)"
    survived=1
    continue
  fi
  if (cd "$dir" && go test -count=1 "$pkg" >/dev/null 2>&1); then
    echo "SURVIVED     $name ($file; go test $pkg passes)"
    survived=1
  else
    echo "caught       $name"
  fi
done
echo "$ran mutations run"
exit $survived
