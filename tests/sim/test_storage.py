"""Shared external storage: paths, listing, read/write, move/rename/delete/copy, idempotent set-up."""

from __future__ import annotations

from datetime import datetime

import pytest

from droidverify.env.sim import storage as st
from droidverify.env.sim.phone import Phone
from droidverify.errors import EnvError

R = st.ROOT


@pytest.fixture()
def phone() -> Phone:
    p = Phone(seed=3, seed_data=False)
    st.ensure_storage(p)
    return p


def names(entries: list[st.FileEntry]) -> list[str]:
    return [e.name for e in entries]


def test_normalize_accepts_aliases_relative_and_dots() -> None:
    assert st.normalize("/sdcard/Download/a.pdf") == f"{R}/Download/a.pdf"
    assert st.normalize("Documents//Markor/./x.md") == f"{R}/Documents/Markor/x.md"
    assert st.normalize(f"{R}/Music/../Movies/") == f"{R}/Movies"
    assert st.normalize(R) == R


@pytest.mark.parametrize("bad", ["", "   ", "/etc/passwd", f"{R}/../../..", "/../x", "a\x00b", "/storage/emulated/1/x"])
def test_normalize_rejects_bad_paths(bad: str) -> None:
    with pytest.raises(EnvError):
        st.normalize(bad)


def test_normalize_rejects_non_string() -> None:
    with pytest.raises(EnvError, match="string"):
        st.normalize(42)  # type: ignore[arg-type]


def test_standard_tree_and_idempotent_ensure(phone: Phone) -> None:
    assert names(st.list_dir(phone, R)) == sorted(st.STANDARD_DIRS, key=str.lower)
    st.delete(phone, f"{R}/Ringtones")
    st.ensure_storage(phone)  # a second app's create_schema must not resurrect or duplicate anything
    assert "Ringtones" not in names(st.list_dir(phone, R))
    assert phone.query_one("SELECT COUNT(*) AS n FROM files")["n"] == len(st.STANDARD_DIRS)  # 7 dirs + root


def test_write_read_list_and_sorts(phone: Phone) -> None:
    e = st.write_file(phone, "Documents/b.txt", "héllo")
    assert e.size == len("héllo".encode()) and e.mime == "text/plain" and not e.is_dir
    assert e.modified_dt == phone.now
    phone.advance(60)
    st.write_file(phone, "Documents/A.md", "# big\n" * 100)
    st.mkdir(phone, "Documents/zfolder")
    assert names(st.list_dir(phone, "Documents")) == ["zfolder", "A.md", "b.txt"]  # folders first, no case
    assert names(st.list_dir(phone, "Documents", sort="modified", dirs_first=False))[0] in ("A.md", "zfolder")
    assert names(st.list_dir(phone, "Documents", sort="size", dirs_first=False))[0] == "A.md"
    assert st.read_file(phone, "/sdcard/Documents/b.txt") == "héllo"
    st.write_file(phone, "Documents/b.txt", "new")
    assert st.read_file(phone, "Documents/b.txt") == "new"
    assert st.append_file(phone, "Documents/b.txt", "\nline").size == 8
    with pytest.raises(EnvError, match="already exists"):
        st.write_file(phone, "Documents/b.txt", "x", overwrite=False)
    with pytest.raises(EnvError, match="unknown sort"):
        st.list_dir(phone, "Documents", sort="colour")


def test_hidden_files_are_hidden_unless_asked(phone: Phone) -> None:
    st.write_file(phone, "Documents/.nomedia", "")
    assert names(st.list_dir(phone, "Documents")) == []
    assert names(st.list_dir(phone, "Documents", show_hidden=True)) == [".nomedia"]


def test_errors_name_the_path(phone: Phone) -> None:
    with pytest.raises(EnvError, match="Nope"):
        st.read_file(phone, "Documents/Nope.txt")
    with pytest.raises(EnvError, match="folder"):
        st.read_file(phone, "Documents")
    with pytest.raises(EnvError, match="parent folder"):
        st.write_file(phone, "Missing/x.txt", "x")
    with pytest.raises(EnvError, match="is a file"):
        st.list_dir(phone, st.write_file(phone, "Download/f.txt", "x").path)
    with pytest.raises(EnvError, match="already exists"):
        st.mkdir(phone, "Download")
    with pytest.raises(EnvError, match="root"):
        st.delete(phone, R)
    with pytest.raises(EnvError, match="'/'"):
        st.rename(phone, "Download/f.txt", "a/b")
    with pytest.raises(EnvError, match="empty"):
        st.rename(phone, "Download/f.txt", "  ")


def test_mkdir_parents_and_write_parents(phone: Phone) -> None:
    st.write_file(phone, "Documents/Markor/Work/todo.md", "- a", parents=True)
    assert st.is_dir(phone, "Documents/Markor") and st.is_dir(phone, "Documents/Markor/Work")
    assert st.mkdir(phone, "Documents/Markor", exist_ok=True) == f"{R}/Documents/Markor"


def test_delete_requires_recursive_for_nonempty_folder(phone: Phone) -> None:
    st.write_file(phone, "Documents/Trip/plan.md", "x", parents=True)
    st.write_file(phone, "Documents/Trip/sub/deep.md", "y", parents=True)
    st.write_file(phone, "Documents/trip2.md", "keep")  # a sibling sharing the prefix must survive
    with pytest.raises(EnvError, match="not empty"):
        st.delete(phone, "Documents/Trip")
    assert st.delete(phone, "Documents/Trip", recursive=True) == 4
    assert not st.exists(phone, "Documents/Trip/sub/deep.md")
    assert st.exists(phone, "Documents/trip2.md")


def test_prefix_match_is_case_sensitive(phone: Phone) -> None:
    st.mkdir(phone, "Documents/Notes")
    st.mkdir(phone, "Documents/notes")
    st.write_file(phone, "Documents/notes/a.md", "lower")
    assert st.delete(phone, "Documents/Notes") == 1  # empty: the lowercase folder's file is not its child
    assert st.read_file(phone, "Documents/notes/a.md") == "lower"


def test_rename_and_move_carry_children(phone: Phone) -> None:
    st.write_file(phone, "Documents/Old/a.md", "A", parents=True)
    st.write_file(phone, "Documents/Old/in/b.md", "B", parents=True)
    new = st.rename(phone, "Documents/Old", "New")
    assert new == f"{R}/Documents/New"
    assert st.read_file(phone, "Documents/New/in/b.md") == "B"
    assert st.stat(phone, "Documents/New/in/b.md").parent == f"{R}/Documents/New/in"
    assert not st.exists(phone, "Documents/Old/a.md")
    moved = st.move(phone, "Documents/New", "Download")
    assert moved == f"{R}/Download/New" and st.read_file(phone, "Download/New/a.md") == "A"
    assert names(st.list_dir(phone, "Download/New")) == ["in", "a.md"]
    with pytest.raises(EnvError, match="into itself"):
        st.move(phone, "Download/New", "Download/New/in")
    st.write_file(phone, "Download/a.md", "other")
    with pytest.raises(EnvError, match="already exists"):
        st.move(phone, "Download/a.md", "Download/New")
    with pytest.raises(EnvError, match="destination"):
        st.move(phone, "Download/a.md", "Download/a.md")


def test_rename_changes_mime_with_extension(phone: Phone) -> None:
    st.write_file(phone, "Documents/x.txt", "t")
    st.rename(phone, "Documents/x.txt", "x.md")
    assert st.stat(phone, "Documents/x.md").mime == "text/markdown"


def test_copy_is_deep_and_independent(phone: Phone) -> None:
    st.write_file(phone, "Documents/P/a.md", "A", parents=True)
    st.write_file(phone, "Documents/P/q/b.md", "B", parents=True)
    assert st.copy(phone, "Documents/P", "Download") == f"{R}/Download/P"
    st.write_file(phone, "Download/P/q/b.md", "changed")
    assert st.read_file(phone, "Documents/P/q/b.md") == "B"
    assert [e.rel_path for e in st.walk(phone, "Download/P")] == ["Download/P/a.md", "Download/P/q",
                                                                   "Download/P/q/b.md"]


def test_search_and_human_size(phone: Phone) -> None:
    st.write_file(phone, "Documents/Groceries.md", "milk")
    st.write_file(phone, "Download/grocery_list.pdf", None, size=1_234_567)
    assert sorted(e.name for e in st.search(phone, "GROCER")) == ["Groceries.md", "grocery_list.pdf"]
    assert st.read_file(phone, "Download/grocery_list.pdf") == ""
    assert st.human_size(999) == "999 B" and st.human_size(1_234_567) == "1.2 MB"


def test_seed_common_files_is_deterministic_and_once() -> None:
    a, b = Phone(seed=5, seed_data=False), Phone(seed=5, seed_data=False)
    assert st.seed_common_files(a) is True
    assert st.seed_common_files(a) is False  # second call changes nothing
    st.seed_common_files(b)
    listing = [(e.path, e.size, e.modified) for e in st.walk(a)]
    assert listing == [(e.path, e.size, e.modified) for e in st.walk(b)]
    photos = st.list_dir(a, "DCIM/Camera")
    assert len(photos) >= 8 and all(p.mime == "image/jpeg" and p.size > 1_000_000 for p in photos)
    assert any(e.name.endswith(".pdf") for e in st.list_dir(a, "Download"))
    assert all(e.modified_dt <= a.now for e in st.walk(a))


def test_snapshot_restore_covers_storage(phone: Phone) -> None:
    st.write_file(phone, "Documents/keep.md", "v1")
    snap = phone.snapshot()
    other = phone.clone()
    st.write_file(phone, "Documents/keep.md", "v2")
    assert st.read_file(other, "Documents/keep.md") == "v1"
    phone.restore(snap)
    assert st.read_file(phone, "Documents/keep.md") == "v1"


def test_epoch_is_timezone_independent() -> None:
    assert st.epoch(datetime(1970, 1, 2)) == 86_400
    assert st.to_datetime(st.epoch(datetime(2024, 10, 15, 9, 41))) == datetime(2024, 10, 15, 9, 41)
