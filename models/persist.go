package models

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// Format identifies a saved model directory; FormatVersion is bumped on any
// incompatible change.
const (
	Format        = "maslda-model"
	FormatVersion = 2
)

// Manifest is model.json: what is needed to rebuild a trained model.
type Manifest struct {
	Format         string   `json:"format"`
	Version        int      `json:"version"`
	K              int      `json:"k"`
	V              int      `json:"v"`
	TrainDocs      int      `json:"train_docs"`
	Config         string   `json:"config"` // file name of the saved configuration
	Response       string   `json:"response,omitempty"`
	Annotators     string   `json:"annotators,omitempty"`
	Inference      string   `json:"inference"`
	Classes        []string `json:"classes,omitempty"`
	AnnotatorNames []string `json:"annotator_names,omitempty"`
	Vocab          bool     `json:"vocab"`
	Iters          int      `json:"iterations"`
	ELBO           float64  `json:"elbo"`
	// HeldOutAnswers is the held-out answers criterion of a run trained
	// with a share of its answers held out (maslda train
	// --holdout-answers); nil otherwise.
	HeldOutAnswers *HeldOutAnswers `json:"heldout_answers,omitempty"`
	// Selection is how the configuration's select block chose this
	// model's candidate (Choose); nil without one.
	Selection *Choice `json:"selection,omitempty"`
	// Consensus is how a run with consensus = N ≥ 2 chose this model's
	// fit among its seeds' (Run.Fit); nil without.
	Consensus *Consensus `json:"consensus,omitempty"`
	// Alpha is θ's prior α the topics were trained with. Models saved
	// before it was recorded (when `model = "ma-sldar"` began to mean
	// α = 1) have none: Load then takes the α their configuration gave
	// then (Config.fileAlpha), so that their predictions do not change.
	Alpha *float64 `json:"alpha,omitempty"`
	// Files maps every other file of the directory to its SHA-256 (hex);
	// Load refuses a file whose content differs. Version 1 had none.
	Files map[string]string `json:"files,omitempty"`
}

// Saved is a model loaded from a directory.
type Saved struct {
	Manifest Manifest
	Config   *Config
	Model    *Model
	Vocab    []string // nil when the model was trained without one
}

// Classes mirrors Run's field.
func (s *Saved) Classes() []string { return s.Manifest.Classes }

const zetaMagic = "MASLDAz1"

// WriteFiles writes the model's files into dir (which must exist): the
// configuration, vocab.txt (when the corpus has a vocabulary), topics.bin
// (ζ), the plug-ins' parameters and, last, model.json with the SHA-256 of
// every regular file then in dir (so files written into dir before, such
// as history.csv, are covered too). Use SaveAtomic for a crash-safe save.
func (r *Run) WriteFiles(dir string) error {
	m := r.Model
	cfgName := "config.hcl"
	if strings.EqualFold(filepath.Ext(r.Config.SourceName), ".json") {
		cfgName = "config.json"
	}
	man := Manifest{Format: Format, Version: FormatVersion, K: m.Topics.K, V: m.Topics.V, TrainDocs: m.NumDocs(),
		Config: cfgName, Inference: r.Config.Inference.Name, Classes: r.Classes, AnnotatorNames: r.Annotators}
	if r.Config.Response != nil {
		man.Response = r.Config.Response.Name
	}
	if r.Config.Annotators != nil {
		man.Annotators = r.Config.Annotators.Name
	}
	alpha := r.Config.Topics.Alpha
	man.Alpha = &alpha
	man.HeldOutAnswers = r.HeldOut
	man.Selection = r.Choice
	man.Consensus = r.Consensus
	if r.Result != nil {
		man.Iters, man.ELBO = r.Result.Iters, r.Result.ELBO
		if math.IsNaN(man.ELBO) || math.IsInf(man.ELBO, 0) {
			man.ELBO = 0
		}
	}
	c := m.Corpus()
	if c != nil && c.Vocab != nil {
		man.Vocab = true
		if err := writeFile(filepath.Join(dir, "vocab.txt"), func(w io.Writer) error {
			for _, t := range c.Vocab {
				if _, err := io.WriteString(w, t+"\n"); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	if err := writeFile(filepath.Join(dir, cfgName), func(w io.Writer) error {
		_, err := w.Write(r.Config.Source)
		return err
	}); err != nil {
		return err
	}
	if err := writeFile(filepath.Join(dir, "topics.bin"), func(w io.Writer) error { return writeZeta(w, m.Topics) }); err != nil {
		return err
	}
	for name, comp := range map[string]any{"response.params": m.Response, "annotators.params": m.Noise} {
		if p, ok := comp.(framework.Persister); ok {
			if err := writeFile(filepath.Join(dir, name), p.SaveParams); err != nil {
				return err
			}
		}
	}
	sums, err := checksums(dir)
	if err != nil {
		return err
	}
	man.Files = sums
	return writeFile(filepath.Join(dir, "model.json"), func(w io.Writer) error {
		e := json.NewEncoder(w)
		e.SetIndent("", "  ")
		return e.Encode(man)
	})
}

func writeFile(path string, fill func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := fill(bw); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeZeta(w io.Writer, l *topics.Layer) error {
	if _, err := io.WriteString(w, zetaMagic); err != nil {
		return err
	}
	if err := binary.Write(w, binary.LittleEndian, [2]uint64{uint64(l.K), uint64(l.V)}); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, l.Zeta)
}

func readZeta(r io.Reader, name string, l *topics.Layer) error {
	magic := make([]byte, len(zetaMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != zetaMagic {
		return framework.Errorf(name, 0, "not a maslda topics file (bad header)")
	}
	var dims [2]uint64
	if err := binary.Read(r, binary.LittleEndian, &dims); err != nil {
		return framework.Errorf(name, 0, "truncated header: %v", err)
	}
	if dims[0] != uint64(l.K) || dims[1] != uint64(l.V) {
		return framework.Errorf(name, 0, "topics are %d×%d, model.json says %d×%d", dims[0], dims[1], l.K, l.V)
	}
	if err := binary.Read(r, binary.LittleEndian, l.Zeta); err != nil {
		return framework.Errorf(name, 0, "truncated topics: %v", err)
	}
	for i, z := range l.Zeta {
		if !(z > 0) || math.IsInf(z, 0) {
			return framework.Errorf(name, 0, "topic parameter %d is %v, want a positive finite number", i, z)
		}
	}
	var extra [1]byte
	if n, _ := r.Read(extra[:]); n != 0 {
		return framework.Errorf(name, 0, "unexpected data after the topics")
	}
	l.Refresh()
	return nil
}

// SaveAtomic saves the model into dir so that dir is never half-written:
// extra (may be nil) adds further files (history, reports) to the same
// directory, before the model's files. The files are written to a staging
// sibling directory which then replaces dir (PublishDir); dir may be
// absent, empty or a saved model (IsModelDir), anything else is refused.
func (r *Run) SaveAtomic(dir string, extra func(tmp string) error) error {
	return PublishDir(dir, IsModelDir, func(tmp string) error {
		if extra != nil {
			if err := extra(tmp); err != nil {
				return err
			}
		}
		return r.WriteFiles(tmp)
	})
}

// checksums returns the SHA-256 of every regular file in dir but
// model.json.
func checksums(dir string) (map[string]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	sums := map[string]string{}
	for _, e := range ents {
		if !e.Type().IsRegular() || e.Name() == "model.json" {
			continue
		}
		sum, err := fileSHA256(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		sums[e.Name()] = sum
	}
	return sums, nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// v1Files are the files a version-1 model directory may hold.
var v1Files = map[string]bool{"model.json": true, "config.hcl": true, "config.json": true, "vocab.txt": true, "topics.bin": true,
	"response.params": true, "annotators.params": true, "history.csv": true, "posterior.csv": true, "annotators.csv": true, "annotators.json": true}

// IsModelDir is the Owner of saved models: dir holds a model.json of this
// format and nothing that the model did not write (every entry is listed
// in model.json's files; in a version-1 model, one of the files maslda
// train writes).
func IsModelDir(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, "model.json"))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return errors.New("no model.json: not a maslda model")
		}
		return err
	}
	var man Manifest
	if err := json.Unmarshal(raw, &man); err != nil || man.Format != Format {
		return errors.New("its model.json is not a maslda model's")
	}
	return onlyListed(dir, "model", func(name string) bool {
		if name == "model.json" {
			return true
		}
		if man.Version == 1 {
			return v1Files[name]
		}
		_, ok := man.Files[name]
		return ok
	})
}

// onlyListed checks that every entry of dir is a regular file that listed
// accepts: the second half of the Owner checks of saved models and
// checkpoints (what, "model" or "checkpoint", names the kind in errors).
func onlyListed(dir, what string, listed func(name string) bool) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if !listed(e.Name()) || !e.Type().IsRegular() {
			return fmt.Errorf("a maslda %s, but it also holds %s, which the %s does not list", what, e.Name(), what)
		}
	}
	return nil
}

// kindOf names what a manifest describes, for messages.
func kindOf(manifest string) string {
	if manifest == "checkpoint.json" {
		return "checkpoint"
	}
	return "model"
}

// verifyFiles checks every file listed in dir's manifest (model.json or
// checkpoint.json, named in the errors) against its SHA-256.
func verifyFiles(dir, manifest string, sums map[string]string) error {
	names := make([]string, 0, len(sums))
	for name := range sums {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		path := filepath.Join(dir, name)
		if name != filepath.Base(name) || name == "." || name == ".." {
			return framework.Errorf(filepath.Join(dir, manifest), 0, "files: %q is not a file name", name)
		}
		got, err := fileSHA256(path)
		if errors.Is(err, os.ErrNotExist) {
			return framework.Errorf(path, 0, "missing: %s lists it (the %s directory is incomplete)", manifest, kindOf(manifest))
		}
		if err != nil {
			return err
		}
		if got != sums[name] {
			return framework.Errorf(path, 0, "SHA-256 %s but %s records %s: the file was changed or replaced after the %s was saved", got, manifest, sums[name], kindOf(manifest))
		}
	}
	return nil
}

// ReadManifest reads and checks dir's model.json: its format and version,
// and the SHA-256 of every file it lists. It is the first step of Load,
// for callers that need the manifest (the classes, the annotators) without
// rebuilding the model.
func ReadManifest(dir string) (*Manifest, error) {
	mpath := filepath.Join(dir, "model.json")
	raw, err := os.ReadFile(mpath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s is not a trained model (no model.json)", framework.ErrBadInput, dir)
		}
		return nil, err
	}
	var man Manifest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&man); err != nil {
		return nil, framework.Errorf(mpath, 0, "%v", err)
	}
	if man.Format != Format {
		return nil, framework.Errorf(mpath, 0, "format %q, want %q", man.Format, Format)
	}
	if man.Version != FormatVersion && man.Version != 1 {
		return nil, framework.Errorf(mpath, 0, "format version %d; this maslda reads versions 1 and %d", man.Version, FormatVersion)
	}
	if man.Version >= 2 && len(man.Files) == 0 {
		return nil, framework.Errorf(mpath, 0, "no \"files\" checksums (format version %d records one per file)", man.Version)
	}
	if err := verifyFiles(dir, "model.json", man.Files); err != nil {
		return nil, err
	}
	return &man, nil
}

// Load rebuilds a saved model through the registry (nil: framework.Default).
func Load(dir string, reg *framework.Registry) (*Saved, error) {
	if reg == nil {
		reg = framework.Default
	}
	mpath := filepath.Join(dir, "model.json")
	pman, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	man := *pman
	if man.K < 1 || man.V < 1 {
		return nil, framework.Errorf(mpath, 0, "dimensions k=%d v=%d, want ≥ 1", man.K, man.V)
	}
	cfg, err := LoadConfig(filepath.Join(dir, man.Config))
	if err != nil {
		return nil, err
	}
	if man.Alpha != nil {
		if a := *man.Alpha; !(a > 0) || math.IsInf(a, 0) {
			return nil, framework.Errorf(mpath, 0, "alpha = %v, want a positive number", a)
		}
		cfg.Topics.Alpha = *man.Alpha
	} else {
		cfg.Topics.Alpha = cfg.fileAlpha
	}
	if cfg.Topics.K != man.K {
		return nil, framework.Errorf(mpath, 0, "k = %d but the saved configuration says %d", man.K, cfg.Topics.K)
	}
	if err := CheckMemory(runMemory(cfg, nil, man.V, nil)); err != nil {
		return nil, fmt.Errorf("%s: v = %d, k = %d: %w", mpath, man.V, man.K, err)
	}
	// topics.bin holds exactly K·V values: check its size before allocating
	// the topics, so that a model.json whose k or v disagrees with it fails
	// at once instead of after allocating K·V of memory.
	zpath := filepath.Join(dir, "topics.bin")
	zi, err := os.Stat(zpath)
	if err != nil {
		return nil, err
	}
	if want := float64(len(zetaMagic)) + 16 + 8*float64(man.K)*float64(man.V); float64(zi.Size()) != want {
		return nil, framework.Errorf(zpath, 0, "%d bytes, but a model with k = %d and v = %d (model.json) has %.0f", zi.Size(), man.K, man.V, want)
	}
	layer, err := topics.New(cfg.Topics, man.V)
	if err != nil {
		return nil, err
	}
	zf, err := os.Open(zpath)
	if err != nil {
		return nil, err
	}
	err = readZeta(bufio.NewReader(zf), zpath, layer)
	zf.Close()
	if err != nil {
		return nil, err
	}
	setup := &framework.Setup{K: man.K, V: man.V, Classes: man.Classes, Annotators: man.AnnotatorNames, Rand: NewRand(cfg.Seed)}
	resp, noise, _, err := components(cfg, reg, setup)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	for name, comp := range map[string]any{"response.params": resp, "annotators.params": noise} {
		p, ok := comp.(framework.Persister)
		if !ok {
			continue
		}
		if _, listed := man.Files[name]; !listed && man.Version >= 2 {
			// Saved by a maslda whose component had no parameters to
			// save (the perfect annotators before they kept their
			// precision and weights): Init's values stand, as then.
			continue
		}
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		err = p.LoadParams(bufio.NewReader(f))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
	}
	m, err := NewModel(layer, resp, noise, nil, cfg.Workers)
	if err != nil {
		return nil, err
	}
	s := &Saved{Manifest: man, Config: cfg, Model: m}
	if man.Vocab {
		vpath := filepath.Join(dir, "vocab.txt")
		b, err := os.ReadFile(vpath)
		if err != nil {
			return nil, err
		}
		s.Vocab = strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(s.Vocab) != man.V {
			return nil, framework.Errorf(vpath, 0, "%d terms, model has V = %d", len(s.Vocab), man.V)
		}
	}
	return s, nil
}
