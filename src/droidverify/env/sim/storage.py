"""The phone's shared external storage (``/storage/emulated/0``) as one SQL table.

Every app that shows files (Notes/Markor keeps its notes here, the Files app browses everything)
reads and writes the same table through these helpers, so a note created in Markor shows up in
Files and a file deleted in Files is gone from Markor.

Table ``files``: ``path`` (absolute, normalised, primary key), ``parent`` (the parent's path),
``name``, ``is_dir`` (0/1), ``size`` (bytes), ``mime``, ``modified`` (epoch seconds of
``phone.now`` read as UTC, so values do not depend on the host's time zone; see
:func:`to_datetime`) and ``content`` (text of text files; NULL for binary files such as photos,
which only have a size).

Use:

* every app that touches storage calls :func:`ensure_storage` from its ``create_schema``; it is
  idempotent (the table and the standard folders ``DCIM``, ``Download``, ``Documents``, ``Music``,
  ``Pictures``, ``Movies``, ``Alarms``, ``Ringtones`` are created only the first time);
* non-note files (camera photos, downloaded PDFs, music...) are seeded by
  :func:`seed_common_files`, which the **Files app** calls from its ``seed_data``. It draws from
  its own RNG (``f"{phone.seed}:storage"``) and does nothing the second time, so any app may call
  it and the result is the same. The Notes app seeds only its own folder
  (``Documents/Markor``).

Paths may be given absolute (``/storage/emulated/0/Download/a.pdf``), with the ``/sdcard`` alias,
or relative to the storage root (``Download/a.pdf``). Anything outside the root, empty names,
``..`` escaping the root, or names with ``/``/NUL raise :class:`~droidverify.errors.EnvError`
naming the path.
"""

from __future__ import annotations

import mimetypes
import posixpath
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from droidverify.env.sim.timeutil import epoch, to_datetime
from droidverify.errors import EnvError

if TYPE_CHECKING:
    from droidverify.env.sim.phone import Phone

ROOT = "/storage/emulated/0"
STANDARD_DIRS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Pictures", "Ringtones")
_ALIASES = ("/sdcard", "/mnt/sdcard", "/storage/self/primary")
_EXTRA_MIME = {".md": "text/markdown", ".txt": "text/plain", ".json": "application/json",
               ".mp3": "audio/mpeg", ".m4a": "audio/mp4", ".ogg": "audio/ogg"}


@dataclass(frozen=True)
class FileEntry:
    """One row of the ``files`` table."""

    path: str
    parent: str
    name: str
    is_dir: bool
    size: int
    mime: str
    modified: int  # epoch seconds (phone clock read as UTC)

    @property
    def modified_dt(self) -> datetime:
        return to_datetime(self.modified)

    @property
    def rel_path(self) -> str:
        """Path relative to the storage root ("" for the root itself)."""
        return "" if self.path == ROOT else self.path[len(ROOT) + 1:]


# ---- paths --------------------------------------------------------------------------------------
def check_name(name: str) -> str:
    """A valid single file/folder name (stripped), else EnvError."""
    if not isinstance(name, str):
        raise EnvError(f"file name must be a string, got {type(name).__name__}")
    n = name.strip()
    if not n:
        raise EnvError("file name is empty")
    if n in (".", ".."):
        raise EnvError(f"file name {name!r} is not allowed")
    if "/" in n or "\x00" in n:
        raise EnvError(f"file name {name!r} contains '/' or NUL")
    if len(n.encode("utf-8")) > 255:
        raise EnvError(f"file name {name[:40]!r}... is longer than 255 bytes")
    return n


def normalize(path: str) -> str:
    """The canonical absolute path under :data:`ROOT` for ``path`` (see module doc), else EnvError."""
    if not isinstance(path, str):
        raise EnvError(f"path must be a string, got {type(path).__name__}")
    p = path.strip()
    if not p:
        raise EnvError("path is empty")
    if "\x00" in p:
        raise EnvError(f"path {path!r} contains NUL")
    for alias in _ALIASES:
        if p == alias or p.startswith(alias + "/"):
            p = ROOT + p[len(alias):]
            break
    if not p.startswith("/"):
        p = ROOT + "/" + p
    # resolve "." and ".." ourselves so escaping the root is an error, not a silent clamp
    parts: list[str] = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise EnvError(f"path {path!r} goes above '/'")
            parts.pop()
        else:
            parts.append(part)
    out = "/" + "/".join(parts)
    if out != ROOT and not out.startswith(ROOT + "/"):
        raise EnvError(f"path {path!r} is outside shared storage {ROOT}")
    return out


def guess_mime(name: str) -> str:
    ext = posixpath.splitext(name)[1].lower()
    if ext in _EXTRA_MIME:
        return _EXTRA_MIME[ext]
    return mimetypes.guess_type(name, strict=False)[0] or "application/octet-stream"


# ---- schema -------------------------------------------------------------------------------------
def ensure_storage(phone: Phone) -> None:
    """Create the ``files`` table and the standard folders the first time; later calls do nothing."""
    if phone.query_one("SELECT name FROM sqlite_master WHERE type='table' AND name='files'") is not None:
        return
    phone.execute(
        "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, parent TEXT NOT NULL, name TEXT NOT NULL, "
        "is_dir INTEGER NOT NULL, size INTEGER NOT NULL DEFAULT 0, mime TEXT NOT NULL DEFAULT '', "
        "modified INTEGER NOT NULL, content TEXT)")
    phone.execute("CREATE INDEX IF NOT EXISTS files_parent ON files(parent)")
    now = epoch(phone.now)
    phone.execute("INSERT OR IGNORE INTO files VALUES(?, ?, ?, 1, 0, 'inode/directory', ?, NULL)",
                  (ROOT, posixpath.dirname(ROOT), posixpath.basename(ROOT), now))
    for d in STANDARD_DIRS:
        phone.execute("INSERT OR IGNORE INTO files VALUES(?, ?, ?, 1, 0, 'inode/directory', ?, NULL)",
                      (f"{ROOT}/{d}", ROOT, d, now))


def _row(phone: Phone, path: str):  # -> sqlite3.Row | None
    return phone.query_one("SELECT * FROM files WHERE path=?", (path,))


def _entry(r) -> FileEntry:  # r: sqlite3.Row
    return FileEntry(r["path"], r["parent"], r["name"], bool(r["is_dir"]), r["size"], r["mime"], r["modified"])


def _need_dir(phone: Phone, path: str, what: str) -> None:
    r = _row(phone, path)
    if r is None:
        raise EnvError(f"{what} {path!r} does not exist")
    if not r["is_dir"]:
        raise EnvError(f"{what} {path!r} is a file, not a folder")


# ---- queries ------------------------------------------------------------------------------------
def exists(phone: Phone, path: str) -> bool:
    return _row(phone, normalize(path)) is not None


def is_dir(phone: Phone, path: str) -> bool:
    r = _row(phone, normalize(path))
    return bool(r is not None and r["is_dir"])


def stat(phone: Phone, path: str) -> FileEntry:
    """The entry at ``path``; EnvError if there is none."""
    p = normalize(path)
    r = _row(phone, p)
    if r is None:
        raise EnvError(f"no file or folder at {p!r}")
    return _entry(r)


_SORTS = {"name": "name COLLATE NOCASE ASC", "modified": "modified DESC, name COLLATE NOCASE",
          "size": "size DESC, name COLLATE NOCASE"}


def list_dir(phone: Phone, path: str = ROOT, *, sort: str = "name", dirs_first: bool = True,
             show_hidden: bool = False) -> list[FileEntry]:
    """Children of folder ``path`` sorted by ``name`` | ``modified`` (newest first) | ``size``."""
    p = normalize(path)
    _need_dir(phone, p, "folder")
    if sort not in _SORTS:
        raise EnvError(f"unknown sort {sort!r} (use {', '.join(_SORTS)})")
    order = ("is_dir DESC, " if dirs_first else "") + _SORTS[sort]
    rows = phone.query(f"SELECT * FROM files WHERE parent=? ORDER BY {order}", (p,))
    return [_entry(r) for r in rows if show_hidden or not r["name"].startswith(".")]


def walk(phone: Phone, path: str = ROOT) -> list[FileEntry]:
    """Every entry strictly below ``path`` (any depth), sorted by path."""
    p = normalize(path)
    rows = phone.query(f"SELECT * FROM files WHERE {_BELOW} ORDER BY path", _below(p))
    return [_entry(r) for r in rows]


# "strictly below folder p" (LIKE would be case-insensitive, so compare the prefix exactly)
_BELOW = "substr(path, 1, ?) = ?"


def _below(p: str) -> tuple[int, str]:
    return len(p) + 1, p + "/"


def read_file(phone: Phone, path: str) -> str:
    """Text content of a file ("" for binary files, which have none); EnvError for folders/missing."""
    p = normalize(path)
    r = _row(phone, p)
    if r is None:
        raise EnvError(f"no file at {p!r}")
    if r["is_dir"]:
        raise EnvError(f"{p!r} is a folder, not a file")
    return r["content"] or ""


def search(phone: Phone, text: str, path: str = ROOT) -> list[FileEntry]:
    """Entries below ``path`` whose name contains ``text`` (case-insensitive)."""
    needle = text.strip().lower()
    return [e for e in walk(phone, path) if needle in e.name.lower()]


# ---- changes ------------------------------------------------------------------------------------
def mkdir(phone: Phone, path: str, *, parents: bool = False, exist_ok: bool = False) -> str:
    """Create folder ``path``; returns its normalised path."""
    p = normalize(path)
    check_name(posixpath.basename(p))
    r = _row(phone, p)
    if r is not None:
        if r["is_dir"] and exist_ok:
            return p
        raise EnvError(f"{p!r} already exists")
    parent = posixpath.dirname(p)
    if _row(phone, parent) is None and parents:
        mkdir(phone, parent, parents=True, exist_ok=True)
    _need_dir(phone, parent, "parent folder")
    phone.execute("INSERT INTO files VALUES(?, ?, ?, 1, 0, 'inode/directory', ?, NULL)",
                  (p, parent, posixpath.basename(p), epoch(phone.now)))
    return p


def write_file(phone: Phone, path: str, content: str | None = "", *, size: int | None = None,
               mime: str | None = None, modified: datetime | None = None, overwrite: bool = True,
               parents: bool = False) -> FileEntry:
    """Create or replace a file. ``content=None`` makes a binary file of ``size`` bytes.

    ``size`` defaults to the UTF-8 length of ``content``; ``modified`` to ``phone.now``.
    """
    p = normalize(path)
    name = check_name(posixpath.basename(p))
    if name != posixpath.basename(p):
        raise EnvError(f"file name {posixpath.basename(p)!r} has leading/trailing spaces")
    if content is not None and not isinstance(content, str):
        raise EnvError(f"content of {p!r} must be text or None, got {type(content).__name__}")
    parent = posixpath.dirname(p)
    if parents:
        mkdir(phone, parent, parents=True, exist_ok=True)
    _need_dir(phone, parent, "parent folder")
    r = _row(phone, p)
    if r is not None:
        if r["is_dir"]:
            raise EnvError(f"{p!r} is a folder; cannot write a file there")
        if not overwrite:
            raise EnvError(f"file {p!r} already exists")
    nbytes = size if size is not None else len((content or "").encode("utf-8"))
    if nbytes < 0:
        raise EnvError(f"size of {p!r} must be >= 0, got {nbytes}")
    ts = epoch(modified or phone.now)
    phone.execute("INSERT OR REPLACE INTO files VALUES(?, ?, ?, 0, ?, ?, ?, ?)",
                  (p, parent, name, nbytes, mime or guess_mime(name), ts, content))
    return stat(phone, p)


def append_file(phone: Phone, path: str, text: str) -> FileEntry:
    """Append ``text`` to an existing text file."""
    return write_file(phone, path, read_file(phone, path) + text)


def delete(phone: Phone, path: str, *, recursive: bool = False) -> int:
    """Delete a file or folder (folders with content need ``recursive``); returns entries removed."""
    p = normalize(path)
    if p == ROOT:
        raise EnvError("cannot delete the storage root")
    r = _row(phone, p)
    if r is None:
        raise EnvError(f"no file or folder at {p!r}")
    n = 1
    if r["is_dir"]:
        below = phone.query_one(f"SELECT COUNT(*) AS n FROM files WHERE {_BELOW}", _below(p))["n"]
        if below and not recursive:
            raise EnvError(f"folder {p!r} is not empty ({below} entries); pass recursive=True")
        phone.execute(f"DELETE FROM files WHERE {_BELOW}", _below(p))
        n += below
    phone.execute("DELETE FROM files WHERE path=?", (p,))
    return n


def _relocate(phone: Phone, src: str, dst: str) -> None:
    """Move entry ``src`` (and everything below it) to ``dst`` (checked by callers)."""
    name = posixpath.basename(dst)
    row = _row(phone, src)
    mime = row["mime"] if row["is_dir"] or posixpath.splitext(name)[1] == posixpath.splitext(src)[1] \
        else guess_mime(name)  # a renamed extension changes the type, as MediaStore would
    n = len(src)
    # children first (their prefix still equals src), then the entry itself
    phone.execute(f"UPDATE files SET path = ? || substr(path, ?), parent = ? || substr(parent, ?) WHERE {_BELOW}",
                  (dst, n + 1, dst, n + 1, *_below(src)))
    phone.execute("UPDATE files SET path=?, parent=?, name=?, mime=? WHERE path=?",
                  (dst, posixpath.dirname(dst), name, mime, src))


def _check_target(phone: Phone, src: str, dst: str) -> None:
    if src == ROOT:
        raise EnvError("cannot move or rename the storage root")
    if _row(phone, src) is None:
        raise EnvError(f"no file or folder at {src!r}")
    if dst == src:
        raise EnvError(f"{src!r} is already there")
    if dst.startswith(src + "/"):
        raise EnvError(f"cannot move folder {src!r} into itself ({dst!r})")
    if _row(phone, dst) is not None:
        raise EnvError(f"{dst!r} already exists")


def rename(phone: Phone, path: str, new_name: str) -> str:
    """Rename in place; returns the new path. EnvError if the name is taken or invalid."""
    src = normalize(path)
    dst = posixpath.join(posixpath.dirname(src), check_name(new_name))
    _check_target(phone, src, dst)
    _relocate(phone, src, dst)
    return dst


def move(phone: Phone, path: str, dest_dir: str) -> str:
    """Move a file/folder into folder ``dest_dir`` keeping its name; returns the new path."""
    src = normalize(path)
    d = normalize(dest_dir)
    _need_dir(phone, d, "destination folder")
    dst = posixpath.join(d, posixpath.basename(src))
    _check_target(phone, src, dst)
    _relocate(phone, src, dst)
    return dst


def copy(phone: Phone, path: str, dest_dir: str) -> str:
    """Copy a file/folder (recursively) into ``dest_dir``; returns the new path."""
    src = normalize(path)
    d = normalize(dest_dir)
    _need_dir(phone, d, "destination folder")
    dst = posixpath.join(d, posixpath.basename(src))
    _check_target(phone, src, dst)
    n = len(src)
    ts = epoch(phone.now)
    phone.execute("INSERT INTO files SELECT ?, ?, name, is_dir, size, mime, ?, content FROM files WHERE path=?",
                  (dst, d, ts, src))
    phone.execute("INSERT INTO files SELECT ? || substr(path, ?), ? || substr(parent, ?), name, is_dir, size, "
                  f"mime, ?, content FROM files WHERE {_BELOW}", (dst, n + 1, dst, n + 1, ts, *_below(src)))
    return dst


def human_size(n: int) -> str:
    """``"1.4 MB"``-style size as file managers show it (1000-based like Android)."""
    if n < 1000:
        return f"{n} B"
    for unit in ("kB", "MB", "GB", "TB"):
        n_f = n / 1000
        if n_f < 1000 or unit == "TB":
            return f"{n_f:.1f} {unit}" if n_f < 100 else f"{n_f:.0f} {unit}"
        n = int(n_f)
    return f"{n} B"  # unreachable


# ---- seeding ------------------------------------------------------------------------------------
_PDFS = ("Boarding_pass_LH1234.pdf", "Invoice_2024-09.pdf", "Lease_agreement.pdf", "Resume_2024.pdf",
         "Tax_return_2023.pdf", "Concert_tickets.pdf", "Warranty_card.pdf", "Bank_statement_Sep.pdf",
         "Recipe_collection.pdf", "Train_ticket_Berlin.pdf")
_DOWNLOADS = (("app-release.apk", "application/vnd.android.package-archive", 18_400_000),
              ("wallpaper_mountains.jpg", "image/jpeg", 2_300_000),
              ("meeting_notes.docx", None, 48_000), ("budget_2024.xlsx", None, 36_500),
              ("podcast_episode_42.mp3", None, 41_200_000))
_SONGS = ("Morning Walk.mp3", "Sunset Drive.mp3", "Rainy Day.mp3", "Ocean Breeze.mp3", "City Lights.mp3")
_MOVIES = ("Birthday_party.mp4", "Beach_trip.mp4", "Concert_clip.mp4")
_SCREENSHOTS = 3


def seed_common_files(phone: Phone) -> bool:
    """Seed photos, screenshots, downloads, music and movies once; returns False if already seeded.

    Uses its own RNG (``f"{phone.seed}:storage"``) so the files are the same whichever app calls it.
    """
    ensure_storage(phone)
    if exists(phone, f"{ROOT}/DCIM/Camera"):
        return False
    rng = random.Random(f"{phone.seed}:storage")
    now = phone.now
    mkdir(phone, f"{ROOT}/DCIM/Camera")
    for _ in range(rng.randint(8, 14)):
        t = now - timedelta(days=rng.randint(0, 60), hours=rng.randint(0, 12), minutes=rng.randint(0, 59),
                            seconds=rng.randint(0, 59))
        name = f"IMG_{t:%Y%m%d_%H%M%S}.jpg"
        if not exists(phone, f"{ROOT}/DCIM/Camera/{name}"):
            write_file(phone, f"{ROOT}/DCIM/Camera/{name}", None, size=rng.randint(1_800_000, 5_200_000),
                       modified=t)
    mkdir(phone, f"{ROOT}/Pictures/Screenshots")
    for _ in range(_SCREENSHOTS):
        t = now - timedelta(days=rng.randint(0, 30), seconds=rng.randint(0, 86_399))
        write_file(phone, f"{ROOT}/Pictures/Screenshots/Screenshot_{t:%Y%m%d-%H%M%S}.png", None,
                   size=rng.randint(300_000, 1_400_000), modified=t)
    for name in rng.sample(_PDFS, 5):
        t = now - timedelta(days=rng.randint(1, 90), seconds=rng.randint(0, 86_399))
        write_file(phone, f"{ROOT}/Download/{name}", None, size=rng.randint(60_000, 2_500_000), modified=t)
    for name, mime, size in rng.sample(_DOWNLOADS, 3):
        t = now - timedelta(days=rng.randint(1, 90), seconds=rng.randint(0, 86_399))
        write_file(phone, f"{ROOT}/Download/{name}", None, size=size, mime=mime, modified=t)
    for name in rng.sample(_SONGS, 3):
        write_file(phone, f"{ROOT}/Music/{name}", None, size=rng.randint(3_000_000, 9_000_000),
                   modified=now - timedelta(days=rng.randint(30, 400)))
    for name in rng.sample(_MOVIES, 2):
        write_file(phone, f"{ROOT}/Movies/{name}", None, size=rng.randint(20_000_000, 250_000_000),
                   modified=now - timedelta(days=rng.randint(5, 200)))
    return True
