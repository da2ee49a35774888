"""The tiny corpus of `bench/run --quick`: the four corpora of the full suite
in miniature (a few hundred files, one ~5 MB file), made in a second from a
fixed seed, no downloads. Its files hold every pattern of bench/cases.toml, a
hidden directory, a .gitignore'd file and a binary file that matches, so the
line-count check meets the same traps as on the Linux tree.
"""

import os
import random

# Lines of C-like text; the patterns of the cases turn up in some of them.
FILLER = [
    "static int {w}_probe(struct device *dev)",
    "{{",
    "\tstruct {w}_priv *priv = dev_get_drvdata(dev);",
    "\tint ret = 0;",
    "\tif (!priv)",
    "\t\treturn -ENODEV;",
    "\tret = {w}_read(priv, REG_CTRL, &val);",
    "\t/* keep the link up while the device sleeps */",
    "\tspin_lock_irqsave(&priv->lock, flags);",
    "}}",
    "#include <linux/{w}.h>",
    "#define {W}_CTRL 0x{n:04x}",
]
SPICE = [
    "\tcase PM_RESUME:",
    "\tpm_resume(dev); /* Pm_Resume */",
    "\t{W}_SUSPEND = {n},",
    "\tif (state == PM_SUSPEND || state == XFOO_SUSPENDED)",
    "\treturn ERR_SYS;",
    "\twrite(PME_TURN_OFF | LINK_REQ_RST);",
    "\t{w}_RESUME_{W}(x);",
    "\tval = val + 1;",
    "\tcount = count;",
    "\t * Copyright (C) linus torvalds <torvalds@linux-foundation.org>",
    "\t * Linus said so",
    "\tCFG_BME_EVT;",
]
WORDS = ["pci", "usb", "nvme", "ext4", "sched", "mmc", "i2c", "spi", "gpio", "drm"]


def _lines(rng, count):
    out = []
    for _ in range(count):
        w = rng.choice(WORDS)
        pool = SPICE if rng.random() < 0.08 else FILLER
        out.append(rng.choice(pool).format(w=w, W=w.upper(), n=rng.randrange(65536)))
    return "\n".join(out) + "\n"


def make(root):
    """Creates linux/, big.txt and many/ under `root`; returns their sizes."""
    rng = random.Random(4245)
    tree = os.path.join(root, "linux")
    names = ["main.c", "grep.c", "core.c", "core.h", "Makefile", "Kconfig", "util.c", "dev.h"]
    files = []
    for a in range(6):
        for b in range(8):
            d = os.path.join(tree, f"drv{a}", f"sub{b}")
            os.makedirs(d, exist_ok=True)
            for name in rng.sample(names, 6):
                files.append(os.path.join(d, name))
    hidden = os.path.join(tree, ".hidden")
    os.makedirs(hidden)
    files += [os.path.join(hidden, "main.c"), os.path.join(tree, "ignored.c")]
    for path in files:
        with open(path, "w") as f:
            f.write(_lines(rng, rng.randrange(20, 400)))
    with open(os.path.join(tree, ".gitignore"), "w") as f:
        f.write("ignored.c\n.hidden/\n")
    # A binary file with matches: one notice line from every tool.
    with open(os.path.join(tree, "drv0", "firmware.bin"), "wb") as f:
        f.write(b"\x7fELF\x00\x01\x02 PM_RESUME linus pm_resume\x00\n" * 50)

    sources = sorted(p for p in files if p.endswith(".c"))
    text = "".join(open(p).read() for p in sources)
    with open(os.path.join(root, "big.txt"), "w") as f:
        written = 0
        while written < 5_000_000:
            f.write(text)
            written += len(text)

    n = 0
    for a in range(2):
        for b in range(4):
            d = os.path.join(root, "many", f"d{a:02d}", f"e{b:02d}")
            os.makedirs(d)
            for c in range(50):
                with open(os.path.join(d, f"f{c:03d}.txt"), "w") as f:
                    f.write(f"line one of file {n}\nsome filler text {n * 7919 % 100003}\n")
                n += 1
    # The 400k tree's pattern ("of file 3133") must match something here too.
    with open(os.path.join(root, "many", "d00", "e00", "f999.txt"), "w") as f:
        f.write("line one of file 3133\nline one of file 31337\n")
    docs = _docs(root, sources)
    return {"linux_files": len(files) + 2, "big_bytes": written, "many_files": n + 1,
            "docs_files": docs}


def _docs(root, sources):
    """docs/: the same sources gzip'd, in a tar.xz and in a zip, and a PDF,
    each with a line holding the docs cases' pattern."""
    import gzip, io, lzma, tarfile, zipfile
    d = os.path.join(root, "docs")
    os.makedirs(d)
    texts = [(os.path.basename(p) + str(i), open(p).read() + "Dijkstra was here\n")
             for i, p in enumerate(sources[:12])]
    for name, text in texts[:4]:
        with gzip.open(os.path.join(d, name + ".gz"), "wt") as f:
            f.write(text)
    with tarfile.open(os.path.join(d, "src.tar.xz"), "w:xz") as tar:
        for name, text in texts[4:8]:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    with zipfile.ZipFile(os.path.join(d, "src.zip"), "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in texts[8:12]:
            z.writestr(name, text)
    with open(os.path.join(d, "paper.pdf"), "wb") as f:
        f.write(_pdf(["A note by Dijkstra", "on structured programming", "Dijkstra again"]))
    return 7


def _pdf(lines):
    """A one-page PDF in Helvetica with these lines."""
    content = "BT /F1 12 Tf 14 TL 72 740 Td\n" + "".join(f"({ln}) Tj T*\n" for ln in lines) + "ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        "/Resources << /Font << /F1 3 0 R >> >> /Contents 5 0 R >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
    ]
    out = b"%PDF-1.4\n"
    offsets = []
    for i, obj in enumerate(objects):
        offsets.append(len(out))
        out += f"{i + 1} 0 obj\n{obj}\nendobj\n".encode()
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += "".join(f"{o:010} 00000 n \n" for o in offsets).encode()
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out
