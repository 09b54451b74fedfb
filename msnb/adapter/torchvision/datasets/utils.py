"""msnb implementation of ``torchvision.datasets.utils``: integrity checks, downloads, archive extraction.

Downloads use ``urllib.request.urlopen`` with a tqdm progress bar (when tqdm
is installed).  When the download fails (no network, e.g. on an offline
Ascend host) one ``RuntimeError`` names the URL and the folder to put the
file in by hand.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import shutil
import tarfile
import urllib.error
import urllib.request
import zipfile

__all__ = ["calculate_md5", "check_md5", "check_integrity", "download_url", "extract_archive",
           "download_and_extract_archive", "gen_bar_updater", "USER_AGENT"]

USER_AGENT = "pytorch/vision"


def calculate_md5(fpath, chunk_size=1024 * 1024):
    md5 = hashlib.md5(usedforsecurity=False)
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            md5.update(chunk)
    return md5.hexdigest()


def check_md5(fpath, md5, **kwargs):
    return md5 == calculate_md5(fpath, **kwargs)


def check_integrity(fpath, md5=None):
    if not os.path.isfile(fpath):
        return False
    if md5 is None:
        return True
    return check_md5(fpath, md5)


def gen_bar_updater():
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is optional
        return None
    return tqdm(total=None, unit="B", unit_scale=True, unit_divisor=1024)


def _urlretrieve(url, filename, chunk_size=1024 * 32):
    request = urllib.request.Request(url, headers={"User-Agent": USER_AGENT})
    with urllib.request.urlopen(request) as response:
        total = response.headers.get("Content-Length") if getattr(response, "headers", None) else None
        bar = None
        try:
            from tqdm import tqdm
            bar = tqdm(total=int(total) if total else None, unit="B", unit_scale=True, unit_divisor=1024,
                       desc=os.path.basename(filename))
        except ImportError:  # pragma: no cover
            pass
        tmp = filename + ".part"
        try:
            with open(tmp, "wb") as fh:
                while True:
                    chunk = response.read(chunk_size)
                    if not chunk:
                        break
                    fh.write(chunk)
                    if bar is not None:
                        bar.update(len(chunk))
        finally:
            if bar is not None:
                bar.close()
        os.replace(tmp, filename)


def _offline_error(url, root, filename, exc):
    return RuntimeError(
        f"Could not download {url} ({type(exc).__name__}: {exc}). msnb cannot reach the network from here. "
        f"Download the file on a machine with internet access and put it at "
        f"{os.path.join(os.path.abspath(root), filename)} (folder {os.path.abspath(root)}), then run again."
    )


def download_url(url, root, filename=None, md5=None, max_redirect_hops=3):
    """Download ``url`` into ``root/filename`` unless a file with the right md5 is already there."""
    root = os.path.expanduser(root)
    if not filename:
        filename = os.path.basename(url)
    fpath = os.path.join(root, filename)
    os.makedirs(root, exist_ok=True)
    if check_integrity(fpath, md5):
        return
    try:
        _urlretrieve(url, fpath)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise _offline_error(url, root, filename, exc) from None
    if not check_integrity(fpath, md5):
        raise RuntimeError(f"File {fpath} downloaded from {url} is corrupted (md5 mismatch).")


def _safe_members(tar, to_path):
    base = os.path.realpath(to_path)
    for m in tar.getmembers():
        target = os.path.realpath(os.path.join(to_path, m.name))
        if not (target == base or target.startswith(base + os.sep)) or m.issym() or m.islnk() or m.isdev():
            raise RuntimeError(f"Refusing to extract unsafe archive member {m.name!r}")
        yield m


def extract_archive(from_path, to_path=None, remove_finished=False):
    """Extract ``.tar(.gz|.bz2|.xz)``, ``.tgz``, ``.zip`` or decompress ``.gz``; members must stay inside ``to_path``."""
    if to_path is None:
        to_path = os.path.dirname(from_path)
    if from_path.endswith((".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz")):
        with tarfile.open(from_path, "r:*") as tar:
            members = list(_safe_members(tar, to_path))
            if hasattr(tarfile, "data_filter"):
                tar.extractall(to_path, members=members, filter="data")
            else:  # pragma: no cover
                tar.extractall(to_path, members=members)
        out = to_path
    elif from_path.endswith(".zip"):
        with zipfile.ZipFile(from_path) as z:
            base = os.path.realpath(to_path)
            for name in z.namelist():
                target = os.path.realpath(os.path.join(to_path, name))
                if not (target == base or target.startswith(base + os.sep)):
                    raise RuntimeError(f"Refusing to extract unsafe archive member {name!r}")
            z.extractall(to_path)
        out = to_path
    elif from_path.endswith(".gz"):
        out = os.path.join(to_path, os.path.basename(from_path)[:-3])
        with gzip.open(from_path, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    else:
        raise RuntimeError(f"Extraction of {from_path} not supported")
    if remove_finished:
        os.remove(from_path)
    return out


def download_and_extract_archive(url, download_root, extract_root=None, filename=None, md5=None,
                                 remove_finished=False):
    download_root = os.path.expanduser(download_root)
    if extract_root is None:
        extract_root = download_root
    if not filename:
        filename = os.path.basename(url)
    download_url(url, download_root, filename, md5)
    archive = os.path.join(download_root, filename)
    extract_archive(archive, extract_root, remove_finished)
