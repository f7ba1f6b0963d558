package models

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/topics"
)

// Format identifies a saved model directory; FormatVersion is bumped on any
// incompatible change.
const (
	Format        = "maslda-model"
	FormatVersion = 1
)

// Manifest is model.json: what is needed to rebuild a trained model.
type Manifest struct {
	Format     string   `json:"format"`
	Version    int      `json:"version"`
	K          int      `json:"k"`
	V          int      `json:"v"`
	TrainDocs  int      `json:"train_docs"`
	Config     string   `json:"config"` // file name of the saved configuration
	Response   string   `json:"response,omitempty"`
	Annotators string   `json:"annotators,omitempty"`
	Inference  string   `json:"inference"`
	Classes    []string `json:"classes,omitempty"`
	Workers    []string `json:"annotator_names,omitempty"`
	Vocab      bool     `json:"vocab"`
	Iters      int      `json:"iterations"`
	ELBO       float64  `json:"elbo"`
}

// Saved is a model loaded from a directory.
type Saved struct {
	Manifest Manifest
	Config   *Config
	Model    *Model
	Vocab    []string // nil when the model was trained without one
}

// Classes and Workers mirror Run's fields.
func (s *Saved) Classes() []string { return s.Manifest.Classes }

const zetaMagic = "MASLDAz1"

// WriteFiles writes the model's files into dir (which must exist): model.json,
// the configuration, vocab.txt (when the corpus has a vocabulary), topics.bin
// (ζ) and the plug-ins' parameters. Use SaveAtomic for a crash-safe save.
func (r *Run) WriteFiles(dir string) error {
	m := r.Model
	cfgName := "config.hcl"
	if strings.EqualFold(filepath.Ext(r.Config.SourceName), ".json") {
		cfgName = "config.json"
	}
	man := Manifest{Format: Format, Version: FormatVersion, K: m.Topics.K, V: m.Topics.V, TrainDocs: m.NumDocs(),
		Config: cfgName, Inference: r.Config.Inference.Name, Classes: r.Classes, Workers: r.Workers}
	if r.Config.Response != nil {
		man.Response = r.Config.Response.Name
	}
	if r.Config.Annotators != nil {
		man.Annotators = r.Config.Annotators.Name
	}
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
// directory before it is published. The files are written to a temporary
// sibling directory which then replaces dir; a previous dir is moved aside
// and removed only after the new one is in place.
func (r *Run) SaveAtomic(dir string, extra func(tmp string) error) error {
	return PublishDir(dir, func(tmp string) error {
		if err := r.WriteFiles(tmp); err != nil {
			return err
		}
		if extra != nil {
			return extra(tmp)
		}
		return nil
	})
}

// PublishDir fills a temporary sibling of dir and renames it to dir. On any
// error the temporary directory is removed and dir is left as it was.
func PublishDir(dir string, fill func(tmp string) error) (err error) {
	dir = filepath.Clean(dir)
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("%w: %s exists and is not a directory", framework.ErrBadInput, dir)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dir)+".tmp-")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err := fill(tmp); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return err
	}
	var old string
	if _, err := os.Stat(dir); err == nil {
		old = tmp + ".old"
		if err := os.Rename(dir, old); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return nil
}

// Load rebuilds a saved model through the registry (nil: framework.Default).
func Load(dir string, reg *framework.Registry) (*Saved, error) {
	if reg == nil {
		reg = framework.Default
	}
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
	if man.Version != FormatVersion {
		return nil, framework.Errorf(mpath, 0, "format version %d; this maslda reads version %d", man.Version, FormatVersion)
	}
	if man.K < 1 || man.V < 1 {
		return nil, framework.Errorf(mpath, 0, "dimensions k=%d v=%d, want ≥ 1", man.K, man.V)
	}
	cfg, err := LoadConfig(filepath.Join(dir, man.Config))
	if err != nil {
		return nil, err
	}
	if cfg.Topics.K != man.K {
		return nil, framework.Errorf(mpath, 0, "k = %d but the saved configuration says %d", man.K, cfg.Topics.K)
	}
	layer, err := topics.New(cfg.Topics, man.V)
	if err != nil {
		return nil, err
	}
	zpath := filepath.Join(dir, "topics.bin")
	zf, err := os.Open(zpath)
	if err != nil {
		return nil, err
	}
	err = readZeta(bufio.NewReader(zf), zpath, layer)
	zf.Close()
	if err != nil {
		return nil, err
	}
	setup := &framework.Setup{K: man.K, V: man.V, Classes: man.Classes, Workers: man.Workers, Rand: NewRand(cfg.Seed)}
	resp, noise, _, err := components(cfg, reg, setup)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", dir, err)
	}
	for name, comp := range map[string]any{"response.params": resp, "annotators.params": noise} {
		p, ok := comp.(framework.Persister)
		if !ok {
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
