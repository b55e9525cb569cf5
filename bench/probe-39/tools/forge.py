# forge.py ENTRY.xml FIELD TEXT: a forged cache entry, as an attacker with a text editor makes one:
# the text of the entry's <FIELD> element (origin, gpu, driver, nvcc, date, note, waiver...) is
# replaced by TEXT, put in as it is (so character references such as &#10; or &#27; stay
# references for the XML parser to turn into control characters), then reseal.py recomputes the
# checksum so that the entry passes it. (Probe rows A1-A6.)
import os, re, subprocess, sys

path, field, text = sys.argv[1], sys.argv[2], sys.argv[3]
t = open(path, encoding="utf-8").read()
t2, n = re.subn(r"<%s>.*?</%s>|<%s/>" % (field, field, field), lambda m: "<%s>%s</%s>" % (field, text, field), t, count=1,
                flags=re.S)
if n != 1:
    sys.exit("forge.py: %s has no <%s> element" % (path, field))
open(path, "w", encoding="utf-8").write(t2)
subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "reseal.py"), path],
               check=True, stdout=subprocess.DEVNULL)
