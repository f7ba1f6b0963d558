// Package textprep turns raw documents into the corpus files of maslda
// (package corpus, docs/formats.md): docs.ldac, vocab.txt, ids.txt,
// labels.csv and a manifest.json recording the inputs' SHA-256 checksums,
// every setting and the counts. docs/prepare.md describes the rules and the
// command line (maslda prepare) built on it.
//
// # Reading
//
// Open reads a CSV or JSONL file with id, text and label columns, one
// document per line (optionally with tab-separated id and label fields), or
// a directory tree or tar(.gz) archive with one document per file, the
// parent directory naming the label. Text is UTF-8 (invalid UTF-8 is an
// error naming the file and line) or Latin-1. Every error about the input
// is a *framework.LineError naming the file and line; nothing panics.
//
// # Tokenizing
//
// A Tokenizer applies, in order: the optional stripping of e-mail/news
// headers, signatures and quoted lines (scikit-learn's fetch_20newsgroups
// rules), Unicode word segmentation (UAX #29), removal of words without a
// letter, lower-casing, length bounds, stop words (EnglishStopWords is
// embedded), Snowball English stemming and optional bigrams of adjacent
// kept tokens joined by "_".
//
// # Preparing
//
// Prepare streams the documents through the tokenizer into temporary files,
// so that memory grows with the number of distinct terms (plus a few bytes
// per document), not with the text. It prunes the vocabulary by document
// frequency and size (ranking terms by total count, then by term) or
// applies a given one, counting what falls out, and can split the
// documents into train/ and test/ with a stratified random split
// (AssignSplit) in which the test set uses the training vocabulary. Empty
// documents are kept as "0" lines and counted. The output depends only on
// the input and the Config, not on the number of workers.
//
// The package never prints; progress goes through Config.Progress.
package textprep
