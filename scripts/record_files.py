"""Paths that run through a record's archive, read as if the archive were unpacked.

A record under results/ keeps its raw output as one archive beside its pages
(docs/scripts.md, "Records"):

    results/<machine>/<date>-<commit>[-<what>]/
        manifest.md  report.md  raw.tar.xz     (raw.tar.xz holds raw/...)

Every path through `raw/` still names what it named when the folder was unpacked:
`results/h200x2/2026-12-01-964b2a0/raw/sweep` is a results directory whether `raw/`
is a folder on disk or only `raw.tar.xz` is. The rule: where a component D of a path is
missing on disk and `D.tar.xz` sits beside it, the rest of the path is read inside that
archive, whose members start with D's name. A folder on disk always wins over its archive.

Only the calls the scripts need are here: exists, isdir, isfile, listdir, read_bytes.
Archives are read once and kept in memory (a record's archive is at most 1 MB packed).
"""

from __future__ import annotations

import functools
import io
import lzma
import os
import tarfile

ARCHIVE_SUFFIX = ".tar.xz"


@functools.lru_cache(maxsize=8)
def _members(archive: str, _mtime: float) -> dict:
    """{member path: bytes (files) or None (folders)} of an archive, every parent folder
    included; cached per archive and modification time."""
    out = {}
    with tarfile.open(archive, "r:xz") as tar:
        for m in tar:
            name = m.name.lstrip("./").rstrip("/")
            if not name:
                continue
            if m.isfile():
                out[name] = tar.extractfile(m).read()
            elif m.isdir():
                out.setdefault(name, None)
            parent = os.path.dirname(name)
            while parent and parent not in out:
                out[parent] = None
                parent = os.path.dirname(parent)
    return out


def members(archive: str) -> dict:
    """The members of an archive ({path: bytes or None for a folder})."""
    return _members(archive, os.path.getmtime(archive))


def split(path: str):
    """(archive, member) when path runs through an archive (see the module's rule), else None."""
    path = os.path.normpath(str(path))
    if os.path.exists(path):
        return None
    head, tail = path, []
    while head and head not in (os.sep, "."):
        if not os.path.exists(head) and os.path.isfile(head + ARCHIVE_SUFFIX):
            member = "/".join([os.path.basename(head)] + list(reversed(tail)))
            return head + ARCHIVE_SUFFIX, member
        head, part = os.path.split(head)
        tail.append(part)
    return None


def exists(path: str) -> bool:
    if os.path.exists(path):
        return True
    inside = split(path)
    return inside is not None and inside[1] in members(inside[0])


def isdir(path: str) -> bool:
    if os.path.exists(path):
        return os.path.isdir(path)
    inside = split(path)
    if inside is None:
        return False
    m = members(inside[0])
    return inside[1] in m and m[inside[1]] is None


def isfile(path: str) -> bool:
    return exists(path) and not isdir(path)


def listdir(path: str) -> list:
    """The names in a folder, on disk or inside an archive; OSError when there is none."""
    if os.path.exists(path):
        return os.listdir(path)
    inside = split(path)
    if inside is None or not isdir(path):
        raise FileNotFoundError(2, "No such file or directory", path)
    prefix = inside[1] + "/"
    return sorted({n[len(prefix):].split("/")[0] for n in members(inside[0])
                   if n.startswith(prefix)})


def read_bytes(path: str) -> bytes:
    """A file's bytes, on disk or inside an archive; OSError when there is none."""
    if os.path.exists(path):
        with open(path, "rb") as f:
            return f.read()
    inside = split(path)
    data = members(inside[0]).get(inside[1]) if inside else None
    if data is None:
        raise FileNotFoundError(2, "No such file or directory", path)
    return data


def walk_files(path: str):
    """Every file under a folder (on disk or inside an archive), as paths, in name order."""
    for name in sorted(listdir(path)):
        sub = os.path.join(path, name)
        if isdir(sub):
            yield from walk_files(sub)
        else:
            yield sub


def pack(folder: str, archive: str) -> None:
    """Writes folder (and everything under it) into archive, the same bytes for the same
    files: members in name order, no owners, times or modes of this machine."""
    folder = os.path.normpath(folder)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for root, dirs, files in os.walk(folder):
            dirs.sort()
            rel = os.path.relpath(root, os.path.dirname(folder))
            tar.addfile(_info(rel, tarfile.DIRTYPE, 0o755, 0))
            for name in sorted(files):
                path = os.path.join(root, name)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                tar.addfile(_info(f"{rel}/{name}", tarfile.REGTYPE, 0o644, len(data)),
                            io.BytesIO(data))
    with open(archive + ".tmp", "wb") as out:
        out.write(lzma.compress(buf.getvalue(), preset=9 | lzma.PRESET_EXTREME))
    os.replace(archive + ".tmp", archive)


def _info(name: str, kind, mode: int, size: int) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.mode, info.size = kind, mode, size
    info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
    return info


def unpack(archive: str, into: str) -> None:
    """Unpacks archive into the folder that holds it (into), refusing members that would
    land outside it."""
    into = os.path.realpath(into)
    with tarfile.open(archive, "r:xz") as tar:
        for m in tar.getmembers():
            dest = os.path.realpath(os.path.join(into, m.name))
            if not (dest == into or dest.startswith(into + os.sep)) or not (m.isfile() or
                                                                              m.isdir()):
                raise ValueError(f"{archive}: member {m.name!r} is not a plain file or "
                                 "folder inside the record")
        tar.extractall(into, filter="data") if hasattr(tarfile, "data_filter") else \
            tar.extractall(into)
