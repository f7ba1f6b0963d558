#!/usr/bin/env python3
"""Wide Markdown tables from a results.csv of `maslda experiment`.

One row per K, one column per model, mean ± sample s.d. over the seeds of
the done runs (the mean alone for one run), for each metric asked; a model
run at several (alpha, tau, omega) settings shows, per K, the setting with
the best mean (as `maslda plot metric` does), named under the table.
Standard library only; for docs/results.md:

    python3 docs/scripts/results_table.py results/r8/results.csv heldout_accuracy truth_accuracy
"""
import csv
import statistics
import sys


def main(path, metrics):
    rows = [r for r in csv.DictReader(open(path)) if r["status"] == "done"]
    models = []
    for r in rows:
        if r["model"] not in models:
            models.append(r["model"])
    ks = sorted({int(r["k"]) for r in rows if r["k"]})
    for metric in metrics:
        lower = metric.endswith(("mae", "rmse", "seconds", "peak_rss_mib", "iters"))
        print(f"\n{metric}:\n")
        print("| K | " + " | ".join(models) + " |")
        print("|---|" + "---|" * len(models))
        notes = []
        for k in ks:
            cells = []
            for m in models:
                groups = {}
                for r in rows:
                    if r["model"] != m or r[metric] == "":
                        continue
                    if r["k"] and int(r["k"]) != k:
                        continue
                    key = (r["alpha"], r["tau"], r["omega"])
                    groups.setdefault(key, []).append(float(r[metric]))
                if not groups:
                    cells.append("–")
                    continue
                best = (min if lower else max)(groups, key=lambda g: statistics.mean(groups[g]))
                v = groups[best]
                s = f"{statistics.mean(v):.3f}"
                if len(v) > 1:
                    s += f" ± {statistics.stdev(v):.3f}"
                if len(groups) > 1:
                    notes.append(f"{m} at K = {k}: alpha {best[0]}, tau {best[1]}, omega {best[2] or '-'} (best of {len(groups)})")
                cells.append(s.replace("-", "−"))
            print(f"| {k} | " + " | ".join(cells) + " |")
        for n in notes:
            print(f"- {n}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: results_table.py results.csv METRIC [METRIC ...]")
    main(sys.argv[1], sys.argv[2:])
