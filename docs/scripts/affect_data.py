"""../shared/data/snow2008_affect for the affect_*.py scripts: load(dir, e)
gives the answers of emotion e as arrays (headline d, worker w, answer y),
the gold per headline, and the numbers of headlines and workers; r2 is the
coefficient of determination against the gold."""
import csv
import numpy as np


def load(dir, e):
    rows = list(csv.DictReader(open(f"{dir}/{e}.standardized.tsv"), delimiter="\t"))
    tasks = sorted({r["orig_id"] for r in rows})
    workers = sorted({r["!amt_worker_ids"] for r in rows})
    ti = {t: i for i, t in enumerate(tasks)}
    wi = {w: i for i, w in enumerate(workers)}
    d = np.array([ti[r["orig_id"]] for r in rows])
    w = np.array([wi[r["!amt_worker_ids"]] for r in rows])
    y = np.array([float(r["response"]) for r in rows])
    gold = {r["orig_id"]: float(r["gold"]) for r in rows}
    return d, w, y, np.array([gold[t] for t in tasks]), len(tasks), len(workers)


def r2(g, x):
    return 1 - ((g - x) ** 2).sum() / ((g - g.mean()) ** 2).sum()
