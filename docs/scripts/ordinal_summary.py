# Table of docs/results.md "Ordinal targets" from the runs of ordinal_run.sh: python3 docs/scripts/ordinal_summary.py (in the experiment directory)
"""Baselines, the comparison table and annotator recovery for docs/results.md
("Ordinal targets"). Run from the experiment directory after run.sh."""
import csv, json, math, os, sys
from collections import Counter, defaultdict

def read_truth(spec):
    kind, path = spec
    out = {}
    if kind == "column":
        for i, l in enumerate(open(path)):
            l = l.strip()
            if l:
                out[str(i)] = l
    else:
        r = csv.reader(open(path)); next(r)
        for t, l in r:
            out[t] = l
    return out

SETS = {
    "we":  dict(name="we8there, 1–5 stars, simulated", levels="we/levels.txt", answers="we/answers.csv",
                tr=("column", "we/truth_train.txt"), tt=("column", "we/truth_test.txt"), sim=True),
    "pl4": dict(name="Pang & Lee, 4 classes, simulated", levels="pl/levels4.txt", answers="pl/answers4.csv",
                tr=("csv", "pl/truth4_train.csv"), tt=("csv", "pl/truth4_test.csv"), sim=True),
    "pl3": dict(name="Pang & Lee, 3 classes, simulated", levels="pl/levels3.txt", answers="pl/answers3.csv",
                tr=("csv", "pl/truth3_train.csv"), tt=("csv", "pl/truth3_test.csv"), sim=True),
    "mv":  dict(name="movie reviews, real AMT, 4 buckets", levels="mv/levels.txt", answers="mv/answers.csv",
                tr=("column", "mv/truth_train.txt"), tt=("column", "mv/truth_test.txt"), sim=False),
}
TRUE = dict(shift=[0, 1, 0, 0, -0.5], stretch=[1, 1, 2.5, 1, 1], precision=[6, 4, 4, 1, 0.7])

F = lambda x: 1 / (1 + math.exp(-x)) if x > -700 else 0.0
Phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))

def interval_prob(cdf, lo, hi):
    return (cdf(hi) if hi is not None else 1.0) - (cdf(lo) if lo is not None else 0.0)

def cuts(C):
    pos = [c - (C - 1) / 2 for c in range(C)]
    kap = [l + 0.5 - (C - 1) / 2 for l in range(C - 1)]
    return pos, kap

def implied_ord(a, C):  # P(answer = c | c) for ordinal-shift (shift, stretch, precision)
    pos, kap = cuts(C)
    out = []
    for c in range(C):
        x = a["stretch"] * pos[c] + a["shift"]
        lo = a["precision"] * (kap[c - 1] - x) if c > 0 else None
        hi = a["precision"] * (kap[c] - x) if c < C - 1 else None
        out.append(interval_prob(F, lo, hi))
    return out

def implied_gauss(bias, sd, values):  # the answer read as the nearest level
    C = len(values)
    out = []
    for c in range(C):
        lo = (values[c - 1] + values[c]) / 2 if c > 0 else None
        hi = (values[c] + values[c + 1]) / 2 if c < C - 1 else None
        m = values[c] + bias
        out.append(interval_prob(lambda x: Phi((x - m) / sd), lo, hi))
    return out

def main():
    rows, rec = [], []
    for key, s in SETS.items():
        if not any(os.path.exists(f"runs/{key}_{m}.truth.json") for m in ("ord", "sm", "ga")):
            continue
        levels = [l.strip() for l in open(s["levels"]) if l.strip()]
        idx = {l: i for i, l in enumerate(levels)}
        C = len(levels)
        tr, tt = read_truth(s["tr"]), read_truth(s["tt"])
        ans = defaultdict(list)
        r = csv.reader(open(s["answers"])); next(r)
        answers = [(t, w, l) for t, w, l in r]
        for t, w, l in answers:
            ans[t].append(idx[l])
        # truth baselines: majority vote (ties: the level nearest the median answer, then the lower) and the (lower) median answer
        mv_acc = mv_mae = md_acc = md_mae = n = 0
        for t, ls in ans.items():
            if t not in tr:
                continue
            y = idx[tr[t]]
            srt = sorted(ls)
            med = srt[(len(srt) - 1) // 2]
            cnt = Counter(ls)
            top = max(cnt.values())
            cands = [c for c in cnt if cnt[c] == top]
            mv = min(cands, key=lambda c: (abs(c - med), c))
            n += 1
            mv_acc += mv == y; mv_mae += abs(mv - y)
            md_acc += med == y; md_mae += abs(med - y)
        # held-out baselines: the most frequent answered level, and the median of all answers
        allans = sorted(idx[l] for _, _, l in answers)
        mode = Counter(allans).most_common(1)[0][0]
        med = allans[(len(allans) - 1) // 2]
        ytest = [idx[v] for v in tt.values()]
        ho = lambda p: (sum(p == y for y in ytest) / len(ytest), sum(abs(p - y) for y in ytest) / len(ytest))
        rows.append(f"| {s['name']} | majority vote / median answer | {mv_acc/n:.3f} / {md_acc/n:.3f} | {mv_mae/n:.3f} / {md_mae/n:.3f} | most frequent answer / median answer | {ho(mode)[0]:.3f} / {ho(med)[0]:.3f} | {ho(mode)[1]:.3f} / {ho(med)[1]:.3f} | | |")
        # empirical accuracy per annotator, and truth frequencies
        freq = Counter(idx[v] for v in tr.values())
        f = [freq[c] / sum(freq.values()) for c in range(C)]
        emp = defaultdict(lambda: [0, 0])
        for t, w, l in answers:
            if t in tr:
                emp[w][0] += idx[l] == idx[tr[t]]
                emp[w][1] += 1
        for m, label in (("ord", "ordinal + ordinal-shift"), ("sm", "softmax + confusion"), ("ga", "gaussian + bias-precision")):
            base = f"runs/{key}_{m}"
            if not os.path.exists(base + ".heldout.json"):
                continue
            T, H = json.load(open(base + ".truth.json")), json.load(open(base + ".heldout.json"))
            tm = open(base + ".time").read().split()  # "E s M KB [U user S sys]"
            secs = f"{float(tm[4]) + float(tm[6]):.0f}" if len(tm) >= 8 else f"({float(tm[0]):.0f} wall)"

            # model-implied P(answer = truth), weighted by the truth's level frequencies, against the empirical one
            implied = {}
            for a in csv.DictReader(open(base + "/annotators.csv")):
                if m == "ord":
                    p = implied_ord({k: float(a[k]) for k in ("shift", "stretch", "precision")}, C)
                elif m == "sm":
                    p = [float(a[f"pi:{levels[c]}:{levels[c]}"]) for c in range(C)]
                else:
                    p = implied_gauss(float(a["bias"]), float(a["sd"]), [float(v) for v in levels])
                implied[a["annotator"]] = sum(f[c] * p[c] for c in range(C))
            tot = sum(emp[w][1] for w in implied if emp[w][1])
            gap = sum(emp[w][1] * abs(implied[w] - emp[w][0] / emp[w][1]) for w in implied if emp[w][1]) / tot
            rows.append(f"| | {label} | {T['accuracy']:.3f} | {T['mae']:.3f} / {T['median_mae']:.3f} | | {H['accuracy']:.3f} | {H['mae']:.3f} / {H['median_mae']:.3f} | {gap:.3f} | {secs} |")
            if m == "ord" and s["sim"]:
                est = {a["annotator"]: a for a in csv.DictReader(open(base + "/annotators.csv"))}
                cells = []
                for i in range(5):
                    a = est[f"a{i}"]
                    cells.append(f"{float(a['shift']):+.2f} / {float(a['stretch']):.2f} / {float(a['precision']):.2f}")
                rec.append(f"| {s['name']} | " + " | ".join(cells) + " |")
    print("| data | model | truth acc. | truth MAE (label / median) | held-out baseline | held-out acc. | held-out MAE (label / median) | annotator gap | train CPU s |")
    print("|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))
    print()
    print("| data | a0: 0 / 1 / 6 | a1: +1 / 1 / 4 | a2: 0 / 2.5 / 4 | a3: 0 / 1 / 1 | a4: −0.5 / 1 / 0.7 |")
    print("|---|---|---|---|---|---|")
    print("\n".join(rec))

main()
