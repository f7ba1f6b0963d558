package corpus

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"testing"
	"time"
)

// benchRows is the number of answer rows of BenchmarkReadAnswers:
// MASLDA_BENCH_ROWS, default 200,000 (the 5,000,000 with
// MASLDA_BENCH_ROWS=5000000; docs/performance.md).
func benchRows(b *testing.B) int {
	n := 200_000
	if s := os.Getenv("MASLDA_BENCH_ROWS"); s != "" {
		v, err := strconv.Atoi(s)
		if err != nil || v < 1 {
			b.Fatalf("MASLDA_BENCH_ROWS=%q", s)
		}
		n = v
	}
	return n
}

// answersCSV is a crowd's answers: 5 answers per task from 200 workers,
// 5 classes, worker ids like the Reuters AMT release's (14 characters).
func answersCSV(n int) []byte {
	var buf bytes.Buffer
	buf.Grow(n * 32)
	buf.WriteString("task,worker,label\n")
	for i := range n {
		fmt.Fprintf(&buf, "%d,A%013d,%s\n", i/5, (i*7919)%200, []string{"pos", "neg", "neutral", "mixed", "other"}[(i*31)%5])
	}
	return buf.Bytes()
}

// peakHeap samples the heap's live objects every millisecond until stop
// is called, which returns the largest sample.
func peakHeap() (stop func() uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(done); wg.Wait(); return peak }
}

// BenchmarkReadAnswers reads an answers CSV of benchRows rows (issue 30,
// item 5) and resolves it as categorical answers: besides time and
// allocations, the peak of the heap's live objects while reading and
// resolving (sampled every millisecond; peak-MB), what the table holds
// once read (table-MB) and what remains live with the resolved answers
// alone (answers-MB); read-peak-MB is the peak while reading alone.
func BenchmarkReadAnswers(b *testing.B) {
	n := benchRows(b)
	data := answersCSV(n)
	ids := make([]string, (n+4)/5)
	for i := range ids {
		ids[i] = strconv.Itoa(i)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var readPeak, peak, table, answers float64
	for range b.N {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		stop := peakHeap()
		t, err := ReadAnswersWith(bytes.NewReader(data), "bench.csv", DupKeep)
		if err != nil {
			b.Fatal(err)
		}
		readPeak = float64(stop()-base.HeapAlloc) / 1e6
		stop = peakHeap()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		table = float64(ms.HeapAlloc-base.HeapAlloc) / 1e6
		a, err := t.Categorical(ids, nil)
		if err != nil {
			b.Fatal(err)
		}
		t = nil
		runtime.GC()
		runtime.ReadMemStats(&ms)
		answers = float64(ms.HeapAlloc-base.HeapAlloc) / 1e6
		peak = max(readPeak, float64(stop()-base.HeapAlloc)/1e6)
		runtime.KeepAlive(a)
	}
	b.ReportMetric(peak, "peak-MB")
	b.ReportMetric(readPeak, "read-peak-MB")
	b.ReportMetric(table, "table-MB")
	b.ReportMetric(answers, "answers-MB")
	b.ReportMetric(float64(len(data))/1e6, "csv-MB")
}
