#!/usr/bin/env python3
"""Issue 44's table from bench/gate-corpus.sh runs: for each kernel and gate case (none: the gate
runs on the training cases; made: on the hand-made small case), the median over runs of evolve's
evaluations a minute and of the gate's share of search time, with every run's figures beside it and
whether the issue's targets are met (without a gate case: the gate at most 15% of search; every
kernel whose original runs under 1 ms: at least 2,000 evaluations a minute).

    python3 bench/gate-corpus-median.py DIR...   # every throughput.tsv under the folders

Several device calls each bring back a folder of their own: give them all. A run that did not end
cleanly (evolve's exit status not 0, or no figures) is listed but left out of the medians.
"""
import csv
import statistics
import sys
from pathlib import Path

CORPUS = ["aniso_diffusion", "dp_sweep", "wavefront", "thermal", "lu_update", "elimination", "matmul"]
SHAPES = {
    "aniso_diffusion": "2-D anisotropic diffusion, six output arrays",
    "dp_sweep": "dynamic-programming row sweep (1-D, 300k columns)",
    "wavefront": "wavefront alignment (one anti-diagonal of tiles a launch)",
    "thermal": "2-D thermal stencil",
    "lu_update": "blocked LU, trailing update",
    "elimination": "elimination step",
    "matmul": "matrix multiply (template, small cases)",
}
GATE_TARGET = 15.0
RATE_TARGET = 2000.0


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def read_rows(folders):
    rows = []
    for folder in folders:
        for path in sorted(Path(folder).rglob("throughput.tsv")):
            with open(path, newline="") as f:
                for row in csv.DictReader(f, delimiter="\t"):
                    row["source"] = str(path.parent)
                    rows.append(row)
    return rows


def fmt(value, digits=0):
    return "-" if value is None else f"{value:,.{digits}f}"


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: gate-corpus-median.py DIR... (folders holding bench/throughput.sh's throughput.tsv)")
    rows = read_rows(sys.argv[1:])
    if not rows:
        sys.exit("no throughput.tsv under " + " ".join(sys.argv[1:]))
    groups = {}
    for row in rows:
        groups.setdefault((row["kernel"], row["gate_case"]), []).append(row)
    order = {k: i for i, k in enumerate(CORPUS)}
    keys = sorted(groups, key=lambda k: (order.get(k[0], len(order)), k[0], k[1] != "none", k[1]))

    print("| kernel shape | cases MB | gate case | runs | evaluations a minute: median (runs) "
          "| gate share of search: median (runs) | original ms | targets |")
    print("|---|---|---|---|---|---|---|---|")
    left_out = []
    for key in keys:
        clean = []
        for row in groups[key]:
            rate, share = number(row["eval_per_min"]), number(row["gate_share"])
            if row["exit"] == "0" and rate is not None and share is not None:
                clean.append((rate, share, number(row["original_ms"]), row["mb"]))
            else:
                left_out.append(f"{key[0]} ({key[1]}) in {row['source']}: exit {row['exit']}, "
                                f"eval/min {row['eval_per_min']}, gate share {row['gate_share']}")
        if not clean:
            continue
        rate = statistics.median(r[0] for r in clean)
        share = statistics.median(r[1] for r in clean)
        originals = [r[2] for r in clean if r[2] is not None]
        original = statistics.median(originals) if originals else None
        targets = []
        if key[1] == "none":
            targets.append("gate ok" if share <= GATE_TARGET else f"gate over {GATE_TARGET:.0f}%")
        if original is not None and original < 1.0:
            targets.append("rate ok" if rate >= RATE_TARGET else f"rate under {RATE_TARGET:,.0f}")
        elif original is not None:
            targets.append("rate: n/a (1 ms or more)")
        name = SHAPES.get(key[0], key[0])
        print(f"| {name} (`{key[0]}`) | {clean[0][3]} | {key[1]} | {len(clean)} "
              f"| {fmt(rate)} ({' / '.join(fmt(r[0]) for r in clean)}) "
              f"| {share:.0f}% ({' / '.join(f'{r[1]:.0f}%' for r in clean)}) "
              f"| {fmt(original, 3)} | {', '.join(targets) or '-'} |")
    print()
    print("gate case none: the gate runs on the training cases (a new user's setting); made: on the "
          "kernel's hand-made small case (--sanitize-cases, bench/common.sh record_args `gate`). "
          "Original ms: the original kernel's run time, the median over generations.")
    if left_out:
        print()
        print("Left out of the medians:")
        for line in left_out:
            print(f"- {line}")


if __name__ == "__main__":
    main()
