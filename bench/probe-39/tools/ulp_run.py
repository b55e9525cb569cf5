# tools/ulp_run.py SRC DST (probe E17, class 3), as in the probe report's appendix.
import re, sys, shutil, os
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst, dirs_exist_ok=True)
p = os.path.join(dst, "run.xml")
t = open(p).read()
vals = ["1", "1.0000000000000002"]
i = [0]
def gen(m):
    s = m.group(0)
    s = re.sub(r'best-speedup="[^"]*"', 'best-speedup="%s"' % vals[i[0] % 2], s)
    i[0] += 1
    return s
t = re.sub(r'<generation [^>]*>', gen, t)
t = t.replace('accepted="1" speedup=', 'accepted="0" speedup=')
open(p, "w").write(t)
