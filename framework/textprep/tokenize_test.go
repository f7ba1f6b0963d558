package textprep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func mustTokenizer(t *testing.T, o TokenOptions) *Tokenizer {
	t.Helper()
	tk, err := NewTokenizer(o)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

func TestWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"Hello, world!", []string{"Hello", ",", " ", "world", "!"}},
		{"e-mail 3.14 can't", []string{"e", "-", "mail", " ", "3.14", " ", "can't"}},
		{"don’t x_y", []string{"don’t", " ", "x_y"}},
		{"foo@bar.com", []string{"foo", "@", "bar.com"}},
		{"naïve café\r\nÜber", []string{"naïve", " ", "café", "\r\n", "Über"}},
		{"東京", []string{"東", "京"}},
	} {
		var got []string
		Words(tc.in, func(w string) { got = append(got, w) })
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Words(%q) (-want +got):\n%s", tc.in, diff)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("Words(%q): segments do not add up to the text", tc.in)
		}
	}
}

func TestTokenSteps(t *testing.T) {
	lower := TokenOptions{Lowercase: true}
	stop := TokenOptions{Lowercase: true, StopWords: EnglishStopWords()}
	for _, tc := range []struct {
		name string
		opt  TokenOptions
		in   string
		want []string
	}{
		{"segmentation only", TokenOptions{}, "Hello, World! It's 2024.", []string{"Hello", "World", "It's"}},
		{"lower-casing", lower, "Hello WORLD ÜBER ǅ", []string{"hello", "world", "über", "ǆ"}},
		{"no lower-casing", TokenOptions{}, "Hello WORLD", []string{"Hello", "WORLD"}},
		{"numbers and punctuation dropped", lower, "a1 2024 3.14 -- ... x_y __ §§ 42nd", []string{"a1", "x_y", "42nd"}},
		{"numbers kept", TokenOptions{Lowercase: true, KeepNumbers: true}, "a1 2024 3.14 -- x_y", []string{"a1", "2024", "3.14", "x_y"}},
		{"min length", TokenOptions{Lowercase: true, MinLength: 2}, "a bb ccc I", []string{"bb", "ccc"}},
		{"max length", TokenOptions{Lowercase: true, MaxLength: 3}, "a bb ccc dddd", []string{"a", "bb", "ccc"}},
		{"runes not bytes", TokenOptions{Lowercase: true, MinLength: 3, MaxLength: 3}, "ééé éé", []string{"ééé"}},
		{"stop words", stop, "The cat and THE hat", []string{"cat", "hat"}},
		{"stop-word contractions, typographic apostrophe", stop, "don’t won't can't", nil},
		{"stop words without lower-casing", TokenOptions{StopWords: []string{"the"}}, "The Cat", []string{"Cat"}},
		{"custom stop words", TokenOptions{Lowercase: true, StopWords: []string{"Cat"}}, "the cat", []string{"the"}},
		{"stemming", TokenOptions{Lowercase: true, Stem: true},
			"running generously caresses ponies cats happily agreed relational",
			[]string{"run", "generous", "caress", "poni", "cat", "happili", "agre", "relat"}},
		{"stemming lower-cases", TokenOptions{Stem: true}, "Running", []string{"run"}},
		{"stem after stop words", TokenOptions{Lowercase: true, Stem: true, StopWords: EnglishStopWords()}, "The dogs were running", []string{"dog", "run"}},
		{"bigrams", TokenOptions{Lowercase: true, Bigrams: true}, "New York City", []string{"new", "york", "city", "new_york", "york_city"}},
		{"bigrams of kept tokens", TokenOptions{Lowercase: true, Bigrams: true, StopWords: EnglishStopWords()}, "Bank of America", []string{"bank", "america", "bank_america"}},
		{"one token, no bigram", TokenOptions{Lowercase: true, Bigrams: true}, "alone", []string{"alone"}},
		{"default pipeline", DefaultTokenOptions(), "The Runners were RUNNING 10 miles; it's generously fun!", []string{"runner", "run", "mile", "generous", "fun"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := mustTokenizer(t, tc.opt).Tokens(nil, tc.in)
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Tokens(%q) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestStemKnownWords(t *testing.T) {
	for in, want := range map[string]string{
		"running": "run", "generously": "generous", "caresses": "caress", "ponies": "poni",
		"ties": "tie", "caress": "caress", "cats": "cat", "feed": "feed", "agreed": "agre",
		"plastered": "plaster", "motoring": "motor", "sing": "sing", "conflated": "conflat",
		"hopping": "hop", "sized": "size", "happy": "happi", "relational": "relat",
		"conditional": "condit", "formalize": "formal", "electrical": "electr",
		"adjustable": "adjust", "dying": "die", "news": "news", "skis": "ski",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

const newsPost = "From: alice@example.com\n" +
	"Subject: Re: orbits\n" +
	"\n" +
	"In article <1@x>, bob@example.com (Bob) writes:\n" +
	"> the moon is cheese\n" +
	"|and quoted too\n" +
	"I disagree about the moon.\n" +
	"\n" +
	"Orbits are ellipses.\n" +
	"-- \n" +
	"Alice, Example Corp\n"

func TestStrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func(string) string
		in   string
		want string
	}{
		{"headers", StripHeaders, newsPost, "In article <1@x>, bob@example.com (Bob) writes:\n> the moon is cheese\n|and quoted too\nI disagree about the moon.\n\nOrbits are ellipses.\n-- \nAlice, Example Corp\n"},
		{"headers: no empty line: all header", StripHeaders, "From: a\nSubject: b\n", ""},
		{"headers: only the first empty line", StripHeaders, "H: 1\n\nbody\n\nmore", "body\n\nmore"},
		{"quotes", StripQuotes, "In article <1@x> bob writes:\n> quoted\n|bar\nkept > not at start\nHe said: no\nkept", "kept > not at start\nkept"},
		{"quotes: Quoted from", StripQuotes, "Quoted from x\nok", "ok"},
		{"footers: signature", StripFooters, "body line\n-- \nAlice\n", "body line"},
		{"footers: dashes", StripFooters, "body\n-----\nsig\n", "body"},
		{"footers: last blank line (scikit-learn's rule)", StripFooters, "para one\n\npara two\n", "para one"},
		{"footers: none", StripFooters, "one line\nanother\n", "one line\nanother\n"},
		{"footers: separator on the first line", StripFooters, "--\nonly sig", "--\nonly sig"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.f(tc.in); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestStripPipeline(t *testing.T) {
	tk := mustTokenizer(t, TokenOptions{Lowercase: true, StripHeaders: true, StripFooters: true, StripQuotes: true, StopWords: EnglishStopWords()})
	got := tk.Tokens(nil, strings.ReplaceAll(newsPost, "\n", "\r\n"))
	want := []string{"disagree", "moon", "orbits", "ellipses"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Without stripping the headers and signature are tokens.
	all := mustTokenizer(t, TokenOptions{Lowercase: true}).Tokens(nil, newsPost)
	if !contains(all, "subject") || !contains(all, "corp") || !contains(all, "cheese") {
		t.Errorf("unstripped tokens %q lack header, quote or signature words", all)
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func TestEnglishStopWords(t *testing.T) {
	words := EnglishStopWords()
	if len(words) != 181 {
		t.Errorf("%d stop words, want 181", len(words))
	}
	seen := map[string]bool{}
	for _, w := range words {
		if seen[w] || w != strings.ToLower(w) || w == "" {
			t.Errorf("stop word %q repeated, empty or not lower case", w)
		}
		seen[w] = true
	}
	for _, w := range []string{"the", "and", "don't", "i'm", "can", "s"} {
		if !seen[w] {
			t.Errorf("%q is not a stop word", w)
		}
	}
}

func TestReadStopWords(t *testing.T) {
	got, err := ReadStopWords(strings.NewReader("\ufeff# comment\nThe\n\n  and \nDon’t\n"), "s.txt")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"the", "and", "don't"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := ReadStopWords(strings.NewReader("ok\ntwo words\n"), "s.txt"); err == nil || err.Error() != `s.txt:2: stop word "two words" contains whitespace: want one word per line` {
		t.Errorf("err = %v", err)
	}
}

func TestNewTokenizerBounds(t *testing.T) {
	for _, o := range []TokenOptions{{MinLength: -1}, {MaxLength: -1}, {MinLength: 3, MaxLength: 2}} {
		if _, err := NewTokenizer(o); err == nil {
			t.Errorf("NewTokenizer(%+v) accepted", o)
		}
	}
}
