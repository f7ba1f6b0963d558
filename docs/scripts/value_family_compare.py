# Compare two configurations of the randomised value family (issue 25):
# TestRandomValueFamily's tables (its -v output), per draw and in summary:
# mean truth R², fits below the mean answer / the answers-only fit (− 0.005),
# the gap share (mean answer → oracle) and the seed spread.
#
#   /usr/bin/python3 docs/scripts/value_family_compare.py RUN.txt
#       the first configuration of RUN.txt against its last (one run, configurations separated by ---)
#   /usr/bin/python3 docs/scripts/value_family_compare.py OLD.txt[,OLD2.txt...] NEW.txt
#       the last configuration of NEW.txt against OLD's (several OLD files merge, later ones winning per draw)
#
# A cross-check for docs/results-regression.md, never a runtime dependency.
import statistics as st
import sys


def tables(path):
    out, cur = [], None
    for l in open(path):
        if l.startswith('### configuration'):
            cur = {}
            out.append(cur)
        elif l.startswith('| ') and not l.startswith('| draw |'):
            c = [x.strip() for x in l.strip().strip('|').split('|')]
            if len(c) < 16 or not c[0].split('.')[-1].startswith('draw'):
                continue
            if cur is None:
                cur = {}
                out.append(cur)
            cur[c[0]] = dict(mean=float(c[10]), ans=float(c[11]), oracle=float(c[12]),
                             fits=[float(x) for x in c[14].split()], held=[float(x) for x in c[15].split()])
    return out


def pct(xs, p):
    xs = sorted(xs)
    k = (len(xs) - 1) * p
    f = int(k)
    return xs[f] + (xs[min(f + 1, len(xs) - 1)] - xs[f]) * (k - f)


def summary(name, rows, pick):
    allf, bm, ba, gaps, spreads, held = [], 0, 0, [], [], []
    for k, n, o in rows:
        d = pick(n, o)
        for f in d['fits']:
            allf.append(f)
            bm += f < n['mean'] - 0.005
            ba += f < n['ans'] - 0.005
            den = n['oracle'] - n['mean']
            if den > 1e-9:
                gaps.append((f - n['mean']) / den)
        spreads.append(max(d['fits']) - min(d['fits']))
        held += d['held']
    print(f"{name}: {len(allf)} fits, mean truth R² {st.mean(allf):.4f}, held-out {st.mean(held):.4f}; "
          f"below the mean answer {bm}, below the answers-only fit {ba}; gap share median {st.median(gaps):.3f} "
          f"p10 {pct(gaps, 0.1):.3f} worst {min(gaps):.2f}; seed spread median {st.median(spreads):.3f} "
          f"p90 {pct(spreads, 0.9):.3f} worst {max(spreads):.3f}")


def main():
    if len(sys.argv) == 2:
        t = tables(sys.argv[1])
        old, new = t[0], t[-1]
    else:
        old = {}
        for p in sys.argv[1].split(','):
            old.update(tables(p)[-1])
        new = tables(sys.argv[2])[-1]
    rows = [(k, new[k], old[k]) for k in sorted(new, key=lambda s: (len(s), s)) if k in old]
    summary('before', rows, lambda n, o: o)
    summary('after ', rows, lambda n, o: n)
    print('| draw | mean answer | answers only | before | after |')
    print('|---|---|---|---|---|')
    for k, n, o in rows:
        low = min(n['fits']) < n['ans'] - 0.005 or min(n['fits']) < n['mean'] - 0.005
        moved = max(abs(a - b) for a, b in zip(n['fits'], o['fits']))
        if moved > 0.005 or low:
            print(f"| {k} | {n['mean']:.3f} | {n['ans']:.3f} | {' '.join('%.3f' % x for x in o['fits'])} | "
                  f"{' '.join('%.3f' % x for x in n['fits'])}{' (below)' if low else ''} |")


main()
