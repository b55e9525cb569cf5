#!/usr/bin/env python3
"""Per genome, the search's correct measurements over a whole run: how often it was drawn, the
median and the fastest speedup (run.xml's individuals: status ok, error 0, not a repeat within its
generation). Shows the winner's curse a search's single best measurement suffers, and which genomes
were consistently faster (confirm_best's candidates by median).

    python3 bench/run-xml-genome-medians.py RUN.xml [RUN.xml ...] [--top 3] [--at-least 5]
    python3 bench/run-xml-genome-medians.py --self-test
"""
import statistics
import sys
import xml.etree.ElementTree as ET


def genome_speedups(path):
    by = {}
    root = ET.parse(path).getroot()
    for generation in root.find('generations'):
        for i in generation.findall('individual'):
            if i.get('status') != 'ok' or float(i.get('error', '0')) > 0 or i.get('repeat') == '1':
                continue
            by.setdefault(i.get('genome'), []).append(float(i.get('speedup')))
    return by


def rows(by, top, at_least):
    ranked = sorted(((statistics.median(v), len(v), max(v), g) for g, v in by.items() if g and len(v) >= at_least),
                    reverse=True)
    return ranked[:top]


def self_test():
    import tempfile, os
    xml = """<run><generations><generation index="0">
      <individual genome="a=1" status="ok" error="0" speedup="1.5" repeat="0"/>
      <individual genome="a=1" status="ok" error="0" speedup="0.9" repeat="0"/>
      <individual genome="a=1" status="ok" error="0" speedup="0.95" repeat="0"/>
      <individual genome="b=1" status="ok" error="0" speedup="1.1" repeat="0"/>
      <individual genome="b=1" status="ok" error="0" speedup="1.08" repeat="0"/>
      <individual genome="b=1" status="ok" error="0" speedup="1.07" repeat="0"/>
      <individual genome="b=1" status="ok" error="0" speedup="1.07" repeat="1"/>
      <individual genome="c=1" status="ok" error="0.5" speedup="3.0" repeat="0"/>
      <individual genome="c=1" status="ok" error="0.5" speedup="3.0" repeat="0"/>
      <individual genome="c=1" status="ok" error="0.5" speedup="3.0" repeat="0"/>
    </generation></generations></run>"""
    with tempfile.NamedTemporaryFile('w', suffix='.xml', delete=False) as f:
        f.write(xml)
    try:
        r = rows(genome_speedups(f.name), 3, 3)
    finally:
        os.unlink(f.name)
    assert [(g, n) for _, n, _, g in r] == [('b=1', 3), ('a=1', 3)], r
    assert r[0][0] == 1.08 and r[1][2] == 1.5, r
    print('self-test passed')


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    top, at_least, paths = 3, 5, []
    args = iter(argv[1:])
    for a in args:
        if a == '--top':
            top = int(next(args))
        elif a == '--at-least':
            at_least = int(next(args))
        else:
            paths.append(a)
    if not paths:
        sys.exit(__doc__)
    for p in paths:
        print(p)
        for median, n, fastest, genome in rows(genome_speedups(p), top, at_least):
            print(f'    median {median:.3f}x over {n} draws (fastest {fastest:.3f}x): {genome}')


if __name__ == '__main__':
    main(sys.argv)
