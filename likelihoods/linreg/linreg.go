package linreg

import (
	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/likelihoods/gaussian"
)

// Name is the name the response is registered under.
const Name = "linreg"

func init() {
	framework.RegisterLikelihood(Name, func(p framework.Params) (framework.Likelihood, error) {
		c := Defaults()
		if p != nil {
			if err := p.Decode(&c); err != nil {
				return nil, err
			}
		}
		return New(c)
	})
}

// Params are the settings of the `response "linreg" { ... }` block: the
// gaussian response's options (sigma2, estimate_sigma2, l2, intercept),
// with the defaults of Defaults.
type Params = gaussian.Params

// Response is the gaussian response made by gaussian.NewFixed: ridge
// linear regression on the point features φ̄_d, x_d | φ̄_d ~ N(η·φ̄_d + b,
// σ²), with FixedFeatures() == true.
type Response = gaussian.Response

// Stats are its sufficient statistics (gaussian.Stats, with Σ_d φ̄_d φ̄_dᵀ
// in place of Σ_d E[z̄_d z̄_dᵀ]).
type Stats = gaussian.Stats

// Defaults returns the documented defaults: σ² = 1 fixed, ridge 0.01, no
// intercept.
func Defaults() Params { return Params{Sigma2: 1, L2: 0.01} }

// New returns a response with the given settings (call Init before use);
// errors wrap framework.ErrBadInput and name the response "linreg".
func New(p Params) (*Response, error) { return gaussian.NewFixed(Name, p) }
