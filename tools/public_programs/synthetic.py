"""Small synthetic data sets in the on-disk formats public programs read.

Each generator writes into a folder and returns nothing; values are seeded so
both runs of a program (real PyTorch, msnb) read identical bytes.  Formats
are the real ones: MNIST's idx files, Cora's tab-separated content/cites,
WikiText's token lines, an image folder of PNGs, BSDS300's JPEG folders, the
char-RNN tutorial's names/<Language>.txt files.
"""

from __future__ import annotations

import gzip
import struct
from pathlib import Path

import numpy as np

__all__ = ["GENERATORS", "make"]


def _idx(path: Path, arr: np.ndarray) -> None:
    """Write ``arr`` (uint8) in the idx format MNIST ships (magic 0x08, big-endian dims)."""
    header = struct.pack(">BBBB", 0, 0, 0x08, arr.ndim) + b"".join(struct.pack(">I", d) for d in arr.shape)
    data = header + arr.astype(np.uint8).tobytes()
    path.write_bytes(data)
    with gzip.open(str(path) + ".gz", "wb") as f:
        f.write(data)


def _digits(rng, n):
    """Images whose label is readable from them (a bright square in one of ten places)."""
    labels = rng.integers(0, 10, n)
    imgs = (rng.random((n, 28, 28)) * 60).astype(np.uint8)
    for i, k in enumerate(labels):
        r, c = divmod(int(k), 5)
        imgs[i, 4 + r * 12:12 + r * 12, 2 + c * 5:6 + c * 5] = 255
    return imgs, labels.astype(np.uint8)


def mnist(root: Path, n_train=1200, n_test=400, name="MNIST") -> None:
    raw = root / name / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for split, n in (("train", n_train), ("t10k", n_test)):
        imgs, labels = _digits(rng, n)
        _idx(raw / f"{split}-images-idx3-ubyte", imgs)
        _idx(raw / f"{split}-labels-idx1-ubyte", labels)


def cora(root: Path, n=300, feats=200, classes=7) -> None:
    d = root / "cora"
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    names = [f"Class_{k}" for k in range(classes)]
    labels = rng.integers(0, classes, n)
    with open(d / "cora.content", "w") as f:
        for i in range(n):
            x = (rng.random(feats) < 0.05).astype(int)
            x[labels[i] * (feats // classes)] = 1
            f.write("\t".join([str(1000 + i), *map(str, x), names[labels[i]]]) + "\n")
    with open(d / "cora.cites", "w") as f:
        for i in range(n):
            for j in rng.choice(np.flatnonzero(labels == labels[i]), 3):
                if j != i:
                    f.write(f"{1000 + i}\t{1000 + j}\n")


def wikitext(root: Path, tokens=6000, vocab=300) -> None:
    d = root / "data" / "wikitext-2"
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    words = [f"w{k}" for k in range(vocab)]
    for split, n in (("train", tokens), ("valid", tokens // 5), ("test", tokens // 5)):
        seq = rng.integers(0, vocab, n)
        lines = [" ".join(words[k] for k in seq[i:i + 20]) for i in range(0, n, 20)]
        (d / f"{split}.txt").write_text("\n".join(lines) + "\n")


def ptb(root: Path, tokens=3000, vocab=200) -> None:
    """Penn Treebank's ``data/train.txt`` layout: one sentence of space-separated words per line."""
    d = root / "data"
    d.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    seq = rng.integers(0, vocab, tokens)
    lines = [" " + " ".join(f"w{k}" for k in seq[i:i + 15]) + " " for i in range(0, tokens, 15)]
    (d / "train.txt").write_text("\n".join(lines) + "\n")


def image_folder(root: Path, classes=3, per_class=8, size=40) -> None:
    from PIL import Image
    rng = np.random.default_rng(0)
    for split in ("train", "test", "val"):
        for c in range(classes):
            d = root / "images" / split / f"class{c}"
            d.mkdir(parents=True, exist_ok=True)
            for i in range(per_class):
                arr = (rng.random((size, size, 3)) * 255).astype(np.uint8)
                Image.fromarray(arr).save(d / f"{i}.png")


def bsds300(root: Path, n_train=8, n_test=4, size=(264, 264)) -> None:
    """BSDS300's layout (``dataset/BSDS300/images/{train,test}/*.jpg``) with
    smooth random colour images, so super-resolution has structure to learn."""
    from PIL import Image
    rng = np.random.default_rng(0)
    h, w = size
    yy, xx = np.mgrid[0:h, 0:w] / max(h, w)
    for split, n in (("train", n_train), ("test", n_test)):
        d = root / "dataset" / "BSDS300" / "images" / split
        d.mkdir(parents=True, exist_ok=True)
        for i in range(n):
            f = rng.random((3, 3)) * 12
            img = np.stack([np.sin(f[c, 0] * xx + f[c, 1] * yy + f[c, 2]) for c in range(3)], -1)
            arr = ((img * 0.5 + 0.5) * 255).astype(np.uint8)
            Image.fromarray(arr).save(d / f"{100000 + i}.jpg", quality=95)


def names(root: Path, languages=5, per_language=50) -> None:
    """The char-RNN tutorial's ``data/names/<Language>.txt`` files (one name a
    line, UTF-8); each language draws names from its own syllables."""
    rng = np.random.default_rng(0)
    d = root / "data" / "names"
    d.mkdir(parents=True, exist_ok=True)
    letters = "abcdefghijklmnopqrstuvwxyz"
    for k in range(languages):
        sylls = ["".join(rng.choice(list(letters), 2)) for _ in range(6)]
        rows = []
        for _ in range(per_language):
            name = "".join(rng.choice(sylls, int(rng.integers(2, 5))))
            rows.append(name.capitalize())
        (d / f"Language{k}.txt").write_text("\n".join(rows) + "\n", encoding="utf-8")


GENERATORS = {
    "mnist_parent": lambda cwd: mnist(cwd.parent / "data"),
    "mnist_here": lambda cwd: mnist(cwd / "data"),
    "mnist_grandparent": lambda cwd: mnist(cwd.parent.parent / "data"),
    "mnist_grandparent_20k": lambda cwd: mnist(cwd.parent.parent / "data", n_train=20000),
    "fashion_mnist_here": lambda cwd: mnist(cwd / "data", name="FashionMNIST"),
    "fashion_mnist_parent": lambda cwd: mnist(cwd.parent / "data", name="FashionMNIST"),
    "cora": lambda cwd: cora(cwd),
    "bsds300": lambda cwd: bsds300(cwd),
    "names": lambda cwd: names(cwd),
    "wikitext": lambda cwd: wikitext(cwd),
    "ptb_here": lambda cwd: ptb(cwd),
    "image_folder": lambda cwd: image_folder(cwd),
}


def make(names, cwd: Path) -> None:
    for n in names:
        GENERATORS[n](cwd)
