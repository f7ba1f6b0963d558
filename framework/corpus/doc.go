// Package corpus reads and writes the data files of maslda: documents in
// LDA-C format, document ids, vocabularies, crowd answers and ground truth.
// docs/formats.md describes the formats with examples.
//
// Every reader takes an io.Reader and the file's name, which appears in
// errors; ReadFiles opens the files of a corpus (documents, ids,
// vocabulary) by path and reads them with these. An error about the content of a file is a *framework.LineError
// (it wraps framework.ErrBadInput) giving the file, the 1-based line (0
// when it concerns the whole file) and what was expected. The readers never
// panic. LF and CRLF line endings are accepted, and so is a missing final
// newline. Lines may be up to 64 MiB long; a longer line is an error.
//
// # Line-based files
//
// In the line-based formats (LDA-C, ids, vocabulary, value columns and
// answer matrices) a blank line (empty or only whitespace) is an error,
// except that blank lines at the end of a file are ignored. Thus line i+1
// of a file is always record i. Fields are separated by runs of ASCII
// spaces and tabs.
//
// # LDA-C documents (ReadLDAC, WriteLDAC, CheckVocab)
//
// Line i (0-based) is document i, whose ID is strconv.Itoa(i):
//
//	M id:count id:count ...
//
// with M the number of pairs and ids 0-based word ids. Rules:
//
//   - M must equal the number of pairs on the line.
//   - A word id is a non-negative decimal integer of at most MaxWordID
//     (2^31 − 2); a count is a non-negative decimal integer of at most
//     MaxCount (10^9). Signs, decimal points and exponents are errors, and
//     so is a malformed pair ("3:", ":2", "a:b", "3:2:1").
//   - A pair with count 0 is accepted and dropped (its id still counts for
//     V).
//   - A word id repeated on one line has its counts summed; the sum must
//     not exceed MaxCount.
//   - "0" alone is an empty document.
//   - A document's words are sorted by id, with Counts aligned, and N is the
//     sum of its counts.
//
// V is 1 + the largest word id of the file (0 when there is none). When a
// vocabulary file fixes V, CheckVocab reports a word id ≥ V on its line.
//
// # Ids (ReadIDs, ApplyIDs)
//
// One document id per line, surrounding whitespace removed. An empty id,
// a carriage return inside an id and a repeated id (the error names both
// lines) are errors. ApplyIDs
// requires exactly one id per document.
//
// # Vocabulary (ReadVocab, WriteVocab)
//
// Line v+1 is the term of word id v, kept as written (spaces included)
// once the line ending is removed. A blank term, a carriage return inside a
// term and a repeated term (the error names both lines) are errors.
//
// # Answers CSV (ReadAnswers, AnswerTable, WriteAnswers)
//
// RFC 4180 CSV with a header naming the columns task, worker and label
// (the crowd-kit convention) in any order and letter case; other columns
// are ignored and a missing one is an error listing the header. Every
// record has as many fields as the header. Fields have surrounding
// whitespace removed. Rules:
//
//   - task, worker and label must not be empty or contain a line break;
//   - a worker answers a task at most once: a repeated (task, worker) pair
//     is an error naming both lines;
//   - the task is a document id (the line index of the LDA-C file, or the
//     id from the ids file); another task is an error.
//
// AnswerTable.Categorical resolves labels to classes: either the given
// list, of which every label must be a member, or the distinct labels,
// sorted numerically when they are all numbers and as strings otherwise
// (SortLabels). AnswerTable.Numeric requires every label to be a finite
// number (NaN and ±Inf are errors). Annotators are numbered in order of first
// appearance and a document without answers has none.
//
// # Ground truth CSV (ReadTruth, TruthTable)
//
// CSV with the header columns task and label, with the rules of the
// answers; a task given twice is an error. TruthTable.Categorical gives
// each document's class index (−1 when it has no truth) and
// TruthTable.Numeric its value and whether it has one.
//
// # Answer matrices (ReadWideAnswers) and value columns (ReadColumn)
//
// The data releases of Rodrigues et al. give answers as a matrix: one line
// per document, one whitespace-separated column per annotator and a
// sentinel, such as 999999999, for no answer. Row i is task "i" and column
// j is worker "a<j>". A token equal to the sentinel, as a string or as a
// number ("999999999.0" matches "999999999"), is skipped. All rows must
// have the same number of columns, and a NaN or infinite label is an
// error. Such a table is positional: its rows must be as many as the
// documents, and row i resolves to document i even when an ids file names
// the documents. ReadColumn reads one value per line (such as a
// labels_train.txt file; a carriage return inside a value is an error) and
// TruthFromColumn makes a positional truth table from it.
package corpus
