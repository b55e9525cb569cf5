# mkcase.py DIR [key=value...]: writes a hand-made recorded test case into DIR (probe report's
# "mkcase.py", rewritten from its description): kernel `k`, buffer 0 an f32 input (read-only),
# buffer 1 an f32 output that changes, arguments (const float* in, float* out, int n).
#
# keys: kernel=NAME (written XML-escaped), kernel_raw=TEXT (put into the attribute as it is, for
# character references such as &#27;), size0=/size1= (bytes; default 16), off0=/off1= (pointer
# offsets), file0= (buffer 0's blob name in the manifest), grid=X,Y,Z, block=X,Y,Z, shared=BYTES,
# n=INT. A blob larger than 1 GiB is made sparse and its sha256 in the manifest is a dummy one
# (hashing it here would take minutes; gi-tool then reads it all and calls it corrupt).
import hashlib, os, struct, sys
from xml.sax.saxutils import quoteattr

folder = sys.argv[1]
opts = dict(a.split("=", 1) for a in sys.argv[2:])
size0 = int(opts.get("size0", 16))
size1 = int(opts.get("size1", 16))
os.makedirs(folder, exist_ok=True)

def blob(name, size, fill):
    path = os.path.join(folder, name)
    if size > (1 << 30):
        with open(path, "wb") as f:
            f.truncate(size)
        return "0" * 64
    data = bytes(fill(i) for i in range(size))
    with open(path, "wb") as f:
        f.write(data)
    return hashlib.sha256(data).hexdigest()

sha0 = blob("buffer0.before.bin", size0, lambda i: (i * 7) & 0xFF)
sha1b = blob("buffer1.before.bin", size1, lambda i: 0)
sha1a = blob("buffer1.after.bin", size1, lambda i: (i * 3 + 1) & 0xFF)
n = int(opts.get("n", max(size1 // 4, 1)))
nbytes = struct.pack("<i", n)
kernel = opts["kernel_raw"] if "kernel_raw" in opts else quoteattr(opts.get("kernel", "k"))[1:-1]
file0 = quoteattr(opts.get("file0", "buffer0.before.bin"))

manifest = f"""<?xml version="1.0" encoding="UTF-8"?>
<gi-test-case format="2">
    <kernel name="{kernel}"/>
    <launch grid="{opts.get('grid', '1,1,1')}" block="{opts.get('block', '4,1,1')}" shared-bytes="{opts.get('shared', '0')}"/>
    <device name="hand-made" compute-capability="90"/>
    <buffers>
        <buffer index="0" size="{size0}" element="f32" read-only="true" changed="false">
            <before file={file0} sha256="{sha0}"/>
        </buffer>
        <buffer index="1" size="{size1}" element="f32" read-only="false" changed="true">
            <before file="buffer1.before.bin" sha256="{sha1b}"/>
            <after file="buffer1.after.bin" sha256="{sha1a}"/>
        </buffer>
    </buffers>
    <args>
        <arg index="0" kind="pointer" size="8" element="f32" buffer="0" offset="{opts.get('off0', '0')}" const="true"/>
        <arg index="1" kind="pointer" size="8" element="f32" buffer="1" offset="{opts.get('off1', '0')}" const="false"/>
        <arg index="2" kind="scalar" size="4" element="i32" bytes="{nbytes.hex()}" sha256="{hashlib.sha256(nbytes).hexdigest()}"/>
    </args>
</gi-test-case>
"""
with open(os.path.join(folder, "manifest.xml"), "w") as f:
    f.write(manifest)
