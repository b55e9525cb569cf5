# tools/reseal.py ENTRY.xml (probe report appendix): recompute the checksum of a gi-tool cache entry (gi-tool's entry_checksum, reimplemented), in place.
import re, sys, hashlib
path = sys.argv[1]
raw = open(path, 'rb').read()
t = raw.decode('utf-8', 'surrogateescape')
def unesc(s):
    s = re.sub(r'&#x([0-9a-fA-F]+);', lambda m: chr(int(m.group(1), 16)), s)
    s = re.sub(r'&#([0-9]+);', lambda m: chr(int(m.group(1))), s)
    return s.replace('&lt;', '<').replace('&gt;', '>').replace('&quot;', '"').replace('&apos;', "'").replace('&amp;', '&')
def text(tag, s=None):
    s = t if s is None else s
    out = []
    for m in re.finditer(r'<%s(?:\s[^>]*)?>(.*?)</%s>|<%s(?:\s[^>]*)?/>' % (tag, tag, tag), s, re.S):
        v = m.group(1) or ''
        cd = re.fullmatch(r'<!\[CDATA\[(.*)\]\]>', v, re.S)
        out.append(cd.group(1) if cd else unesc(v))
    return out
def attr(tag, name):
    m = re.search(r'<%s\s[^>]*\b%s="([^"]*)"' % (tag, name), t)
    return unesc(m.group(1))
def field(name, value):
    b = value.encode('utf-8', 'surrogateescape')
    return name.encode() + b':' + str(len(b)).encode() + b':' + b + b'\n'
c = b'gi-cache-entry 1\n'
c += field('kernel-file', attr('kernel', 'file'))
arch = attr('kernel', 'architecture'); c += field('architecture', arch[3:] if arch.startswith('sm_') else arch)
c += field('key', text('key')[0])
c += field('source-sha256', attr('key', 'source-sha256'))
c += field('grammar-version', attr('key', 'grammar-version'))
reg = re.search(r'<registration>(.*)</registration>', t, re.S).group(1)
for f in ['function', 'param', 'flag', 'block-size', 'grid', 'tolerance']:
    for v in text(f, reg): c += field(f, v)
c += field('genome', text('genome')[0])
for m in re.finditer(r'<parameter name="([^"]*)" value="([^"]*)"/>', t):
    c += field('parameter', unesc(m.group(1)) + '=' + unesc(m.group(2)))
prov = re.search(r'<provenance>(.*)</provenance>', t, re.S).group(1)
for f in ['origin', 'gpu', 'driver', 'nvcc', 'date', 'tool-version', 'original-ms', 'variant-ms', 'cases-validated', 'elements-validated', 'worst-error', 'note']:
    v = text(f, prov); c += field(f, v[0] if v else '')
w = text('waiver', prov)
if w and w[0]: c += field('waiver', w[0])
h = hashlib.sha256(c).hexdigest()
t2 = re.sub(r'(<checksum algorithm="sha256">)[0-9a-f]*(</checksum>)', r'\g<1>%s\2' % h, t)
open(path, 'wb').write(t2.encode('utf-8', 'surrogateescape'))
print(h)
