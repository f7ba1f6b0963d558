package textprep

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/maslda/maslda/framework"
	"github.com/maslda/maslda/framework/corpus"
)

// Config is everything Prepare does besides reading the input.
type Config struct {
	Tokens TokenOptions
	// StopWordsSource names the stop-word list for the manifest:
	// "embedded", a file name (list its file in Files too) or "none".
	StopWordsSource string
	// LabelMap, when not empty, maps labels; documents whose label matches
	// no rule (or that have none) are dropped and counted.
	LabelMap []LabelRule
	// Pruning of a built vocabulary, on the training documents: keep terms
	// in at least MinDF documents and in at most MaxDF × documents, then
	// the MaxVocab most frequent (0: all), by total count and then term.
	MinDF    int
	MaxDF    float64
	MaxVocab int
	// Vocab, when not nil, is the vocabulary to apply instead of building
	// one: other terms are dropped and counted.
	Vocab []string
	// Split, when in (0, 1), writes train/ and test/ with a random split
	// stratified by label, Split of each class for training (see
	// AssignSplit); Seed seeds it.
	Split float64
	Seed  uint64
	// Workers tokenize in parallel (0: GOMAXPROCS). The output does not
	// depend on it.
	Workers int
	// Files are the auxiliary input files to list in the manifest (stop
	// words, vocabulary, label map), as given by ReadFile.
	Files []InputFile
	// Progress, if not nil, is called from Prepare's goroutine as the
	// phases advance.
	Progress func(Progress)
}

// DefaultConfig is DefaultTokenOptions with no pruning, no split.
func DefaultConfig() Config {
	return Config{Tokens: DefaultTokenOptions(), StopWordsSource: "embedded", MinDF: 1, MaxDF: 1}
}

// Progress reports how far a phase is: "read" (input bytes), "count" and
// "write" (documents).
type Progress struct {
	Phase       string
	Done, Total int64
}

// Manifest describes a prepared directory (manifest.json).
type Manifest struct {
	Tool          string      `json:"tool"`
	FormatVersion int         `json:"format_version"`
	Part          string      `json:"part,omitempty"` // "train" or "test" in a split's directories
	Inputs        []InputFile `json:"inputs"`
	Settings      Settings    `json:"settings"`
	Read          ReadCounts  `json:"read"`
	// Counts are about this directory's files; at the top of a split they
	// are in Parts instead.
	Counts *Counts            `json:"counts,omitempty"`
	Parts  map[string]*Counts `json:"parts,omitempty"`
}

// Settings records the configuration of a run.
type Settings struct {
	Input           InputOptions  `json:"input"`
	Tokens          TokenOptions  `json:"tokens"`
	StopWords       StopWordsInfo `json:"stop_words"`
	LabelMap        []LabelRule   `json:"label_map,omitempty"`
	MinDF           int           `json:"min_df"`
	MaxDF           float64       `json:"max_df"`
	MaxVocab        int           `json:"max_vocab"`
	FixedVocabulary bool          `json:"fixed_vocabulary"`
	Split           float64       `json:"split"`
	Seed            uint64        `json:"seed"`
}

// StopWordsInfo identifies the stop-word list.
type StopWordsInfo struct {
	Source string `json:"source"`
	Count  int    `json:"count"`
	SHA256 string `json:"sha256"` // of the distinct words, sorted, one per line
}

// ReadCounts are about the input as read, before any split.
type ReadCounts struct {
	DocumentsRead     int            `json:"documents_read"`
	DroppedByLabelMap int            `json:"dropped_by_label_map"`
	DroppedLabels     map[string]int `json:"dropped_labels,omitempty"`
	Documents         int            `json:"documents"`
	Tokens            int64          `json:"tokens"`         // from the tokenizer
	DistinctTerms     int            `json:"distinct_terms"` // before the vocabulary
}

// Counts are about one output directory.
type Counts struct {
	Documents       int            `json:"documents"`
	Labels          map[string]int `json:"documents_per_label,omitempty"`
	Unlabeled       int            `json:"unlabeled_documents"`
	TokenizerTokens int64          `json:"tokenizer_tokens"` // before the vocabulary
	Tokens          int64          `json:"tokens"`           // in docs.ldac
	Vocabulary      int            `json:"vocabulary"`
	// Tokens and distinct terms not in the vocabulary, dropped: pruned
	// terms when the vocabulary was built from these documents, unknown
	// terms when it was given or built from the training part.
	DroppedTokens int64 `json:"out_of_vocabulary_tokens"`
	DroppedTerms  int   `json:"out_of_vocabulary_terms"`
	// EmptyDocuments are written as "0" lines; EmptiedDocuments of them
	// had tokens that were all out of the vocabulary.
	EmptyDocuments   int `json:"empty_documents"`
	EmptiedDocuments int `json:"emptied_by_vocabulary"`
}

// Output file names.
const (
	DocsFile     = "docs.ldac"
	VocabFile    = "vocab.txt"
	IDsFile      = "ids.txt"
	LabelsFile   = "labels.csv"
	ManifestFile = "manifest.json"
)

// Prepare reads every document of src, tokenizes it, builds or applies a
// vocabulary and writes docs.ldac, vocab.txt, ids.txt, labels.csv (when the
// input has labels) and manifest.json into dir, an existing directory
// (with a split, into dir/train and dir/test and a manifest.json on top).
// Temporary files are written in dir and removed. On error dir may hold
// partial files: write into a temporary directory and publish it.
//
// Memory is proportional to the number of distinct terms plus a few bytes
// per document (its label class, split part and a 64-bit hash of its id);
// the documents themselves go through temporary files.
func Prepare(ctx context.Context, src Source, cfg Config, dir string) (*Manifest, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	tok, err := NewTokenizer(cfg.Tokens)
	if err != nil {
		return nil, err
	}
	p := &prep{cfg: cfg, src: src, tok: tok, opt: src.Options(), dict: map[string]int32{}, classIdx: map[string]int32{}}
	p.read.DroppedLabels = map[string]int{}
	tmp, err := os.CreateTemp(dir, ".textprep-tokens-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	tmpIDs, err := os.CreateTemp(dir, ".textprep-ids-")
	if err != nil {
		return nil, err
	}
	defer os.Remove(tmpIDs.Name())
	defer tmpIDs.Close()

	if err := p.pass1(ctx, tmp, tmpIDs); err != nil {
		return nil, err
	}
	if err := p.checkIDs(tmpIDs); err != nil {
		return nil, err
	}
	if p.read.Documents == 0 {
		return nil, fmt.Errorf("%w: %s: no documents (read %d, dropped %d by the label map)", framework.ErrBadInput, p.opt.Path, p.read.DocumentsRead, p.read.DroppedByLabelMap)
	}
	p.part = AssignSplit(p.docClass, len(p.classNames), cfg.Split, cfg.Seed)
	if cfg.Vocab != nil {
		if err := p.fixedVocab(); err != nil {
			return nil, err
		}
	} else {
		if err := p.count(ctx, tmp); err != nil {
			return nil, err
		}
		if err := p.buildVocab(); err != nil {
			return nil, err
		}
	}
	return p.write(ctx, tmp, tmpIDs, dir)
}

func (c *Config) check() error {
	switch {
	case c.MinDF < 1:
		return fmt.Errorf("%w: min-df %d, want ≥ 1", framework.ErrBadInput, c.MinDF)
	case !(c.MaxDF > 0 && c.MaxDF <= 1):
		return fmt.Errorf("%w: max-df %v, want a fraction in (0, 1]", framework.ErrBadInput, c.MaxDF)
	case c.MaxVocab < 0:
		return fmt.Errorf("%w: max-vocab %d, want ≥ 0 (0: no limit)", framework.ErrBadInput, c.MaxVocab)
	case c.Split != 0 && !(c.Split > 0 && c.Split < 1):
		return fmt.Errorf("%w: split %v, want a fraction in (0, 1)", framework.ErrBadInput, c.Split)
	case c.Vocab != nil && len(c.Vocab) == 0:
		return fmt.Errorf("%w: the given vocabulary is empty", framework.ErrBadInput)
	}
	return nil
}

// prep is the state of one Prepare run.
type prep struct {
	cfg Config
	src Source
	tok *Tokenizer
	opt InputOptions

	dict  map[string]int32 // term -> provisional id (order of first use)
	terms []string

	classIdx   map[string]int32
	classNames []string
	docClass   []int32  // class per document, -1 without label
	part       []uint8  // 0 train, 1 test
	idHash     []uint64 // per document, for the duplicate check

	read ReadCounts

	df    []int32 // training documents per provisional id
	cf    []int64 // training occurrences per provisional id
	remap []int32 // provisional id -> vocabulary id, -1 when dropped
	vocab []string
}

func (p *prep) progress(phase string, done, total int64) {
	if p.cfg.Progress != nil {
		p.cfg.Progress(Progress{Phase: phase, Done: done, Total: total})
	}
}

// batch is a run of documents tokenized together.
type batch struct {
	docs    []*Document
	toks    [][]string
	dropped []string // labels of the documents the label map dropped
	read    int      // documents read, including dropped ones
	done    chan struct{}
	err     error // a read error after docs
	bytes   int64 // input progress after the batch
	total   int64
}

const batchDocs = 64

// pass1 reads and tokenizes the documents, in parallel but in order, and
// writes each document's bag of provisional term ids to tmp and its id to
// tmpIDs.
func (p *prep) pass1(ctx context.Context, tmp, tmpIDs *os.File) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := p.cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make(chan *batch, workers)
	order := make(chan *batch, 2*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cache := stemCache{}
			var buf []string
			for b := range work {
				b.toks = make([][]string, len(b.docs))
				for i, d := range b.docs {
					buf = p.tok.tokens(buf[:0], d.Text, cache)
					b.toks[i] = slices.Clone(buf)
					d.Text = ""
				}
				close(b.done)
			}
		}()
	}
	wg.Add(1)
	go func() { // the reader
		defer wg.Done()
		defer close(order)
		defer close(work)
		for {
			b := &batch{done: make(chan struct{})}
			for len(b.docs) < batchDocs && b.err == nil {
				d, err := p.src.Next()
				if err != nil {
					b.err = err
					break
				}
				b.read++
				if p.cfg.LabelMap != nil {
					mapped, ok := "", false
					if d.HasLabel {
						mapped, ok = MapLabel(p.cfg.LabelMap, d.Label)
					}
					if !ok {
						lab := d.Label
						if !d.HasLabel {
							lab = "(no label)"
						}
						b.dropped = append(b.dropped, lab)
						continue
					}
					d.Label = mapped
				}
				b.docs = append(b.docs, d)
			}
			b.bytes, b.total = p.src.Progress()
			if b.err != nil && len(b.docs) == 0 {
				close(b.done)
			} else {
				select {
				case work <- b:
				case <-ctx.Done():
					return
				}
			}
			select {
			case order <- b:
			case <-ctx.Done():
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	defer wg.Wait()
	defer cancel()

	tw := bufio.NewWriterSize(tmp, 1<<20)
	iw := bufio.NewWriterSize(tmpIDs, 1<<20)
	var enc []byte
	var bag []int32
	for b := range order {
		select {
		case <-b.done:
		case <-ctx.Done():
			return ctx.Err()
		}
		p.read.DocumentsRead += b.read
		for _, l := range b.dropped {
			p.read.DroppedByLabelMap++
			p.read.DroppedLabels[l]++
		}
		for i, d := range b.docs {
			if err := p.addDoc(d, iw); err != nil {
				return err
			}
			bag = bag[:0]
			for _, t := range b.toks[i] {
				id, ok := p.dict[t]
				if !ok {
					if len(p.terms) >= math.MaxInt32 {
						return fmt.Errorf("%w: more than %d distinct terms", framework.ErrBadInput, math.MaxInt32)
					}
					id = int32(len(p.terms))
					p.dict[t] = id
					p.terms = append(p.terms, t)
				}
				bag = append(bag, id)
			}
			p.read.Tokens += int64(len(bag))
			enc = encodeBag(enc[:0], bag)
			if _, err := tw.Write(enc); err != nil {
				return err
			}
		}
		p.progress("read", b.bytes, b.total)
		if b.err == io.EOF {
			break
		}
		if b.err != nil {
			return b.err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p.read.DistinctTerms = len(p.terms)
	if len(p.read.DroppedLabels) == 0 {
		p.read.DroppedLabels = nil
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return iw.Flush()
}

// addDoc checks a document's id and label and records them.
func (p *prep) addDoc(d *Document, iw *bufio.Writer) error {
	if d.ID != strings.TrimSpace(d.ID) || d.ID == "" || strings.ContainsAny(d.ID, "\r\n") {
		return framework.Errorf(d.File, d.Line, "id %q is empty, has surrounding whitespace or a line break", d.ID)
	}
	if len(p.docClass) >= math.MaxInt32 {
		return fmt.Errorf("%w: more than %d documents", framework.ErrBadInput, math.MaxInt32)
	}
	p.idHash = append(p.idHash, hashID(d.ID))
	class := int32(-1)
	if d.HasLabel {
		if strings.ContainsAny(d.Label, "\r\n") {
			return framework.Errorf(d.File, d.Line, "label %q contains a line break", d.Label)
		}
		c, ok := p.classIdx[d.Label]
		if !ok {
			c = int32(len(p.classNames))
			p.classIdx[d.Label] = c
			p.classNames = append(p.classNames, d.Label)
		}
		class = c
	}
	p.docClass = append(p.docClass, class)
	p.read.Documents++
	iw.WriteString(strconv.Itoa(d.Line))
	iw.WriteByte('\t')
	iw.WriteString(d.ID)
	return iw.WriteByte('\n')
}

// idSeed seeds the id hashes; a collision only costs a rescan.
var idSeed = maphash.MakeSeed()

// hashID hashes a document id; tests replace it to force collisions.
var hashID = func(id string) uint64 { return maphash.String(idSeed, id) }

// checkIDs reports a repeated document id. Equal hashes are confirmed on
// the ids themselves, read back from tmpIDs, so that only a true duplicate
// is an error: the first document whose id was seen before.
func (p *prep) checkIDs(tmpIDs *os.File) error {
	slices.Sort(p.idHash)
	suspects := map[uint64]bool{}
	for i := 1; i < len(p.idHash); i++ {
		if p.idHash[i] == p.idHash[i-1] {
			suspects[p.idHash[i]] = true
		}
	}
	p.idHash = nil
	if len(suspects) == 0 {
		return nil
	}
	ir, err := newIDReader(tmpIDs)
	if err != nil {
		return err
	}
	first := map[string]int{}
	for range p.docClass {
		line, id, err := ir.next()
		if err != nil {
			return err
		}
		if !suspects[hashID(id)] {
			continue
		}
		if l, dup := first[id]; dup {
			where := "the same path twice"
			if l > 0 {
				where = fmt.Sprintf("first on line %d", l)
			}
			return framework.Errorf(p.docFile(id), line, "duplicate id %q (%s)", id, where)
		}
		first[id] = line
	}
	return nil
}

// docFile is the file a document with this id was read from, for errors.
func (p *prep) docFile(id string) string {
	if p.opt.Format != Dir {
		return p.opt.Path
	}
	if fi, err := os.Stat(p.opt.Path); err == nil && fi.IsDir() {
		return filepath.Join(p.opt.Path, filepath.FromSlash(id))
	}
	return p.opt.Path + ":" + id
}

// idReader reads back the ids written by addDoc ("line<TAB>id").
type idReader struct{ r *bufio.Reader }

func newIDReader(f *os.File) (*idReader, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return &idReader{bufio.NewReaderSize(f, 1<<20)}, nil
}

func (r *idReader) next() (line int, id string, err error) {
	s, err := r.r.ReadString('\n')
	if err != nil {
		return 0, "", fmt.Errorf("temporary file: %w", err)
	}
	ls, id, _ := strings.Cut(s[:len(s)-1], "\t")
	line, err = strconv.Atoi(ls)
	if err != nil {
		return 0, "", fmt.Errorf("temporary file: %w", err)
	}
	return line, id, nil
}

// encodeBag appends a document's bag of words: the number of distinct ids,
// then each id (increasing) and its count, as unsigned varints.
func encodeBag(dst []byte, ids []int32) []byte {
	slices.Sort(ids)
	n := 0
	for i := range ids {
		if i == 0 || ids[i] != ids[i-1] {
			n++
		}
	}
	dst = binary.AppendUvarint(dst, uint64(n))
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[i] {
			j++
		}
		dst = binary.AppendUvarint(dst, uint64(ids[i]))
		dst = binary.AppendUvarint(dst, uint64(j-i))
		i = j
	}
	return dst
}

// bagReader reads the bags of encodeBag in order.
type bagReader struct {
	r     *bufio.Reader
	pairs [][2]int64
}

func newBagReader(f *os.File) (*bagReader, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return &bagReader{r: bufio.NewReaderSize(f, 1<<20)}, nil
}

// next returns the next bag as (id, count) pairs, valid until the next call.
func (b *bagReader) next() ([][2]int64, error) {
	n, err := binary.ReadUvarint(b.r)
	if err != nil {
		return nil, fmt.Errorf("temporary file: %w", err)
	}
	b.pairs = b.pairs[:0]
	for range n {
		id, err := binary.ReadUvarint(b.r)
		if err != nil {
			return nil, fmt.Errorf("temporary file: %w", err)
		}
		c, err := binary.ReadUvarint(b.r)
		if err != nil {
			return nil, fmt.Errorf("temporary file: %w", err)
		}
		b.pairs = append(b.pairs, [2]int64{int64(id), int64(c)})
	}
	return b.pairs, nil
}

// AssignSplit assigns documents to training (0) and test (1). class[i] is
// document i's class in [0, classes) or −1 without label; the documents
// without label are a stratum of their own. With split 0 every document
// is for training. Otherwise the training set has ⌊split·D⌋ documents:
// each stratum contributes ⌊split·n⌋ of its n documents, and the
// remaining places go to the strata with the largest fractional parts
// split·n − ⌊split·n⌋ (ties: the stratum without label, then classes in
// increasing index). Within each stratum, in that order, the documents
// are shuffled with a PCG generator seeded (seed, 0x6d61736c6461) and the
// first ones are for training.
func AssignSplit(class []int32, classes int, split float64, seed uint64) []uint8 {
	part := make([]uint8, len(class))
	if split == 0 {
		return part
	}
	strata := make([][]int32, classes+1) // stratum 0: no label
	for i, c := range class {
		strata[c+1] = append(strata[c+1], int32(i))
	}
	const eps = 1e-9
	total := int(math.Floor(split*float64(len(class)) + eps))
	train := make([]int, len(strata))
	frac := make([]float64, len(strata))
	sum := 0
	for s, docs := range strata {
		x := split * float64(len(docs))
		train[s] = int(math.Floor(x + eps))
		frac[s] = x - float64(train[s])
		sum += train[s]
	}
	order := make([]int, len(strata))
	for s := range order {
		order[s] = s
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(frac[b], frac[a]) })
	for _, s := range order {
		if sum >= total {
			break
		}
		if frac[s] > eps && train[s] < len(strata[s]) {
			train[s]++
			sum++
		}
	}
	rng := rand.New(rand.NewPCG(seed, 0x6d61736c6461))
	for s, docs := range strata {
		rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
		for k, d := range docs {
			if k >= train[s] {
				part[d] = 1
			}
		}
	}
	return part
}

// count computes the training documents' frequencies of every term.
func (p *prep) count(ctx context.Context, tmp *os.File) error {
	br, err := newBagReader(tmp)
	if err != nil {
		return err
	}
	p.df = make([]int32, len(p.terms))
	p.cf = make([]int64, len(p.terms))
	D := int64(len(p.part))
	for i, part := range p.part {
		pairs, err := br.next()
		if err != nil {
			return err
		}
		if part == 0 {
			for _, pc := range pairs {
				p.df[pc[0]]++
				p.cf[pc[0]] += pc[1]
			}
		}
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			p.progress("count", int64(i), D)
		}
	}
	p.progress("count", D, D)
	return nil
}

// buildVocab prunes the terms (see Config) and ranks the kept ones by
// decreasing total count, then by term.
func (p *prep) buildVocab() error {
	nTrain := 0
	for _, part := range p.part {
		if part == 0 {
			nTrain++
		}
	}
	maxDocs := p.cfg.MaxDF * float64(nTrain)
	var kept []int32
	for id := range p.terms {
		df := int(p.df[id])
		if df >= p.cfg.MinDF && float64(df) <= maxDocs+1e-9 {
			kept = append(kept, int32(id))
		}
	}
	slices.SortFunc(kept, func(a, b int32) int {
		if c := cmp.Compare(p.cf[b], p.cf[a]); c != 0 {
			return c
		}
		return strings.Compare(p.terms[a], p.terms[b])
	})
	if p.cfg.MaxVocab > 0 && len(kept) > p.cfg.MaxVocab {
		kept = kept[:p.cfg.MaxVocab]
	}
	if len(kept) == 0 {
		return fmt.Errorf("%w: %s: no term is left in the vocabulary (%d distinct terms in %d training documents; min-df %d, max-df %v)", framework.ErrBadInput, p.opt.Path, len(p.terms), nTrain, p.cfg.MinDF, p.cfg.MaxDF)
	}
	p.remap = make([]int32, len(p.terms))
	for i := range p.remap {
		p.remap[i] = -1
	}
	p.vocab = make([]string, len(kept))
	for v, id := range kept {
		p.remap[id] = int32(v)
		p.vocab[v] = p.terms[id]
	}
	return nil
}

// fixedVocab maps the terms onto the given vocabulary.
func (p *prep) fixedVocab() error {
	index := make(map[string]int32, len(p.cfg.Vocab))
	for v, t := range p.cfg.Vocab {
		if _, dup := index[t]; dup {
			return fmt.Errorf("%w: the given vocabulary has %q twice", framework.ErrBadInput, t)
		}
		index[t] = int32(v)
	}
	p.vocab = p.cfg.Vocab
	p.remap = make([]int32, len(p.terms))
	for id, t := range p.terms {
		v, ok := index[t]
		if !ok {
			v = -1
		}
		p.remap[id] = v
	}
	return nil
}

// partOut is one output directory being written.
type partOut struct {
	name   string
	dir    string
	files  []*os.File
	docs   *bufio.Writer
	ids    *bufio.Writer
	labels *csv.Writer
	counts Counts
	oov    []bool // provisional ids dropped here
}

func (p *prep) labeled() bool { return p.opt.Labeled() }

func (p *prep) openPart(name, dir string) (*partOut, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	o := &partOut{name: name, dir: dir, oov: make([]bool, len(p.terms))}
	create := func(f string) (*bufio.Writer, error) {
		fh, err := os.Create(filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		o.files = append(o.files, fh)
		return bufio.NewWriterSize(fh, 1<<20), nil
	}
	var err error
	if o.docs, err = create(DocsFile); err != nil {
		return o, err
	}
	if o.ids, err = create(IDsFile); err != nil {
		return o, err
	}
	if p.labeled() {
		w, err := create(LabelsFile)
		if err != nil {
			return o, err
		}
		o.labels = csv.NewWriter(w)
		o.labels.Write([]string{"task", "label"})
	}
	return o, nil
}

// close flushes and closes the part's files and writes its vocabulary.
func (o *partOut) close(vocab []string) error {
	var errs []error
	errs = append(errs, o.docs.Flush(), o.ids.Flush())
	if o.labels != nil {
		o.labels.Flush()
		errs = append(errs, o.labels.Error())
	}
	for _, f := range o.files {
		errs = append(errs, f.Sync(), f.Close())
	}
	errs = append(errs, writeFile(filepath.Join(o.dir, VocabFile), func(w io.Writer) error { return corpus.WriteVocab(w, vocab) }))
	return errors.Join(errs...)
}

func (o *partOut) abort() {
	for _, f := range o.files {
		f.Close()
	}
}

func writeFile(path string, fill func(w io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// write remaps every document onto the vocabulary and writes the parts.
func (p *prep) write(ctx context.Context, tmp, tmpIDs *os.File, dir string) (*Manifest, error) {
	split := p.cfg.Split > 0
	names := []string{""}
	if split {
		names = []string{"train", "test"}
	}
	parts := make([]*partOut, len(names))
	defer func() {
		for _, o := range parts {
			if o != nil {
				o.abort()
			}
		}
	}()
	for i, n := range names {
		var err error
		if parts[i], err = p.openPart(n, filepath.Join(dir, n)); err != nil {
			return nil, err
		}
	}
	br, err := newBagReader(tmp)
	if err != nil {
		return nil, err
	}
	ir, err := newIDReader(tmpIDs)
	if err != nil {
		return nil, err
	}
	var line []byte
	var pairs [][2]int64
	D := int64(len(p.part))
	for i, part := range p.part {
		o := parts[part]
		bag, err := br.next()
		if err != nil {
			return nil, err
		}
		_, id, err := ir.next()
		if err != nil {
			return nil, err
		}
		c := &o.counts
		c.Documents++
		pairs = pairs[:0]
		var before int64
		for _, pc := range bag {
			before += pc[1]
			v := p.remap[pc[0]]
			if v < 0 {
				c.DroppedTokens += pc[1]
				o.oov[pc[0]] = true
				continue
			}
			pairs = append(pairs, [2]int64{int64(v), pc[1]})
		}
		slices.SortFunc(pairs, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
		c.TokenizerTokens += before
		line = strconv.AppendInt(line[:0], int64(len(pairs)), 10)
		for _, pc := range pairs {
			line = append(line, ' ')
			line = strconv.AppendInt(line, pc[0], 10)
			line = append(line, ':')
			line = strconv.AppendInt(line, pc[1], 10)
			c.Tokens += pc[1]
		}
		if len(pairs) == 0 {
			c.EmptyDocuments++
			if before > 0 {
				c.EmptiedDocuments++
			}
		}
		line = append(line, '\n')
		o.docs.Write(line)
		o.ids.WriteString(id)
		o.ids.WriteByte('\n')
		if cl := p.docClass[i]; cl >= 0 {
			if c.Labels == nil {
				c.Labels = map[string]int{}
			}
			c.Labels[p.classNames[cl]]++
			if o.labels != nil {
				o.labels.Write([]string{id, p.classNames[cl]})
			}
		} else {
			c.Unlabeled++
		}
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			p.progress("write", int64(i), D)
		}
	}
	p.progress("write", D, D)
	man := p.manifest()
	for i, o := range parts {
		o.counts.Vocabulary = len(p.vocab)
		for _, b := range o.oov {
			if b {
				o.counts.DroppedTerms++
			}
		}
		parts[i] = nil
		if err := o.close(p.vocab); err != nil {
			return nil, err
		}
		if split {
			pm := *man
			pm.Part, pm.Counts, pm.Parts = o.name, &o.counts, nil
			if err := writeManifest(filepath.Join(o.dir, ManifestFile), &pm); err != nil {
				return nil, err
			}
			if man.Parts == nil {
				man.Parts = map[string]*Counts{}
			}
			man.Parts[o.name] = &o.counts
		} else {
			man.Counts = &o.counts
		}
	}
	if err := writeManifest(filepath.Join(dir, ManifestFile), man); err != nil {
		return nil, err
	}
	return man, nil
}

func (p *prep) manifest() *Manifest {
	inputs := slices.Clone(p.src.Inputs())
	inputs = append(inputs, p.cfg.Files...)
	s := Settings{
		Input:           p.opt,
		Tokens:          p.cfg.Tokens,
		StopWords:       stopWordsInfo(p.cfg.StopWordsSource, p.cfg.Tokens.StopWords),
		LabelMap:        p.cfg.LabelMap,
		MinDF:           p.cfg.MinDF,
		MaxDF:           p.cfg.MaxDF,
		MaxVocab:        p.cfg.MaxVocab,
		FixedVocabulary: p.cfg.Vocab != nil,
		Split:           p.cfg.Split,
		Seed:            p.cfg.Seed,
	}
	return &Manifest{Tool: "maslda prepare", FormatVersion: 1, Inputs: inputs, Settings: s, Read: p.read}
}

func stopWordsInfo(source string, words []string) StopWordsInfo {
	if source == "" {
		source = "custom"
		if len(words) == 0 {
			source = "none"
		}
	}
	set := map[string]bool{}
	for _, w := range words {
		set[normalizeWord(strings.ToLower(w))] = true
	}
	sorted := make([]string, 0, len(set))
	for w := range set {
		sorted = append(sorted, w)
	}
	slices.Sort(sorted)
	h := sha256.New()
	for _, w := range sorted {
		io.WriteString(h, w+"\n")
	}
	return StopWordsInfo{Source: source, Count: len(sorted), SHA256: hex.EncodeToString(h.Sum(nil))}
}

func writeManifest(path string, m *Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFile(path, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
