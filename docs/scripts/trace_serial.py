#!/usr/bin/env python3
"""Where a run with several workers leaves all but one of them idle.

Reads the text dump of a Go execution trace that also holds the CPU
profiler's samples (a test binary run with both -test.trace and
-test.cpuprofile), counts the time during which 0, 1, 2, ... Ps were
running, and lists the samples taken while exactly one P was running,
grouped by their innermost frames of this repository (the serial parts
of the run):

    MASLDA_SHAPE_WORKERS=2 ./models.test -test.run '^$' \\
        -test.bench '^BenchmarkShapes$/shape=vocab/model=lda$' -test.benchtime 1x \\
        -test.trace t.trace -test.cpuprofile p.prof
    go tool trace -d=parsed t.trace > t.txt
    python3 docs/scripts/trace_serial.py t.txt [--skip synth.] [--top 25]

--skip drops samples whose stack has a frame containing the string (the
benchmark's corpus generation, which is not the run's). A sample is one
profiler tick (10 ms of CPU).
"""
import argparse
import collections
import re


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump")
    ap.add_argument("--skip", action="append", default=[])
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--frames", type=int, default=4)
    a = ap.parse_args()
    lines = open(a.dump).read().split("\n")
    running = {}  # P id -> running
    timeline, samples = [], []
    ev = re.compile(r"M=\S+ P=(\S+) G=(\S+) (\w+) Time=(\d+)(.*)")
    for i, line in enumerate(lines):
        m = ev.match(line)
        if not m:
            continue
        kind, t, rest = m.group(3), int(m.group(4)), m.group(5)
        if kind == "StateTransition" and "ProcID=" in rest:
            p = re.search(r"ProcID=(\d+) (\w+)->(\w+)", rest)
            running[p.group(1)] = p.group(3) == "Running"
            timeline.append((t, sum(running.values())))
        elif kind == "StackSample":
            stack, j = [], i + 2
            while j < len(lines) and lines[j].startswith("\t"):
                if not lines[j].startswith("\t\t"):
                    stack.append(lines[j].strip().split(" @")[0])
                j += 1
            if not any(s in f for s in a.skip for f in stack):
                samples.append((sum(running.values()), stack))
    dur = collections.Counter()
    for (t0, n), (t1, _) in zip(timeline, timeline[1:]):
        dur[n] += t1 - t0
    print("seconds with n Ps running:", {n: round(d / 1e9, 3) for n, d in sorted(dur.items())})
    print("samples by Ps running:", dict(sorted(collections.Counter(n for n, _ in samples).items())))
    groups = collections.Counter()
    for n, stack in samples:
        if n == 1:
            own = [f.split("maslda/maslda/")[-1] for f in stack if "maslda/maslda/" in f]
            groups[" < ".join(own[: a.frames]) or stack[0]] += 1
    print("samples with one P running, by innermost frames of this repository:")
    for g, c in groups.most_common(a.top):
        print(f"{c:5d}  {g}")


if __name__ == "__main__":
    main()
