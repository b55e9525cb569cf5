#!/usr/bin/env python3
"""A recorded search's individuals as a genome list for `gi-tool cuda-bench --genomes` (one line per
individual: the generation's case, a tab, the genome), so they can be judged again by another
build (bench/rejudge-ab.sh, REJUDGE_GENOMES_DIR).

    python3 bench/run-xml-genomes.py run.xml[.gz] > genomes/stereo.genomes
"""
import gzip
import sys
import xml.etree.ElementTree as ET


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: run-xml-genomes.py RUN_XML (plain or .gz)")
    path = sys.argv[1]
    try:
        root = ET.parse(gzip.open(path) if path.endswith(".gz") else open(path)).getroot()
    except (OSError, ET.ParseError) as e:
        sys.exit(f"{path}: not a readable run record: {e}")
    generations = root.find("generations")
    if root.tag != "gi-run" or generations is None:
        sys.exit(f"{path}: not a gi-tool run record (no <gi-run><generations>)")
    count = 0
    for generation in generations.findall("generation"):
        for individual in generation.findall("individual"):
            print(f"{generation.get('case')}\t{individual.get('genome')}")
            count += 1
    if count == 0:
        sys.exit(f"{path}: the record holds no individuals")


if __name__ == "__main__":
    main()
