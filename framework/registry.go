package framework

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Params decodes a component's parameters (its configuration block) into a
// struct whose zero value or documented defaults work. Implementations are
// strict: an unknown key is an error that lists the valid ones.
type Params interface {
	Decode(into any) error
}

// NoParams decodes nothing: the component keeps its defaults.
type NoParams struct{}

// Decode leaves into unchanged.
func (NoParams) Decode(any) error { return nil }

// ParamsFunc adapts a function to Params (handy in tests).
type ParamsFunc func(into any) error

// Decode calls f.
func (f ParamsFunc) Decode(into any) error { return f(into) }

// Factories build components from their parameters.
type (
	LikelihoodFactory func(p Params) (Likelihood, error)
	NoiseFactory      func(p Params) (NoiseModel, error)
	ScheduleFactory   func(p Params) (Schedule, error)
)

// Component kinds, as named in configuration files.
const (
	KindResponse   = "response"
	KindAnnotators = "annotators"
	KindInference  = "inference"
)

// Registry maps component names to factories. Register from init functions
// on Default, database/sql style; tests can build their own with NewRegistry.
type Registry struct {
	mu    sync.RWMutex
	kinds map[string]map[string]any
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{kinds: map[string]map[string]any{
		KindResponse: {}, KindAnnotators: {}, KindInference: {}, KindTarget: {},
	}}
}

// Default is the registry the built-in plug-ins register with.
var Default = NewRegistry()

func (r *Registry) register(kind, name string, f any, isNil bool) {
	if name == "" {
		panic("framework: Register " + kind + " with an empty name")
	}
	if isNil {
		panic("framework: Register " + kind + " " + name + " with a nil factory")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.kinds[kind][name]; dup {
		panic("framework: Register called twice for " + kind + " " + name)
	}
	r.kinds[kind][name] = f
}

func (r *Registry) lookup(kind, name string) (any, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f, ok := r.kinds[kind][name]
	if !ok {
		return nil, fmt.Errorf("%w: %s %q; registered: %s", ErrUnknownComponent, kind, name, listOrNone(r.namesLocked(kind)))
	}
	return f, nil
}

func listOrNone(names []string) string {
	if len(names) == 0 {
		return "(none)"
	}
	return strings.Join(names, ", ")
}

func (r *Registry) namesLocked(kind string) []string {
	names := make([]string, 0, len(r.kinds[kind]))
	for n := range r.kinds[kind] {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Check reports, as ErrUnknownComponent listing the registered names,
// whether name is registered for kind.
func (r *Registry) Check(kind, name string) error {
	_, err := r.lookup(kind, name)
	return err
}

// Names lists the registered names of a kind, sorted.
func (r *Registry) Names(kind string) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.namesLocked(kind)
}

// RegisterLikelihood registers a response likelihood. It panics on an empty
// name, a nil factory or a duplicate.
func (r *Registry) RegisterLikelihood(name string, f LikelihoodFactory) {
	r.register(KindResponse, name, f, f == nil)
}

// RegisterNoise registers an annotator noise model (same rules).
func (r *Registry) RegisterNoise(name string, f NoiseFactory) {
	r.register(KindAnnotators, name, f, f == nil)
}

// RegisterSchedule registers an inference schedule (same rules).
func (r *Registry) RegisterSchedule(name string, f ScheduleFactory) {
	r.register(KindInference, name, f, f == nil)
}

// Likelihood builds the named response; an unknown name is an error listing
// the registered ones.
func (r *Registry) Likelihood(name string, p Params) (Likelihood, error) {
	f, err := r.lookup(KindResponse, name)
	if err != nil {
		return nil, err
	}
	l, err := f.(LikelihoodFactory)(orNone(p))
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", KindResponse, name, err)
	}
	return l, nil
}

// Noise builds the named annotator model.
func (r *Registry) Noise(name string, p Params) (NoiseModel, error) {
	f, err := r.lookup(KindAnnotators, name)
	if err != nil {
		return nil, err
	}
	n, err := f.(NoiseFactory)(orNone(p))
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", KindAnnotators, name, err)
	}
	return n, nil
}

// Schedule builds the named inference schedule.
func (r *Registry) Schedule(name string, p Params) (Schedule, error) {
	f, err := r.lookup(KindInference, name)
	if err != nil {
		return nil, err
	}
	s, err := f.(ScheduleFactory)(orNone(p))
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", KindInference, name, err)
	}
	return s, nil
}

func orNone(p Params) Params {
	if p == nil {
		return NoParams{}
	}
	return p
}

// RegisterLikelihood registers on Default.
func RegisterLikelihood(name string, f LikelihoodFactory) { Default.RegisterLikelihood(name, f) }

// RegisterNoise registers on Default.
func RegisterNoise(name string, f NoiseFactory) { Default.RegisterNoise(name, f) }

// RegisterSchedule registers on Default.
func RegisterSchedule(name string, f ScheduleFactory) { Default.RegisterSchedule(name, f) }
