#!/usr/bin/env python3
"""Figures read back from a gi-tool run.xml (plain or .gz), for the results files under bench/results.

  sweep RUN_XML GENE...        the fastest ok point of a parameter sweep for each combination of the
                               named genes' values (a gene missing from a genome is at its default,
                               shown as "default"), and the median relative spread of the points
  edits RUN_XML START EDIT     for a search started from START: per kind of edit (pragma, volatile,
                               restrict, const scalars, and EDIT), how many individuals carried it,
                               how many distinct, how many accepted (individuals and distinct), and
                               the best accepted speedup;
                               then the median speedup of START alone and of START plus EDIT

Example (the figures in bench/results/2026-11-23-h100-joint-sweeps.md and -issue-5-results.md):
  python3 bench/run-xml-report.py sweep bench/results/data/2026-11-23-h100-joint-sweeps/stereo-box/run.xml.gz OUT_TYPE dlcm
  python3 bench/run-xml-report.py edits bench/results/data/2026-11-23-h100-joint-sweeps/stereo-evolve-long/run.xml.gz \
      "ROWS_PER_THREAD=3 XHALO=1 DPER=4 STORE_DISPARITY_PIXEL=1 STORE_MIN_SSD=2" "<_stereo.cu_215>"
"""
import gzip
import re
import statistics
import sys
import xml.etree.ElementTree as ET


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return ET.parse(f).getroot()


def gene_value(genome, gene):
    match = re.search(r"(?:^| )" + re.escape(gene) + r"=(\S+)", genome)
    return match.group(1) if match else "default"


def sweep(root, genes):
    pre = root.find("pre-tune")
    if pre is None:
        sys.exit("no <pre-tune> in this run.xml: not a parameter sweep")
    best, spreads = {}, []
    for point in pre.findall("point"):
        if point.get("status") != "ok":
            continue
        gain, genome = float(point.get("gain")), point.get("genome")
        time = point.find("time")
        spreads.append(float(time.get("spread-ms")) / float(time.get("median-ms")))
        key = tuple(gene_value(genome, g) for g in genes)
        if key not in best or gain > best[key][0]:
            best[key] = (gain, genome)
    print(" | ".join(genes) + " | fastest gain | point")
    for key in sorted(best):
        print(" | ".join(key) + f" | {best[key][0]:.3f}x | {best[key][1]}")
    print(f"ok points: {len(spreads)}; median relative spread of a point's time: {statistics.median(spreads):.4f}")


def edits(root, start, edit):
    individuals = [(i.get("genome"), i.get("accepted") == "1", float(i.get("speedup") or 0))
                   for i in root.iter("individual")]
    kinds = [("#pragma unroll", "<pragma_"), ("volatile", "volatile=1"), ("__restrict__", "restrict=1"),
             ("const scalars", "const_"), (edit, edit)]
    print(f"individuals in the search: {len(individuals)}")
    print("edit | individuals | distinct | accepted individuals | accepted distinct | best accepted speedup")
    for name, token in kinds:
        carrying = [x for x in individuals if token in x[0]]
        accepted = [x for x in carrying if x[1]]
        best = max((x[2] for x in accepted), default=0)
        print(f"{name} | {len(carrying)} | {len({x[0] for x in carrying})} | {len(accepted)} | "
              f"{len({x[0] for x in accepted})} | {best:.2f}x")
    for label, genome in (("start", start), ("start + edit", start + " " + edit)):
        times = [x[2] for x in individuals if x[0] == genome and x[1]]
        median = f"{statistics.median(times):.2f}x" if times else "never evaluated"
        print(f"{label}: median speedup {median} over {len(times)} accepted evaluations")


def main(argv):
    if len(argv) >= 4 and argv[1] == "sweep":
        sweep(load(argv[2]), argv[3:])
    elif len(argv) == 5 and argv[1] == "edits":
        edits(load(argv[2]), argv[3], argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
