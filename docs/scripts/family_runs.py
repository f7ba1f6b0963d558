"""The per-draw rows of TestRandomFamily's -v output (configuration 0), for
the family_*.py scripts: read_rows(paths) maps a draw's name to its fields
(the table's cells, stripped); mv_ds(fields) is (majority vote, Dawid–Skene)."""


def read_rows(paths):
    rows = {}
    for path in paths:
        cfg = -1
        for line in open(path):
            if line.startswith('### configuration'):
                cfg = int(line.split()[-1])
                continue
            if cfg != 0 or not line.startswith(('| draw', '| b', '| crowded')):
                continue
            f = [x.strip() for x in line.strip().strip('|').split('|')]
            if f[0] != 'draw':
                rows[f[0]] = f
    return rows


def mv_ds(f):
    return float(f[8]), float(f[9])
