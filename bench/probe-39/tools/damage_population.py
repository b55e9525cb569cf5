# damage_population.py CHECKPOINT.xml MODE: E14's damaged populations. MODE: empty, one, many (1000
# members, the first repeated), foreign (every member's genome '<_nope.cu_1>').
import re, sys
path, mode = sys.argv[1], sys.argv[2]
t = open(path).read()
m = re.search(r'(<population>)(.*?)(\n\s*</population>)', t, re.S)
members = re.findall(r'\n\s*<member [^>]*/>', m.group(2))
if mode == "empty": body = ""
elif mode == "one": body = members[0]
elif mode == "many": body = members[0] * 1000
elif mode == "foreign": body = "".join(re.sub(r'genome="[^"]*"', 'genome="&lt;_nope.cu_1&gt;"', x) for x in members)
else: sys.exit("mode: empty, one, many or foreign")
open(path, "w").write(t[:m.start(2)] + body + t[m.end(2):])
