package models

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"slices"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// Snapshot is a run's global parameters in one canonical binary encoding,
// with its SHA-256 (issue 26, docs/design.md "Beyond one machine: the
// seam"): everything a worker needs to rebuild the model and run the
// shard-level E-step (FromSnapshot), and nothing of the documents. Equal
// globals give equal bytes, so the sum names them: a worker loads a
// snapshot once and keeps it while the sum is the same.
type Snapshot struct {
	Data []byte
	Sum  string // hex SHA-256 of Data
}

// snapshotMagic and snapshotVersion head a snapshot.
const (
	snapshotMagic   = "MASLDAY1"
	snapshotVersion = 1
)

type snapWriter struct{ b []byte }

func (w *snapWriter) u64(x uint64)   { w.b = binary.LittleEndian.AppendUint64(w.b, x) }
func (w *snapWriter) bytes(p []byte) { w.u64(uint64(len(p))); w.b = append(w.b, p...) }
func (w *snapWriter) strings(ss []string) {
	w.u64(uint64(len(ss)))
	for _, s := range ss {
		w.bytes([]byte(s))
	}
}

// Snapshot encodes the run's globals: the format version; K, V; the
// phase; whether warm starts resume from φ (Model.ShardPhi); the
// supervision weight (IEEE bits); the configuration's file name and text;
// the class and annotator names; ζ (V×K float64, word-major); the
// response's and the annotators' parameters (framework.Persister, as
// saved in a model directory; empty without). Integers are uint64 little
// endian, byte strings length-prefixed.
func (r *Run) Snapshot() (*Snapshot, error) {
	m := r.Model
	w := &snapWriter{b: []byte(snapshotMagic)}
	w.u64(snapshotVersion)
	w.u64(uint64(m.Topics.K))
	w.u64(uint64(m.Topics.V))
	w.u64(uint64(m.phase))
	flags := uint64(0)
	if m.phiWarm {
		flags |= 1
	}
	w.u64(flags)
	w.u64(math.Float64bits(m.weight))
	w.bytes([]byte(r.Config.SourceName))
	w.bytes(r.Config.Source)
	w.strings(r.Classes)
	w.strings(r.Annotators)
	w.u64(uint64(len(m.Topics.Zeta)))
	for _, z := range m.Topics.Zeta {
		w.u64(math.Float64bits(z))
	}
	for _, c := range []struct {
		what string
		comp any
	}{{"response", m.Response}, {"annotators", m.Noise}} {
		var buf bytes.Buffer
		if p, ok := c.comp.(framework.Persister); ok && c.comp != nil {
			if err := p.SaveParams(&buf); err != nil {
				return nil, fmt.Errorf("snapshot: %s: %w", c.what, err)
			}
		}
		w.bytes(buf.Bytes())
	}
	sum := sha256.Sum256(w.b)
	return &Snapshot{Data: w.b, Sum: hex.EncodeToString(sum[:])}, nil
}

type snapReader struct {
	b   []byte
	err error
}

func (r *snapReader) u64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = fmt.Errorf("%w: snapshot: truncated", framework.ErrBadInput)
		return 0
	}
	x := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return x
}

func (r *snapReader) bytes() []byte {
	n := r.u64()
	if r.err != nil || uint64(len(r.b)) < n {
		r.err = fmt.Errorf("%w: snapshot: truncated", framework.ErrBadInput)
		return nil
	}
	p := r.b[:n]
	r.b = r.b[n:]
	return p
}

func (r *snapReader) strings() []string {
	n := r.u64()
	if r.err != nil || n > uint64(len(r.b))/8 {
		r.err = fmt.Errorf("%w: snapshot: truncated", framework.ErrBadInput)
		return nil
	}
	var ss []string
	for range n {
		ss = append(ss, string(r.bytes()))
	}
	return ss
}

// snapshotGlobals is a decoded snapshot.
type snapshotGlobals struct {
	K, V       int
	phase      framework.Phase
	phiWarm    bool
	weight     float64
	name       string
	src        []byte
	classes    []string
	annotators []string
	zeta       []float64
	params     [2][]byte // response, annotators
}

// decodeSnapshot checks the sum (when not empty) and decodes data.
func decodeSnapshot(data []byte, sum string) (*snapshotGlobals, error) {
	if sum != "" {
		got := sha256.Sum256(data)
		if g := hex.EncodeToString(got[:]); g != sum {
			return nil, fmt.Errorf("%w: snapshot: SHA-256 %s, want %s", framework.ErrBadInput, g, sum)
		}
	}
	if len(data) < len(snapshotMagic) || string(data[:len(snapshotMagic)]) != snapshotMagic {
		return nil, fmt.Errorf("%w: not a model snapshot (want the magic %q)", framework.ErrBadInput, snapshotMagic)
	}
	r := &snapReader{b: data[len(snapshotMagic):]}
	if v := r.u64(); r.err == nil && v != snapshotVersion {
		return nil, fmt.Errorf("%w: snapshot: format version %d; this build reads version %d", framework.ErrBadInput, v, snapshotVersion)
	}
	K, V := r.u64(), r.u64()
	g := &snapshotGlobals{phase: framework.Phase(r.u64())}
	g.phiWarm = r.u64()&1 != 0
	g.weight = math.Float64frombits(r.u64())
	g.name, g.src = string(r.bytes()), r.bytes()
	g.classes, g.annotators = r.strings(), r.strings()
	nz := r.u64()
	if r.err != nil {
		return nil, r.err
	}
	if K < 1 || V < 1 || K > 1<<20 || V > 1<<32 || nz != K*V || uint64(len(r.b)) < 8*nz {
		return nil, fmt.Errorf("%w: snapshot: k = %d, v = %d with %d topic numbers in %d bytes", framework.ErrBadInput, K, V, nz, len(r.b))
	}
	g.K, g.V = int(K), int(V)
	g.zeta = make([]float64, nz)
	for i := range g.zeta {
		g.zeta[i] = math.Float64frombits(r.u64())
	}
	g.params[0], g.params[1] = r.bytes(), r.bytes()
	if r.err != nil {
		return nil, r.err
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: snapshot: %d bytes after the end", framework.ErrBadInput, len(r.b))
	}
	if g.phase != framework.PhaseJoint && g.phase != framework.PhaseTopics && g.phase != framework.PhaseResponse {
		return nil, fmt.Errorf("%w: snapshot: phase %d", framework.ErrBadInput, g.phase)
	}
	return g, nil
}

// loadParams gives the components their parameters from the snapshot.
func (g *snapshotGlobals) loadParams(resp, noise any) error {
	for i, c := range []struct {
		what string
		comp any
	}{{"response", resp}, {"annotators", noise}} {
		params := g.params[i]
		p, ok := c.comp.(framework.Persister)
		if !ok || c.comp == nil {
			if len(params) > 0 {
				return fmt.Errorf("%w: snapshot: %s parameters for a model without them", framework.ErrBadInput, c.what)
			}
			continue
		}
		if err := p.LoadParams(bytes.NewReader(params)); err != nil {
			return fmt.Errorf("snapshot: %s: %w", c.what, err)
		}
	}
	return nil
}

// FromSnapshot rebuilds a model from a snapshot through the registry
// (nil: framework.Default), without a training corpus: what an engine's
// worker runs Model.ShardEStep on. sum, when not empty, is the snapshot's
// expected SHA-256 (hex), checked first. Errors wrap framework.ErrBadInput
// (another magic or version, a wrong sum, a truncated or inconsistent
// encoding) or come from rebuilding the components.
func FromSnapshot(data []byte, sum string, reg *framework.Registry) (*Model, error) {
	if reg == nil {
		reg = framework.Default
	}
	g, err := decodeSnapshot(data, sum)
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(append([]byte(nil), g.src...), g.name)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if cfg.Topics.K != g.K {
		return nil, fmt.Errorf("%w: snapshot: k = %d but its configuration says %d", framework.ErrBadInput, g.K, cfg.Topics.K)
	}
	layer, err := topics.New(cfg.Topics, g.V)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	copy(layer.Zeta, g.zeta)
	layer.Refresh()
	setup := &framework.Setup{K: g.K, V: g.V, Classes: g.classes, Annotators: g.annotators, Rand: NewRand(cfg.Seed)}
	resp, noise, _, err := components(cfg, reg, setup)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if err := g.loadParams(resp, noise); err != nil {
		return nil, err
	}
	m, err := NewModel(layer, resp, noise, nil, cfg.Workers)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	m.phase, m.phiWarm = g.phase, g.phiWarm
	if math.Float64bits(m.weight) != math.Float64bits(g.weight) {
		return nil, fmt.Errorf("%w: snapshot: the rebuilt response's supervision weight is %v, the snapshot's %v", framework.ErrBadInput, m.weight, g.weight)
	}
	return m, nil
}

// LoadSnapshot sets the run's globals from a snapshot of a run built the
// same way (configuration text, dimensions, class and annotator names,
// phase): ζ and the components' parameters, keeping what Init derived from
// the training corpus (an engine's driver resuming from its checkpoint).
// Errors wrap framework.ErrBadInput and name the difference.
func (r *Run) LoadSnapshot(data []byte, sum string) error {
	g, err := decodeSnapshot(data, sum)
	if err != nil {
		return err
	}
	m := r.Model
	switch {
	case !bytes.Equal(g.src, r.Config.Source):
		return fmt.Errorf("%w: snapshot: another configuration than the run's", framework.ErrBadInput)
	case g.K != m.Topics.K || g.V != m.Topics.V:
		return fmt.Errorf("%w: snapshot: k = %d, v = %d; the run has k = %d, v = %d", framework.ErrBadInput, g.K, g.V, m.Topics.K, m.Topics.V)
	case !slices.Equal(g.classes, r.Classes) || !slices.Equal(g.annotators, r.Annotators):
		return fmt.Errorf("%w: snapshot: other class or annotator names than the run's", framework.ErrBadInput)
	case g.phase != m.phase:
		return fmt.Errorf("%w: snapshot: phase %v, the run is in %v", framework.ErrBadInput, g.phase, m.phase)
	}
	if err := g.loadParams(m.Response, m.Noise); err != nil {
		return err
	}
	copy(m.Topics.Zeta, g.zeta)
	m.Topics.Refresh()
	if err := m.syncWeight(); err != nil {
		return err
	}
	if math.Float64bits(m.weight) != math.Float64bits(g.weight) {
		return fmt.Errorf("%w: snapshot: the response's supervision weight is %v after loading, the snapshot's %v", framework.ErrBadInput, m.weight, g.weight)
	}
	return nil
}
