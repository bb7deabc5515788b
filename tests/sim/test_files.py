"""Files app: browsing/selection/dialogs/picker/search screens, its task templates and the
Files x Expenses multi-app tasks (oracle solves, do-nothing fails, success + near miss)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from simhelpers import fresh, oracle_path, run_oracle, unread_values

from droidverify.actions.model import Action
from droidverify.env.sim import SimEnv, storage
from droidverify.env.sim.apps.expenses import add_expense, parse_money
from droidverify.env.sim.apps.files import short_date
from droidverify.env.sim.phone import Phone
from droidverify.env.sim.storage import ROOT
from droidverify.tasks import registry
from droidverify.tasks.files import date_matches, size_matches
from droidverify.tasks.oracle_utils import find, find_all

TEMPLATES = [t for t in registry.all_templates() if t.name.startswith("files_") or t.name in (
    "multi_expenses_from_receipts", "multi_delete_screenshots_dark_theme", "multi_refund_expense_and_receipt")]
NAMES = [t.name for t in TEMPLATES]


def test_enough_templates() -> None:
    assert len([n for n in NAMES if n.startswith("files_")]) >= 22
    assert len([n for n in NAMES if n.startswith("multi_")]) == 3


# ---- checker success + near miss --------------------------------------------------------------
def _src(pr: dict) -> str:
    return f"{ROOT}/{pr['folder']}/{pr['name']}"


def _both(*fns: Callable[[Phone, dict], object]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for fn in fns:
            fn(p, pr)
    return f


def _screenshots(p: Phone) -> list[str]:
    return [e.path for e in storage.list_dir(p, f"{ROOT}/Pictures/Screenshots")]


OPS: dict[str, tuple[Callable, Callable]] = {
    "files_delete_file": (lambda p, pr: storage.delete(p, _src(pr)),
                          _both(lambda p, pr: storage.delete(p, _src(pr)),
                                lambda p, pr: storage.delete(p, storage.list_dir(p, f"{ROOT}/Music")[0].path))),
    "files_rename_file": (lambda p, pr: storage.rename(p, _src(pr), pr["new_name"]),
                          lambda p, pr: storage.rename(p, _src(pr), pr["new_name"] + ".bak")),
    "files_move_file": (lambda p, pr: storage.move(p, _src(pr), f"{ROOT}/{pr['dest']}"),  # wrong folder:
                        lambda p, pr: storage.move(p, _src(pr), f"{ROOT}/Alarms")),
    "files_copy_file": (lambda p, pr: storage.copy(p, _src(pr), f"{ROOT}/{pr['dest']}"),
                        lambda p, pr: storage.move(p, _src(pr), f"{ROOT}/{pr['dest']}")),  # original gone
    "files_create_folder": (
        lambda p, pr: storage.mkdir(p, f"{ROOT}/{pr['parent']}/{pr['folder_name']}".replace("0//", "0/")),
        lambda p, pr: storage.mkdir(p, f"{ROOT}/Ringtones/{pr['folder_name']}")),
    "files_create_folder_and_move": (
        _both(lambda p, pr: storage.mkdir(p, f"{ROOT}/Documents/{pr['folder_name']}"),
              lambda p, pr: storage.move(p, f"{ROOT}/Download/{pr['name']}", f"{ROOT}/Documents/{pr['folder_name']}")),
        _both(lambda p, pr: storage.mkdir(p, f"{ROOT}/Documents/{pr['folder_name']}"),
              lambda p, pr: storage.copy(p, f"{ROOT}/Download/{pr['name']}", f"{ROOT}/Documents/{pr['folder_name']}"))),
    "files_delete_screenshots": (
        lambda p, pr: [storage.delete(p, s) for s in _screenshots(p)],
        lambda p, pr: storage.delete(p, f"{ROOT}/Pictures/Screenshots", recursive=True)),  # folder went too
    "files_delete_folder": (
        lambda p, pr: storage.delete(p, f"{ROOT}/Documents/{pr['folder_name']}", recursive=True),
        lambda p, pr: [storage.delete(p, f"{ROOT}/Documents/{pr['folder_name']}/{f}") for f in pr["files"]]),
    "multi_delete_screenshots_dark_theme": (
        _both(lambda p, pr: [storage.delete(p, s) for s in _screenshots(p)],
              lambda p, pr: p.put_setting("secure", "ui_night_mode", 2)),
        lambda p, pr: [storage.delete(p, s) for s in _screenshots(p)]),  # dark theme still off
    "multi_expenses_from_receipts": (
        lambda p, pr: [add_expense(p, s, parse_money(a), "Shopping", p.now) for s, a in pr["receipts"]],
        lambda p, pr: [add_expense(p, s, parse_money(a), "Other", p.now) for s, a in pr["receipts"]]),
    "multi_refund_expense_and_receipt": (
        _both(lambda p, pr: p.execute("DELETE FROM expense WHERE name=?", (pr["shop"],)),
              lambda p, pr: storage.delete(p, f"{ROOT}/Download/{pr['receipt']}")),
        lambda p, pr: p.execute("DELETE FROM expense WHERE name=?", (pr["shop"],))),  # receipt kept
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        env2 = fresh(task, seed)
        bad(env2.phone, task.params)
        assert task.is_successful(env2.phone, None) == 0.0, (name, seed)


def test_receipts_with_wrong_amount_or_missing_one_fail() -> None:
    task = registry.get_template("multi_expenses_from_receipts").instantiate(4)
    env = fresh(task, 4)
    (s1, a1), (s2, a2) = task.params["receipts"]
    add_expense(env.phone, s1, parse_money(a1), "Shopping", env.phone.now)
    assert task.is_successful(env.phone, None) == 0.0
    add_expense(env.phone, s2, parse_money(a2) + 100, "Shopping", env.phone.now)
    assert task.is_successful(env.phone, None) == 0.0


def _entries(p: Phone, folder: str):
    return storage.list_dir(p, f"{ROOT}/{folder}")


QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "files_query_pdf_count": (
        lambda p, pr: [str(sum(e.name.endswith(".pdf") for e in _entries(p, "Download"))),
                       f"There are {sum(e.name.endswith('.pdf') for e in _entries(p, 'Download'))} PDFs"],
        lambda p, pr: [str(len(_entries(p, "Download"))), "3 4 5 6 7"]),
    "files_query_photo_count": (
        lambda p, pr: [str(len(_entries(p, "DCIM/Camera")))],
        lambda p, pr: [str(len(_entries(p, "DCIM/Camera")) - 1)]),
    "files_query_file_size": (
        lambda p, pr: [storage.human_size(pr["size"]), storage.human_size(pr["size"]).replace(" ", ""),
                       f"{pr['size']} bytes"],
        lambda p, pr: [storage.human_size(pr["size"] + 200_000), "a few kilobytes"]),
    "files_query_newest_photo": (
        lambda p, pr: [max(_entries(p, "DCIM/Camera"), key=lambda e: e.modified).name],
        lambda p, pr: [min(_entries(p, "DCIM/Camera"), key=lambda e: e.modified).name]),
    "files_query_largest_in_music": (
        lambda p, pr: [max(_entries(p, "Music"), key=lambda e: e.size).name],
        lambda p, pr: [min(_entries(p, "Music"), key=lambda e: e.size).name]),
    "files_query_locate_file": (
        lambda p, pr: [pr["folder"].split("/")[-1], f"It is in {pr['folder']}"],
        lambda p, pr: [pr["folder"].split("/")[0], "Download" if "Download" not in pr["folder"] else "Pictures"]),
}


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_query_checker_success_and_near_miss(name: str) -> None:
    good, bad = QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_size_matching() -> None:
    assert size_matches("1.4 MB", 1_412_345) and size_matches("1.4MB", 1_412_345)
    assert size_matches("1,412,345 bytes", 1_412_345)
    assert not size_matches("1.5 MB", 1_412_345) and not size_matches("1.4 kB", 1_412_345)
    assert not size_matches(None, 10) and not size_matches("big", 10)


# ---- newer templates ------------------------------------------------------------------------------
def _download_files(p: Phone) -> list[storage.FileEntry]:
    return [e for e in _entries(p, "Download") if not e.is_dir]


def _camera(p: Phone) -> list[str]:
    return sorted(e.path for e in _entries(p, "DCIM/Camera"))


def _pdfs_to(p: Phone, pr: dict) -> None:
    for e in _download_files(p):
        if e.name.endswith(".pdf"):
            storage.move(p, e.path, f"{ROOT}/Documents/{pr['folder_name']}")


def _move_contents_only(p: Phone, pr: dict) -> None:
    storage.mkdir(p, f"{ROOT}/{pr['dest']}/{pr['folder_name']}")
    for f in pr["files"]:
        storage.move(p, f"{ROOT}/{pr['folder']}/{pr['folder_name']}/{f}", f"{ROOT}/{pr['dest']}/{pr['folder_name']}")


NEW_OPS: dict[str, tuple[Callable, Callable]] = {
    "files_delete_large_downloads": (
        lambda p, pr: [storage.delete(p, e.path) for e in _download_files(p) if e.size > pr["limit"] * 1_000_000],
        lambda p, pr: [storage.delete(p, e.path) for e in _download_files(p)  # the file just under the limit too
                       if e.size > pr["limit"] * 1_000_000 or e.name == pr["small"][0]]),
    "files_move_pdfs_to_folder": (
        _pdfs_to,
        _both(_pdfs_to, lambda p, pr: storage.move(p, f"{ROOT}/Download/{pr['decoy']}",  # the non-PDF look-alike
                                                   f"{ROOT}/Documents/{pr['folder_name']}"))),
    "files_rename_folder": (
        lambda p, pr: storage.rename(p, f"{ROOT}/Documents/{pr['folder_name']}", pr["new_name"]),
        lambda p, pr: storage.rename(p, f"{ROOT}/Documents/{pr['decoy']}", pr["new_name"])),  # the look-alike
    "files_copy_latest_photo": (
        lambda p, pr: storage.copy(p, _camera(p)[-1], f"{ROOT}/{pr['dest']}"),
        lambda p, pr: storage.copy(p, _camera(p)[0], f"{ROOT}/{pr['dest']}")),  # the oldest photo
    "files_delete_duplicate": (
        lambda p, pr: storage.delete(p, f"{ROOT}/{pr['folder']}/{pr['dup']}"),
        lambda p, pr: storage.delete(p, _src(pr))),  # the original went, the copy stayed
    "files_find_and_delete": (
        lambda p, pr: storage.delete(p, _src(pr)),
        lambda p, pr: storage.delete(p, f"{ROOT}/{pr['decoy_folder']}/{pr['decoy']}")),  # similar name
    "files_move_folder": (
        lambda p, pr: storage.move(p, f"{ROOT}/{pr['folder']}/{pr['folder_name']}", f"{ROOT}/{pr['dest']}"),
        _move_contents_only),  # the emptied folder stays behind
}


@pytest.mark.parametrize("name", sorted(NEW_OPS))
def test_new_operation_checker_success_and_near_miss(name: str) -> None:
    good, bad = NEW_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        env2 = fresh(task, seed)
        bad(env2.phone, task.params)
        assert task.is_successful(env2.phone, None) == 0.0, (name, seed)


def test_partial_selections_fail() -> None:
    task = registry.get_template("files_move_pdfs_to_folder").instantiate(1)
    env = fresh(task, 1)
    pdfs = [e.path for e in _download_files(env.phone) if e.name.endswith(".pdf")]
    for path in pdfs[1:]:  # one PDF left in Download
        storage.move(env.phone, path, f"{ROOT}/Documents/{task.params['folder_name']}")
    assert task.is_successful(env.phone, None) == 0.0
    task = registry.get_template("files_delete_large_downloads").instantiate(2)
    env = fresh(task, 2)
    big = sorted(e.path for e in _download_files(env.phone) if e.size > task.params["limit"] * 1_000_000)
    for path in big[1:]:  # one large file kept
        storage.delete(env.phone, path)
    assert task.is_successful(env.phone, None) == 0.0


def test_modified_date_answers() -> None:
    tmpl = registry.get_template("files_query_modified_date")
    for seed in range(3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        when = storage.stat(env.phone, _src(task.params)).modified_dt
        good = [short_date(storage.stat(env.phone, _src(task.params)).modified), f"{when:%B} {when.day}",
                f"on the {when.day}th of {when:%B} {when.year}", f"{when:%Y-%m-%d}"]
        for a in good:
            assert task.is_successful(env.phone, a) == 1.0, (seed, a)
        other = when - timedelta(days=1)
        bad = [f"{other:%b} {other.day}, {other.year}", f"{when:%b} {when.day}, {when.year - 1}",
               f"{when:%b} {when.day} or {other:%b} {other.day}", "last week", None]
        for a in bad:
            assert task.is_successful(env.phone, a) == 0.0, (seed, a)


def test_date_matching() -> None:
    when = datetime(2024, 3, 9, 7, 41)
    assert date_matches("Mar 9, 2024", when) and date_matches("9 March", when) and date_matches("2024-03-09", when)
    assert date_matches("It was modified on March 9th, 2024.", when)
    assert not date_matches("Mar 19, 2024", when) and not date_matches("May 9", when)
    assert not date_matches("Mar 9, 2023", when) and not date_matches("Mar 9 or Mar 10", when)


# Regression: the decimals of an amount or size right before a month were read as a day ("$12.05 March 9").
@pytest.mark.parametrize(("text", "ok"), [
    ("$12.05 March 9, 2024", True),
    ("4.05 March 9", True),
    ("2.10 of March 9", True),
    ("Mar 9, 2024 ($45.20)", True),
    ("12.5 MB, 9 March 2024", True),
    ("March 9,2024", True),
    ("Mar 9, 2024 (1.05 MB)", True),
    ("Mar 19, 2024 ($9.05)", False),
    ("Mar 9 or Mar 10 (2.4 MB)", False),
    ("$9 March", False),
    ("March 9.5 MB", False),
])
def test_date_matching_with_amounts(text: str, ok: bool) -> None:
    assert date_matches(text, datetime(2024, 3, 9, 7, 41)) is ok


# ---- screens ------------------------------------------------------------------------------------
def _open(seed: int = 0) -> SimEnv:
    env = SimEnv(seed=seed)
    env.reset()
    env.step(Action(action_type="open_app", app_name="Files"))
    return env


def _click(env: SimEnv, *, long: bool = False, **criteria):
    obs = env.last_observation or env.observe()
    i = find(obs, **criteria)
    assert i is not None, (criteria, [e.label for e in obs.elements])
    return env.step(Action(action_type="long_press" if long else "click", index=i))


def _labels(obs) -> list[str]:
    return [obs.elements[i].label or "" for i in find_all(obs, resource_id="item")]


def test_root_folders_breadcrumb_and_file_info() -> None:
    env = _open()
    obs = env.observe()
    names = [lbl.split(" | ")[0] for lbl in _labels(obs)]
    assert {"DCIM", "Documents", "Download", "Music", "Pictures"} <= set(names)
    assert obs.elements[find(obs, resource_id="toolbar_title")].text == "Internal storage"
    _click(env, text="DCIM", resource_id="item")
    obs = _click(env, text="Camera", resource_id="item")
    crumbs = [obs.elements[i].text for i in find_all(obs, resource_id="breadcrumb_text")]
    assert crumbs == ["Internal storage", "DCIM", "Camera"]
    photos = _labels(obs)
    assert photos and all(lbl.startswith("IMG_2024") and "MB" in lbl for lbl in photos)
    obs = _click(env, text="DCIM", resource_id="breadcrumb_text")
    assert env.phone.screen.state["path"] == f"{ROOT}/DCIM"
    env.step(Action(action_type="navigate_back"))  # back climbs to the parent folder
    assert env.phone.screen.state["path"] == ROOT and env.phone.location == "files/main"
    _click(env, text="Download", resource_id="item")
    obs = _click(env, resource_id="item", text_contains=".pdf")
    assert obs.info["dialog"] == "info"
    assert obs.elements[find(obs, resource_id="info_location")].text == "Internal storage > Download"


def test_sort_by_size_and_long_list_scrolls() -> None:
    env = _open()
    _click(env, text="Download", resource_id="item")
    for i in range(12):  # a long folder: rows past the screen are absent until scrolled
        storage.write_file(env.phone, f"{ROOT}/Download/zz_scan_{i:02d}.pdf", None, size=1000 + i)
    obs = env.observe()
    assert "zz_scan_11.pdf" not in " ".join(_labels(obs))
    obs = env.step(Action(action_type="scroll", direction="down"))
    obs = env.step(Action(action_type="scroll", direction="down"))
    assert "zz_scan_11.pdf" in " ".join(_labels(obs))
    _click(env, desc="More options")
    _click(env, text="Sort by\u2026")
    obs = _click(env, text="Size", class_contains="RadioButton")
    first = _labels(obs)[0].split(" | ")[0]
    biggest = max((e for e in storage.list_dir(env.phone, f"{ROOT}/Download") if not e.is_dir), key=lambda e: e.size)
    assert first == biggest.name


def test_selection_rename_conflict_and_move_picker() -> None:
    env = _open()
    _click(env, text="Music", resource_id="item")
    songs = [e.name for e in storage.list_dir(env.phone, f"{ROOT}/Music")]
    obs = _click(env, long=True, text=songs[0], resource_id="item")
    assert obs.elements[find(obs, resource_id="title")].text == "1 selected"
    _click(env, desc="More options")
    obs = _click(env, text="Rename")
    assert obs.info["dialog"] == "text_input"
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="edit"), text=songs[1]))
    obs = _click(env, text="Rename", resource_id="button1")
    assert obs.info["toast"] == "A file with that name already exists"
    assert storage.exists(env.phone, f"{ROOT}/Music/{songs[0]}")
    # move the selection to Documents through the picker
    _click(env, desc="More options")
    obs = _click(env, text="Move to\u2026")
    assert env.phone.location == "files/picker"
    assert not obs.elements[find(obs, resource_id="btn_confirm")].is_enabled  # same folder: disabled
    env.step(Action(action_type="navigate_back"))  # picker climbs to the root
    _click(env, text="Documents", resource_id="item")
    obs = _click(env, resource_id="btn_confirm")
    assert env.phone.location == "files/main" and obs.info["toast"] == "Moved 1 item"
    assert storage.exists(env.phone, f"{ROOT}/Documents/{songs[0]}")
    assert not storage.exists(env.phone, f"{ROOT}/Music/{songs[0]}")


def test_delete_confirm_and_new_folder_and_search() -> None:
    env = _open()
    _click(env, desc="More options")
    obs = _click(env, text="New folder")
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="edit"), text="Receipts"))
    _click(env, text="Create", resource_id="button1")
    assert storage.is_dir(env.phone, f"{ROOT}/Receipts")
    obs = _click(env, long=True, text="Receipts", resource_id="item")
    obs = _click(env, desc="Delete")
    assert obs.info["dialog"] == "confirm"
    _click(env, text="Delete", resource_id="button1")
    assert not storage.exists(env.phone, f"{ROOT}/Receipts")
    storage.write_file(env.phone, f"{ROOT}/Documents/Work/passport_scan.pdf", None, size=2048, parents=True,
                       modified=datetime(2024, 10, 1, 8, 0))
    _click(env, desc="Search")
    obs = env.observe()
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="search_src_text"), text="PASSPORT"))
    hits = _labels(obs)
    assert len(hits) == 1 and "Internal storage > Documents > Work" in hits[0]
    obs = env.step(Action(action_type="input_text", index=find(obs, resource_id="search_src_text"), text="nothing"))
    assert find(obs, text="No matches") is not None


# ---- housekeeping, reorganisation, search and comparison templates ----------------------------------
def _docs(pr: dict, *parts: str) -> str:
    return "/".join((f"{ROOT}/Documents", *parts))


def _merge(p: Phone, pr: dict, *, delete_src: bool = True) -> None:
    for f in pr["src_files"]:
        storage.move(p, _docs(pr, pr["src_name"], f), _docs(pr, pr["dest_name"]))
    if delete_src:
        storage.delete(p, _docs(pr, pr["src_name"]))


def _replace(p: Phone, pr: dict) -> None:
    storage.delete(p, _src(pr))
    storage.rename(p, f"{ROOT}/{pr['folder']}/{pr['new_file']}", pr["name"])


def _sort_downloads(p: Phone, pr: dict, *, video_too: bool = False) -> None:
    for e in _download_files(p):
        major = e.mime.split("/")[0]
        if major in ("image", "audio"):
            storage.move(p, e.path, f"{ROOT}/{'Pictures' if major == 'image' else 'Music'}")
        elif video_too and major == "video":
            storage.move(p, e.path, f"{ROOT}/Movies")


def _keyword_files(p: Phone, pr: dict) -> list[str]:
    dest = _docs(pr, pr["dest_name"])
    return [e.path for e in storage.search(p, pr["keyword"]) if not e.is_dir and e.parent != dest]


def _gather(p: Phone, pr: dict, fn: Callable = storage.move) -> None:
    for path in _keyword_files(p, pr):
        fn(p, path, _docs(pr, pr["dest_name"]))


def _move_rename(p: Phone, pr: dict, fn: Callable = storage.move) -> None:
    fn(p, _src(pr), f"{ROOT}/{pr['dest']}")
    storage.rename(p, f"{ROOT}/{pr['dest']}/{pr['name']}", pr["new_name"])


def _tree(p: Phone, pr: dict, *, nested: bool = True) -> None:
    top = f"{ROOT}/{pr['parent']}/{pr['folder_name']}"
    storage.mkdir(p, top)
    for sub in (pr["sub1"], pr["sub2"]):
        storage.mkdir(p, f"{top}/{sub}" if nested else f"{ROOT}/{pr['parent']}/{sub}")


def _camera_photo(pr: dict, key: str) -> str:
    return f"{ROOT}/DCIM/Camera/IMG_{datetime.fromisoformat(pr[key]):%Y%m%d_%H%M%S}.jpg"


HOUSEKEEPING_OPS: dict[str, tuple[Callable, Callable]] = {
    "files_delete_empty_folders": (
        lambda p, pr: [storage.delete(p, _docs(pr, f)) for f in pr["empty"]],
        lambda p, pr: [storage.delete(p, _docs(pr, f), recursive=True)  # a folder with a file went too
                       for f in [*pr["empty"], pr["full"][0][0]]]),
    "files_merge_folders": (_merge, lambda p, pr: _merge(p, pr, delete_src=False)),  # empty folder left behind
    "files_replace_old_version": (
        _replace,
        lambda p, pr: storage.delete(p, f"{ROOT}/{pr['folder']}/{pr['new_file']}")),  # the new version deleted
    "files_sort_downloads_by_type": (_sort_downloads, lambda p, pr: _sort_downloads(p, pr, video_too=True)),
    "files_gather_by_keyword": (_gather, lambda p, pr: _gather(p, pr, storage.copy)),  # copies, originals stay
    "files_move_and_rename": (_move_rename, lambda p, pr: _move_rename(p, pr, storage.copy)),
    "files_create_folder_with_subfolders": (_tree, lambda p, pr: _tree(p, pr, nested=False)),  # side by side
    "files_rename_photo_from_date": (
        lambda p, pr: storage.rename(p, _camera_photo(pr, "taken"), pr["new_name"]),
        lambda p, pr: storage.rename(p, _camera_photo(pr, "decoy"), pr["new_name"])),  # the day before/after
}


@pytest.mark.parametrize("name", sorted(HOUSEKEEPING_OPS))
def test_housekeeping_checker_success_and_near_miss(name: str) -> None:
    good, bad = HOUSEKEEPING_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        env2 = fresh(task, seed)
        bad(env2.phone, task.params)
        assert task.is_successful(env2.phone, None) == 0.0, (name, seed)


def test_housekeeping_partial_work_fails() -> None:
    task = registry.get_template("files_delete_empty_folders").instantiate(0)
    env = fresh(task, 0)
    storage.delete(env.phone, _docs(task.params, task.params["empty"][0]))  # one empty folder left
    assert task.is_successful(env.phone, None) == 0.0
    task = registry.get_template("files_replace_old_version").instantiate(1)
    env = fresh(task, 1)
    storage.delete(env.phone, _src(task.params))  # old one deleted, new one not renamed yet
    assert task.is_successful(env.phone, None) == 0.0
    task = registry.get_template("files_gather_by_keyword").instantiate(2)
    env = fresh(task, 2)
    storage.move(env.phone, _keyword_files(env.phone, task.params)[0], _docs(task.params, task.params["dest_name"]))
    assert task.is_successful(env.phone, None) == 0.0
    task = registry.get_template("files_create_folder_with_subfolders").instantiate(3)
    env = fresh(task, 3)
    _tree(env.phone, task.params)
    storage.mkdir(env.phone, f"{ROOT}/{task.params['parent']}/{task.params['folder_name']}/Extra")  # one too many
    assert task.is_successful(env.phone, None) == 0.0


def test_photo_date_names_the_planted_photo() -> None:
    for seed in range(4):
        task = registry.get_template("files_rename_photo_from_date").instantiate(seed)
        env = fresh(task, seed)
        e = storage.stat(env.phone, _camera_photo(task.params, "taken"))
        assert short_date(e.modified).split(",")[0] == task.params["date_text"][:3] + " " + str(e.modified_dt.day)
        same_day = [x for x in _entries(env.phone, "DCIM/Camera") if x.modified_dt.date() == e.modified_dt.date()]
        assert len(same_day) == 1


def _search_total(p: Phone, pr: dict, *, dirs: bool = False) -> int:
    return sum(1 for e in storage.search(p, pr["keyword"]) if dirs or not e.is_dir)


def _bigger(pr: dict, big: bool) -> str:
    pair = sorted([(pr["size_a"], pr["name_a"]), (pr["size_b"], pr["name_b"])])
    return pair[1 if big else 0][1]


def _pictures_counts(p: Phone) -> list[tuple[int, str]]:
    return sorted((len(storage.list_dir(p, e.path)), e.name) for e in _entries(p, "Pictures") if e.is_dir)


def _total_mb(p: Phone, pr: dict, skip_smallest: bool = False) -> float:
    sizes = sorted(e.size for e in _entries(p, pr["folder"]) if not e.is_dir)
    return sum(sizes[1:] if skip_smallest else sizes) / 1_000_000


HOUSEKEEPING_QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "files_query_search_count": (
        lambda p, pr: [str(_search_total(p, pr)), f"{_search_total(p, pr)} files"],
        lambda p, pr: [str(_search_total(p, pr, dirs=True)),  # the matching folder counted too
                       str(_search_total(p, pr) - 1)]),
    "files_query_bigger_file": (
        lambda p, pr: [_bigger(pr, True), f"{_bigger(pr, True)} is bigger"],
        lambda p, pr: [_bigger(pr, False), f"{pr['name_a']} or {pr['name_b']}"]),
    "files_query_fullest_folder": (
        lambda p, pr: [_pictures_counts(p)[-1][1], f"The {_pictures_counts(p)[-1][1]} folder"],
        lambda p, pr: [_pictures_counts(p)[-2][1], "Screenshots",
                       " and ".join(n for _, n in _pictures_counts(p))]),
    "files_query_folder_total_size": (
        lambda p, pr: [f"{_total_mb(p, pr):.1f} MB", f"{_total_mb(p, pr):.1f}", f"about {_total_mb(p, pr):.2f} MB",
                       f"{_total_mb(p, pr) / 1000:.4f} GB"],
        lambda p, pr: [f"{_total_mb(p, pr, skip_smallest=True):.1f} MB",  # one file left out
                       f"{_total_mb(p, pr):.1f} GB", "big"]),
}


@pytest.mark.parametrize("name", sorted(HOUSEKEEPING_QUERIES))
def test_housekeeping_query_success_and_near_miss(name: str) -> None:
    good, bad = HOUSEKEEPING_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in range(4):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


# ---- round 3 templates: swaps, ordered renames, keep-one clean-ups, relative places, yes/no and top-k --------
def _in(pr: dict, *parts: str) -> str:
    return "/".join([ROOT, *parts])


def _swap(p: Phone, pr: dict, *, finish: bool = True) -> None:
    a, b = _in(pr, pr["folder"], pr["name_a"]), _in(pr, pr["folder"], pr["name_b"])
    storage.rename(p, a, "tmp_swap")
    storage.rename(p, b, pr["name_a"])
    if finish:
        storage.rename(p, _in(pr, pr["folder"], "tmp_swap"), pr["name_b"])


def _number_shots(p: Phone, pr: dict, *, newest_first: bool = False, skip_last: bool = False) -> None:
    shots = sorted(_screenshots(p), reverse=newest_first)
    for i, path in enumerate(shots[:-1] if skip_last else shots, 1):
        storage.rename(p, path, f"{pr['prefix']}_{i}.png")


def _backups(pr: dict, keep: str) -> list[str]:
    """Paths of the backups other than the newest ("newest") or other than the oldest ("oldest")."""
    pick = (min if keep == "newest" else max)(pr["files"], key=lambda f: f[1])[0]
    return [_in(pr, "Documents", pr["folder"], f[0]) for f in pr["files"] if f[0] != pick]


def _month_photo(when: str) -> str:
    return f"{ROOT}/DCIM/Camera/IMG_{datetime.fromisoformat(when):%Y%m%d_%H%M%S}.jpg"


def _month_move(p: Phone, pr: dict, *, decoy_too: bool = False, folder: bool = True) -> None:
    dest = storage.mkdir(p, f"{ROOT}/Pictures/{pr['folder_name']}") if folder else f"{ROOT}/Pictures"
    for when, _ in pr["photos"] + (pr["decoys"][:1] if decoy_too else []):
        storage.move(p, _month_photo(when), dest)


def _movies(p: Phone) -> list[str]:
    return [e.path for e in sorted(_entries(p, "Movies"), key=lambda e: e.size) if not e.is_dir]


def _copies(pr: dict, *, keep: bool = False) -> list[str]:
    return [_in(pr, f, pr["name"]) for f in ("Download", "Documents", "Pictures") if (f == pr["keep"]) == keep]


def _delete_all(paths: list[str]) -> Callable[[Phone, dict], None]:
    def f(p: Phone, pr: dict) -> None:
        for path in paths:
            storage.delete(p, path)
    return f


def _except(pr: dict, *, keep_too: bool = False) -> list[str]:
    return [_in(pr, "Download", pr["sub"], n) for n in pr["files"] if keep_too or n != pr["keep"]]


ROUND3_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "files_swap_file_names": (_swap, [
        lambda p, pr: _swap(p, pr, finish=False),  # the first file is left under the spare name
        lambda p, pr: (_swap(p, pr), storage.copy(p, _in(pr, pr["folder"], pr["name_a"]), f"{ROOT}/Music"))]),
    "files_number_screenshots": (_number_shots, [
        lambda p, pr: _number_shots(p, pr, newest_first=True),  # numbered the wrong way round
        lambda p, pr: _number_shots(p, pr, skip_last=True)]),
    "files_keep_newest_backup": (lambda p, pr: _delete_all(_backups(pr, "newest"))(p, pr), [
        lambda p, pr: _delete_all(_backups(pr, "oldest"))(p, pr),  # kept the wrong one
        lambda p, pr: _delete_all(_backups(pr, "newest")[:-1])(p, pr)]),  # one old backup left
    "files_move_month_photos_to_new_folder": (_month_move, [
        lambda p, pr: _month_move(p, pr, decoy_too=True),  # the last day of the month before went too
        lambda p, pr: _month_move(p, pr, folder=False)]),  # no new folder: straight into Pictures
    "files_delete_largest_video": (lambda p, pr: storage.delete(p, _movies(p)[-1]), [
        lambda p, pr: storage.delete(p, _movies(p)[0]),  # the smallest one
        lambda p, pr: _delete_all(_movies(p)[-2:])(p, pr)]),
    "files_keep_one_copy": (lambda p, pr: _delete_all(_copies(pr))(p, pr), [
        lambda p, pr: _delete_all(_copies(pr) + [_in(pr, pr["decoy_folder"], pr["decoy"])])(p, pr),  # v2 too
        lambda p, pr: _delete_all(_copies(pr, keep=True) + _copies(pr)[:1])(p, pr)]),  # kept the wrong one
    "files_move_next_to_file": (
        lambda p, pr: storage.move(p, _in(pr, "Download", pr["name"]), _in(pr, "Documents", pr["parent"], pr["sub"])),
        [lambda p, pr: storage.move(p, _in(pr, "Download", pr["name"]), _in(pr, "Documents", pr["sub"])),  # look-alike
         lambda p, pr: storage.copy(p, _in(pr, "Download", pr["name"]),
                                    _in(pr, "Documents", pr["parent"], pr["sub"]))]),  # original left behind
    "files_move_all_except": (
        lambda p, pr: [storage.move(p, s, _in(pr, pr["dest"])) for s in _except(pr)],
        [lambda p, pr: [storage.move(p, s, _in(pr, pr["dest"])) for s in _except(pr, keep_too=True)],
         lambda p, pr: [storage.copy(p, s, _in(pr, pr["dest"])) for s in _except(pr)],
         lambda p, pr: [storage.move(p, s, _in(pr, pr["dest"])) for s in _except(pr)[1:]]]),
}


@pytest.mark.parametrize("name", sorted(ROUND3_OPS))
def test_round3_checker_success_and_near_miss(name: str) -> None:
    good, bads = ROUND3_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(bads):
            env2 = fresh(task, seed)
            bad(env2.phone, task.params)
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, k)


def _tree_total(pr: dict) -> int:
    return sum(pr["counts"])


def _top3(p: Phone) -> list[str]:
    return [e.name for e in sorted(_download_files(p), key=lambda e: -e.size)][:3]


ROUND3_QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "files_query_file_exists": (
        lambda p, pr: ["Yes" if pr["present"] else "No",
                       f"Yes, {pr['name']} is there" if pr["present"] else "No, there isn't"],
        lambda p, pr: ["No" if pr["present"] else "Yes", "yes or no", "maybe"]),
    "files_query_tree_file_count": (
        lambda p, pr: [str(_tree_total(pr)), f"{_tree_total(pr)} files"],
        lambda p, pr: [str(pr["counts"][0]), str(_tree_total(pr) + 2),  # top level only / folders counted
                       f"{_tree_total(pr)} or {_tree_total(pr) + 1}"]),
    "files_query_download_on_date": (
        lambda p, pr: [pr["name"], f"It's {pr['name']}."],
        lambda p, pr: [pr["decoy"], f"{pr['name']} or {pr['decoy']}", "a PDF"]),
    "files_query_top_three_largest": (
        lambda p, pr: [", ".join(_top3(p)), "1. " + " 2. ".join(n.rsplit(".", 1)[0] for n in _top3(p)[:2])
                       + f" 3. {_top3(p)[2]}"],
        lambda p, pr: [", ".join(reversed(_top3(p))), ", ".join(_top3(p)[:2]),  # wrong order / one missing
                       ", ".join([*_top3(p), next(e.name for e in _download_files(p) if e.name not in _top3(p))])]),
}


@pytest.mark.parametrize("name", sorted(ROUND3_QUERIES))
def test_round3_query_success_and_near_miss(name: str) -> None:
    good, bad = ROUND3_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_file_exists_reads_the_start_and_ignores_look_alikes() -> None:
    tmpl = registry.get_template("files_query_file_exists")
    seed = next(s for s in range(50) if tmpl.instantiate(s).params["present"])
    task = tmpl.instantiate(seed)
    env = fresh(task, seed)
    pr = task.params
    assert storage.exists(env.phone, f"{ROOT}/Download/old_{pr['name']}")  # the search also shows this one
    assert task.is_successful(env.phone, "Yes") == 1.0
    storage.delete(env.phone, f"{ROOT}/{pr['folder']}/{pr['name']}")  # deleting it does not make "No" right
    assert task.is_successful(env.phone, "Yes") == 0.0
    assert task.is_successful(env.phone, "No") == 0.0
    task = tmpl.instantiate(next(s for s in range(50) if not tmpl.instantiate(s).params["present"]))
    env = fresh(task, task.seed)
    assert task.is_successful(env.phone, "No") == 1.0
    storage.write_file(env.phone, f"{ROOT}/Documents/{task.params['name']}", None, size=10)  # nor does adding it
    assert task.is_successful(env.phone, "Yes") == 0.0


def test_round3_set_ups_leave_one_right_answer() -> None:
    for seed in range(6):
        task = registry.get_template("files_keep_newest_backup").instantiate(seed)
        env = fresh(task, seed)
        dates = [e.modified_dt.date() for e in _entries(env.phone, f"Documents/{task.params['folder']}")]
        assert len(set(dates)) == len(dates) >= 3  # one newest file, by the date the list shows
        task = registry.get_template("files_query_download_on_date").instantiate(seed)
        env = fresh(task, seed)
        shown = [short_date(e.modified) for e in _download_files(env.phone)]
        target = short_date(storage.stat(env.phone, f"{ROOT}/Download/{task.params['name']}").modified)
        assert shown.count(target) == 1 and target.startswith(task.params["date_text"][:3])
        task = registry.get_template("files_query_top_three_largest").instantiate(seed)
        env = fresh(task, seed)
        sizes = [storage.human_size(e.size) for e in _download_files(env.phone)]
        top = sorted(_download_files(env.phone), key=lambda e: -e.size)[:4]
        assert len({storage.human_size(e.size) for e in top}) == 4, sizes
        task = registry.get_template("files_delete_largest_video").instantiate(seed)
        env = fresh(task, seed)
        movies = sorted(e.size for e in _entries(env.phone, "Movies") if not e.is_dir)
        assert storage.human_size(movies[-1]) != storage.human_size(movies[-2])


# ---- round 4 templates: file info reads, derived names and numbers, restore, conditional moves, odd one out ------
ROUND4 = ["files_query_minutes_between_saves", "files_query_copies_same_size", "files_query_count_modified_before",
          "files_query_bigger_folder_total", "files_rename_with_modified_date", "files_restore_from_backup",
          "files_finish_moving_to_folder", "files_move_by_type_no_extension", "files_fix_wrong_extension",
          "files_rename_folder_with_count", "files_remove_name_prefix", "files_query_file_by_exact_size"]


def _dated_name(p: Phone, pr: dict, path: str) -> str:
    return f"{pr['stem']}_{storage.stat(p, path).modified_dt:%Y-%m-%d}{pr['ext']}"


def _restore(p: Phone, pr: dict, *, source: str = "", delete: bool = True) -> None:
    broken = _in(pr, pr["folder"], pr["name"])
    if delete:
        storage.delete(p, broken)
    stem, ext = pr["name"].rsplit(".", 1)
    if source == "old":  # the older version copied over and renamed
        storage.copy(p, _in(pr, "Documents", "Backups", f"{stem}_old.{ext}"), _in(pr, pr["folder"]))
        storage.rename(p, _in(pr, pr["folder"], f"{stem}_old.{ext}"), pr["name"])
    elif source == "move":
        storage.move(p, _in(pr, "Documents", "Backups", pr["name"]), _in(pr, pr["folder"]))
    elif delete:
        storage.copy(p, _in(pr, "Documents", "Backups", pr["name"]), _in(pr, pr["folder"]))


def _finish(p: Phone, pr: dict, *, leftovers: bool = False, other_too: bool = False) -> None:
    dest = _in(pr, "Documents", pr["dest_name"])
    for name, _, state in pr["files"]:
        if state == "todo":
            storage.move(p, _in(pr, "Download", name), dest)
        elif state == "copied" and not leftovers:
            storage.delete(p, _in(pr, "Download", name))
    if other_too:
        storage.move(p, _in(pr, "Download", pr["other"][0]), dest)


def _album(pr: dict, name: str) -> str:
    return _in(pr, "Pictures", pr["album"], name)


def _count_rename(p: Phone, pr: dict, *, off: int = 0, look_alike: bool = False) -> None:
    src = _in(pr, "Documents", f"{pr['folder_name']} {pr['other_year']}" if look_alike else pr["folder_name"])
    n = len([e for e in storage.list_dir(p, _in(pr, "Documents", pr["folder_name"])) if not e.is_dir])
    storage.rename(p, src, f"{pr['folder_name']} ({n + off} files)")


def _strip(p: Phone, pr: dict, *, first_only: bool = False, mid_too: bool = False) -> None:
    folder = _in(pr, "Documents", pr["folder"])
    for n in pr["prefixed"][:1] if first_only else pr["prefixed"]:
        storage.rename(p, f"{folder}/{pr['prefix']}{n}", n)
    if mid_too:
        mid = next(n for n in pr["plain"] if n.startswith("notes_"))
        storage.rename(p, f"{folder}/{mid}", mid.replace(pr["prefix"].rstrip("_") + "_", ""))


ROUND4_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "files_rename_with_modified_date": (
        lambda p, pr: storage.rename(p, _src(pr), _dated_name(p, pr, _src(pr))),
        [lambda p, pr: storage.rename(p, _src(pr), _dated_name(  # the look-alike's date
            p, pr, _in(pr, pr["folder"], f"{pr['stem']} (1){pr['ext']}"))),
         lambda p, pr: storage.rename(p, _in(pr, pr["folder"], f"{pr['stem']} (1){pr['ext']}"),
                                      _dated_name(p, pr, _src(pr))),  # the wrong file renamed
         lambda p, pr: storage.rename(p, _src(pr), _dated_name(p, pr, _src(pr)).replace("-", ""))]),
    "files_restore_from_backup": (_restore, [
        lambda p, pr: _restore(p, pr, source="move"),  # the backup is gone
        lambda p, pr: _restore(p, pr, source="old"),  # the older version
        lambda p, pr: storage.delete(p, _in(pr, pr["folder"], pr["name"]))]),  # only deleted
    "files_finish_moving_to_folder": (_finish, [
        lambda p, pr: _finish(p, pr, leftovers=True),  # the copied one's original stays in Download
        lambda p, pr: _finish(p, pr, other_too=True)]),  # a file not on the list moved too
    "files_move_by_type_no_extension": (
        lambda p, pr: storage.move(p, _in(pr, "Download", pr["name"]), _in(pr, pr["dest"])),
        [lambda p, pr: storage.move(p, _in(pr, "Download", pr["name"]),
                                    _in(pr, next(d for d in ("Pictures", "Music", "Documents") if d != pr["dest"]))),
         lambda p, pr: (storage.move(p, _in(pr, "Download", pr["name"]), _in(pr, pr["dest"])),
                        storage.move(p, _in(pr, "Download", pr["other"][0]), _in(pr, pr["dest"])))]),
    "files_fix_wrong_extension": (
        lambda p, pr: storage.rename(p, _album(pr, pr["wrong"]), pr["wrong"].rsplit(".", 1)[0] + ".jpg"),
        [lambda p, pr: storage.rename(p, _album(pr, pr["other"][0]), pr["other"][0].rsplit(".", 1)[0] + ".jpg"),
         lambda p, pr: storage.rename(p, _album(pr, pr["wrong"]), pr["wrong"].rsplit(".", 1)[0] + ".jpeg"),
         lambda p, pr: storage.rename(p, _album(pr, pr["wrong"]), pr["wrong"] + ".jpg")]),
    "files_rename_folder_with_count": (_count_rename, [
        lambda p, pr: _count_rename(p, pr, off=1), lambda p, pr: _count_rename(p, pr, off=-1),
        lambda p, pr: _count_rename(p, pr, look_alike=True)]),
    "files_remove_name_prefix": (_strip, [
        lambda p, pr: _strip(p, pr, first_only=True), lambda p, pr: _strip(p, pr, mid_too=True)]),
}


@pytest.mark.parametrize("name", sorted(ROUND4_OPS))
def test_round4_checker_success_and_near_miss(name: str) -> None:
    good, bads = ROUND4_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(bads):
            env2 = fresh(task, seed)
            bad(env2.phone, task.params)
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, k)


def _h_m(minutes: int) -> str:
    return f"{minutes // 60} h {minutes % 60} min"


def _cut_count(p: Phone, pr: dict, shift: int = 0) -> int:
    return sum(1 for d in pr["days"] if d > pr["cut"] + shift)


def _folder_totals(p: Phone, pr: dict) -> list[str]:
    """[bigger, smaller] folder names."""
    tot = {pr[k]: sum(e.size for e in _entries(p, f"Documents/{pr[k]}")) for k in ("folder_a", "folder_b")}
    return sorted(tot, key=lambda n: -tot[n])


ROUND4_QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "files_query_minutes_between_saves": (
        lambda p, pr: [str(pr["gap"]), f"{pr['gap']} minutes", _h_m(pr["gap"]),
                       f"{pr['name_b']} was modified {pr['gap']} minutes after {pr['name_a']}"],
        lambda p, pr: [str(pr["other_gap"]), str(abs(pr["other_gap"] - pr["gap"])),  # the third file's time
                       f"{pr['gap']} or {pr['gap'] + 1}", f"{pr['gap'] // 60} hours"]),
    "files_query_copies_same_size": (
        lambda p, pr: ["Yes" if pr["same"] else "No", "Yes, identical" if pr["same"] else "No, they differ"],
        lambda p, pr: ["No" if pr["same"] else "Yes", "yes or no"]),
    "files_query_count_modified_before": (
        lambda p, pr: [str(_cut_count(p, pr)), f"{_cut_count(p, pr)} files"],
        lambda p, pr: [str(_cut_count(p, pr, -2)), str(_cut_count(p, pr, 1)),  # the day after / the day before
                       str(len(pr["days"]))]),
    "files_query_bigger_folder_total": (
        lambda p, pr: [_folder_totals(p, pr)[0], f"Documents/{_folder_totals(p, pr)[0]}"],
        lambda p, pr: [_folder_totals(p, pr)[1], f"{pr['folder_a']} or {pr['folder_b']}"]),
    "files_query_file_by_exact_size": (
        lambda p, pr: [pr["target"], f"It's {pr['target']}."],
        lambda p, pr: [next(n for n, _ in pr["files"] if n != pr["target"]),
                       " or ".join(n for n, _ in pr["files"])]),
}


@pytest.mark.parametrize("name", sorted(ROUND4_QUERIES))
def test_round4_query_success_and_near_miss(name: str) -> None:
    good, bad = ROUND4_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_round4_set_ups_hide_the_answer_where_the_goal_says() -> None:
    for seed in (0, 1, 2, 1000):
        # every file in the folder shows the same size in the list: only File info tells them apart
        task = registry.get_template("files_query_file_by_exact_size").instantiate(seed)
        env = fresh(task, seed)
        shown = {storage.human_size(e.size) for e in _entries(env.phone, f"Download/{task.params['folder']}")}
        assert len(shown) == 1
        task = registry.get_template("files_query_copies_same_size").instantiate(seed)
        env = fresh(task, seed)
        sizes = [storage.stat(env.phone, _in(task.params, f, task.params["name"])).size
                 for f in ("Download", "Documents")]
        assert len({storage.human_size(s) for s in sizes}) == 1 and (sizes[0] == sizes[1]) == task.params["same"]
        # no file on the cut-off day itself, one the day before and one the day after; the list is long
        task = registry.get_template("files_query_count_modified_before").instantiate(seed)
        env = fresh(task, seed)
        files = _entries(env.phone, f"Documents/{task.params['folder']}")
        days = sorted((env.phone.now.date() - e.modified_dt.date()).days for e in files)
        cut = task.params["cut"]
        assert cut not in days and cut - 1 in days and cut + 1 in days and len(files) >= 12
        # the extension-less downloads only differ by type (File info); the second one stays
        task = registry.get_template("files_move_by_type_no_extension").instantiate(seed)
        env = fresh(task, seed)
        e = storage.stat(env.phone, _in(task.params, "Download", task.params["name"]))
        assert e.mime == task.params["mime"] and "." not in e.name


def _open_files_at(env: SimEnv, folder: str) -> None:
    env.phone.open_app("files")  # resumes where the oracle left it: back out to the top folder first
    for _ in range(10):
        scr = env.phone.screen
        if env.phone.foreground != "files":
            env.phone.open_app("files")
        elif env.phone.dialog is None and not env.phone.menu_open and scr.name == "main" \
                and not scr.state.get("selected") and scr.state.get("path", ROOT) == ROOT:
            break
        else:
            env.step(Action(action_type="navigate_back"))
    env.observe()
    for part in [p for p in folder.split("/") if p]:
        _click(env, text=part, resource_id="item")


def _detour_search(env: SimEnv) -> None:
    _open_files_at(env, "")
    _click(env, desc="Search")
    env.step(Action(action_type="input_text", index=find(env.observe(), resource_id="search_src_text"), text="pdf"))


def _detour_selection_in_music(env: SimEnv) -> None:
    _open_files_at(env, "Music")
    _click(env, long=True, resource_id="item")


def _detour_menu_in_download(env: SimEnv) -> None:
    _open_files_at(env, "Download")
    _click(env, desc="More options")


def _detour_info_dialog(env: SimEnv) -> None:
    _open_files_at(env, "Download")
    _click(env, resource_id="item", text_contains=".pdf")


def _detour_copy_picker(env: SimEnv) -> None:
    _open_files_at(env, "Music")
    _click(env, long=True, resource_id="item")
    _click(env, desc="More options")
    _click(env, text="Copy to\u2026")


def _detour_sorted_by_size(env: SimEnv) -> None:
    _open_files_at(env, "DCIM/Camera")
    _click(env, desc="More options")
    _click(env, text="Sort by\u2026")
    _click(env, text="Size", class_contains="RadioButton")


def _detour_other_app(env: SimEnv) -> None:
    _open_files_at(env, "Documents")
    env.phone.open_app("clock")


FILES_DETOURS = [_detour_search, _detour_selection_in_music, _detour_menu_in_download, _detour_info_dialog,
                 _detour_copy_picker, _detour_sorted_by_size, _detour_other_app]


@pytest.mark.parametrize("name", ROUND4)
def test_round4_oracle_finishes_from_mid_task_screens_and_detours(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(FILES_DETOURS):
        seed = 20 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
        for _ in range(k % 4 + 1):  # a few of the oracle's own steps first, then the detour
            action = task.oracle_action(env.phone, obs)
            if action.action_type in ("status", "answer"):
                break
            obs = env.step(action)
        detour(env)
        obs = env.observe()
        for _ in range(tmpl.max_steps):
            action = task.oracle_action(env.phone, obs)
            if action.action_type == "status":
                break
            obs = env.step(action)
            if action.action_type == "answer":
                break
        else:
            raise AssertionError(f"{name} after {detour.__name__}: no finish (at {env.phone.location})")
        assert env.is_successful() == 1.0, (name, detour.__name__)


# ---- round 5 templates: the sort dialog, Select all, breadcrumbs, folder copies, search-result sizes, derived names ----
ROUND5 = ["files_refresh_folder_backup", "files_copy_missing_pdfs_to_shared", "files_keep_larger_version",
          "files_move_three_newest", "files_flatten_subfolders", "files_ensure_folders_exist",
          "files_copy_template_next_number", "files_query_count_bigger_than_file", "files_query_saved_same_day",
          "files_query_folder_of_largest_match", "files_query_return_deadline", "files_query_same_size_pair"]


def _refresh(p: Phone, pr: dict, *, delete: bool = True, into: str = "Backups") -> None:
    if delete:
        storage.delete(p, _in(pr, "Documents", "Backups", pr["folder"]), recursive=True)
    storage.copy(p, _in(pr, "Documents", pr["folder"]), _in(pr, "Documents", into))


def _refresh_files_only(p: Phone, pr: dict) -> None:  # copied the files over the old backup, kept its extra file
    bak = _in(pr, "Documents", "Backups", pr["folder"])
    for n, _ in pr["files"]:
        if storage.exists(p, f"{bak}/{n}"):
            storage.delete(p, f"{bak}/{n}")
        storage.copy(p, _in(pr, "Documents", pr["folder"], n), bak)


def _share(p: Phone, pr: dict, *, everything: bool = False, skip_one: bool = False, move: bool = False) -> None:
    src, dest = _in(pr, "Documents", pr["folder"]), _in(pr, "Download", pr["shared"])
    todo = [n for n, _ in pr["files"] if (everything or n.endswith(".pdf")) and n not in pr["done"]]
    for n in todo[1:] if skip_one else todo:
        (storage.move if move else storage.copy)(p, f"{src}/{n}", dest)


def _keep_larger(p: Phone, pr: dict, *, wrong: bool = False, leave_download: bool = False) -> None:
    docs, dl = _in(pr, "Documents", pr["name"]), _in(pr, "Download", pr["name"])
    keep_docs = (pr["bigger_in"] == "Documents") != wrong
    if keep_docs:
        if not leave_download:
            storage.delete(p, dl)
    else:
        storage.delete(p, docs)
        (storage.copy if leave_download else storage.move)(p, dl, _in(pr, "Documents"))


def _newest(pr: dict, k: int = 3, skip: int = 0) -> list[str]:
    return [n for n, _, _ in sorted(pr["files"], key=lambda f: f[2])[skip:skip + k]]


def _move_newest(p: Phone, pr: dict, names: list[str], *, copy: bool = False) -> None:
    for n in names:
        (storage.copy if copy else storage.move)(p, _in(pr, "Download", pr["sub"], n), _in(pr, "Documents", pr["dest"]))


def _flatten(p: Phone, pr: dict, *, keep_subs: bool = False, skip_sub: bool = False, look_alike: bool = False) -> None:
    base = _in(pr, "Documents", pr["folder"])
    for s in pr["subs"][1:] if skip_sub else pr["subs"]:
        for e in storage.list_dir(p, f"{base}/{s}"):
            storage.move(p, e.path, base)
        if not keep_subs:
            storage.delete(p, f"{base}/{s}")
    if look_alike:
        other = f"{base} {pr['other_year']}"
        storage.move(p, f"{other}/{pr['subs'][0]}/old_01.pdf", other)
        storage.delete(p, f"{other}/{pr['subs'][0]}")


def _ensure(p: Phone, pr: dict, *, all_of_them: bool = False, skip_one: bool = False, rename_look: bool = False) -> None:
    missing = [n for n in pr["names"] if all_of_them or n not in pr["have"]]
    if rename_look:  # the look-alike renamed instead of a new folder
        first = next(n for n in missing if pr["look_alike"].startswith(n + " "))
        missing.remove(first)
        storage.rename(p, _in(pr, "Documents", pr["look_alike"]), first)
    for n in missing[1:] if skip_one else missing:
        storage.mkdir(p, _in(pr, "Documents", n), exist_ok=all_of_them)


def _template_copy(p: Phone, pr: dict, *, number: int | None = None, move: bool = False, digits: int = 3) -> None:
    n = max(pr["numbers"]) + 1 if number is None else number
    dest = _in(pr, "Documents", pr["folder"])
    (storage.move if move else storage.copy)(p, _in(pr, "Documents", "Templates", pr["template"]), dest)
    storage.rename(p, f"{dest}/{pr['template']}", f"{pr['stem']}_{n:0{digits}d}{pr['ext']}")


ROUND5_OPS: dict[str, tuple[Callable, list[Callable]]] = {
    "files_refresh_folder_backup": (_refresh, [
        lambda p, pr: _refresh(p, pr, delete=False, into="Backups/" + pr["folder"]),  # nested inside the old one
        _refresh_files_only,  # the deleted file is still in the backup
        lambda p, pr: (_refresh(p, pr), storage.delete(p, _in(pr, "Documents", pr["folder"]), recursive=True)),
        lambda p, pr: (_refresh(p, pr), storage.delete(p, _in(pr, "Documents", "Backups", pr["other"]),
                                                       recursive=True))]),
    "files_copy_missing_pdfs_to_shared": (_share, [
        lambda p, pr: _share(p, pr, everything=True), lambda p, pr: _share(p, pr, skip_one=True),
        lambda p, pr: _share(p, pr, move=True)]),
    "files_keep_larger_version": (_keep_larger, [
        lambda p, pr: _keep_larger(p, pr, wrong=True), lambda p, pr: _keep_larger(p, pr, leave_download=True),
        lambda p, pr: storage.delete(p, _in(pr, "Download", pr["name"]))
        if pr["bigger_in"] == "Download" else storage.delete(p, _in(pr, "Documents", pr["name"]))]),
    "files_move_three_newest": (
        lambda p, pr: _move_newest(p, pr, _newest(pr)),
        [lambda p, pr: _move_newest(p, pr, _newest(pr, 3, 1)),  # the 2nd-4th newest
         lambda p, pr: _move_newest(p, pr, _newest(pr, 4)), lambda p, pr: _move_newest(p, pr, _newest(pr, 2)),
         lambda p, pr: _move_newest(p, pr, _newest(pr), copy=True)]),
    "files_flatten_subfolders": (_flatten, [
        lambda p, pr: _flatten(p, pr, keep_subs=True), lambda p, pr: _flatten(p, pr, skip_sub=True),
        lambda p, pr: _flatten(p, pr, look_alike=True)]),
    "files_ensure_folders_exist": (_ensure, [
        lambda p, pr: _ensure(p, pr, skip_one=True), lambda p, pr: _ensure(p, pr, rename_look=True),
        lambda p, pr: (_ensure(p, pr), storage.mkdir(p, _in(pr, "Pictures", pr["names"][0])))]),
    "files_copy_template_next_number": (_template_copy, [
        lambda p, pr: _template_copy(p, pr, number=pr["stray"] + 1),  # after the stray one in Download
        lambda p, pr: _template_copy(p, pr, number=len(pr["numbers"]) + 1),  # the count, not the highest
        lambda p, pr: _template_copy(p, pr, move=True), lambda p, pr: _template_copy(p, pr, digits=4)]),
}


@pytest.mark.parametrize("name", sorted(ROUND5_OPS))
def test_round5_checker_success_and_near_miss(name: str) -> None:
    good, bads = ROUND5_OPS[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 5, 7, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        assert task.is_successful(env.phone, None) == 0.0, (name, seed)
        good(env.phone, task.params)
        assert task.is_successful(env.phone, None) == 1.0, (name, seed)
        for k, bad in enumerate(bads):
            env2 = fresh(task, seed)
            bad(env2.phone, task.params)
            assert task.is_successful(env2.phone, None) == 0.0, (name, seed, k)


def _bigger_count(pr: dict, off: int = 0) -> str:
    ref = next(s for n, s in pr["files"] if n == pr["ref"])
    return str(sum(1 for _, s in pr["files"] if s > ref) + off)


def _deadline(p: Phone, pr: dict, off: int = 0) -> datetime:
    return storage.stat(p, _in(pr, "Download", pr["receipt"])).modified_dt + timedelta(days=pr["days"] + off)


def _say(d: datetime) -> str:
    return d.strftime("%B ") + str(d.day) + d.strftime(", %Y")


def _match_folders(pr: dict) -> list[str]:
    """Folders of the keyword's files, biggest file first."""
    return [f.split("/")[-1] for f, _, _ in sorted(pr["files"], key=lambda f: -f[2])]


def _others(pr: dict, names: list[str]) -> list[str]:
    return [f[0] for f in pr["files"] if f[0] not in names]


ROUND5_QUERIES: dict[str, tuple[Callable[[Phone, dict], list[str]], Callable[[Phone, dict], list[str]]]] = {
    "files_query_count_bigger_than_file": (
        lambda p, pr: [_bigger_count(pr), f"{_bigger_count(pr)} files"],
        lambda p, pr: [_bigger_count(pr, 1), _bigger_count(pr, -1), str(len(pr["files"]) - 1 - int(_bigger_count(pr))),
                       f"{_bigger_count(pr)} or {_bigger_count(pr, 1)}"]),
    "files_query_saved_same_day": (
        lambda p, pr: [pr["mate"], f"It's {pr['mate'].rsplit('.', 1)[0]}."],
        lambda p, pr: [_others(pr, [pr["ref"], pr["mate"]])[0], f"{pr['mate']} or {_others(pr, [pr['ref'], pr['mate']])[0]}",
                       pr["ref"]]),
    "files_query_folder_of_largest_match": (
        lambda p, pr: [_match_folders(pr)[0], f"Download/{_match_folders(pr)[0]}",
                       f"Internal storage > Documents > {_match_folders(pr)[0]}"],
        lambda p, pr: [_match_folders(pr)[1], "Download", f"{_match_folders(pr)[0]} or {_match_folders(pr)[1]}"]),
    "files_query_return_deadline": (
        lambda p, pr: [_say(_deadline(p, pr)), _deadline(p, pr).strftime("%Y-%m-%d"),
                       f"{_deadline(p, pr).day} {_deadline(p, pr).strftime('%B')}"],
        lambda p, pr: [_say(_deadline(p, pr, -1)), _say(_deadline(p, pr, 1)), _say(_deadline(p, pr, -pr["days"]))]),
    "files_query_same_size_pair": (
        lambda p, pr: [f"{pr['pair'][0]} and {pr['pair'][1]}", f"{pr['pair'][1]}, {pr['pair'][0].rsplit('.', 1)[0]}"],
        lambda p, pr: [pr["pair"][0], f"{pr['pair'][0]} and {_others(pr, pr['pair'])[0]}",
                       f"{pr['pair'][0]}, {pr['pair'][1]} and {_others(pr, pr['pair'])[0]}"]),
}


@pytest.mark.parametrize("name", sorted(ROUND5_QUERIES))
def test_round5_query_success_and_near_miss(name: str) -> None:
    good, bad = ROUND5_QUERIES[name]
    tmpl = registry.get_template(name)
    for seed in (0, 1, 2, 3, 1000, 1001):
        task = tmpl.instantiate(seed)
        env = fresh(task, seed)
        for a in good(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 1.0, (name, seed, a)
        for a in bad(env.phone, task.params):
            assert task.is_successful(env.phone, a) == 0.0, (name, seed, a)


def test_round5_set_ups_leave_one_answer_and_hide_it_in_a_long_list() -> None:
    for seed in (0, 1, 2, 1000):
        # the list shows every size differently, except the pair's; the folders hold 8+ files
        task = registry.get_template("files_query_same_size_pair").instantiate(seed)
        env = fresh(task, seed)
        files = _entries(env.phone, f"Download/{task.params['folder']}")
        shown = [storage.human_size(e.size) for e in files]
        assert len(files) >= 8 and len(set(shown)) == len(shown) - 1
        task = registry.get_template("files_query_count_bigger_than_file").instantiate(seed)
        env = fresh(task, seed)
        shown = [storage.human_size(e.size) for e in _entries(env.phone, f"Download/{task.params['folder']}")]
        assert len(set(shown)) == len(shown) >= 10
        # one file shares the reference's day; files the day before and after do not
        task = registry.get_template("files_query_saved_same_day").instantiate(seed)
        env = fresh(task, seed)
        days = sorted((env.phone.now.date() - e.modified_dt.date()).days
                      for e in _entries(env.phone, f"Documents/{task.params['folder']}"))
        ref = (env.phone.now.date() - storage.stat(env.phone, _in(task.params, "Documents", task.params["folder"],
                                                                   task.params["ref"])).modified_dt.date()).days
        assert days.count(ref) == 2 and ref - 1 in days and ref + 1 in days
        # the biggest keyword file is not the biggest look-alike name: that one is not a search hit
        task = registry.get_template("files_query_folder_of_largest_match").instantiate(seed)
        env = fresh(task, seed)
        hits = storage.search(env.phone, task.params["keyword"])
        assert len(hits) == 4 and task.params["look_alike"][0] not in {e.name for e in hits}
        # the three newest of the long list are not its first three by name
        task = registry.get_template("files_move_three_newest").instantiate(seed)
        env = fresh(task, seed)
        assert len(_entries(env.phone, f"Download/{task.params['sub']}")) >= 11


@pytest.mark.parametrize("name", ["files_query_saved_same_day", "files_query_folder_of_largest_match",
                                  "files_query_same_size_pair", "files_ensure_folders_exist"])
def test_round5_oracle_types_or_answers_only_what_it_was_shown(name: str) -> None:
    for seed in (0, 1, 2, 1000):
        if name == "files_query_same_size_pair":  # answers "a and b": each name was shown
            task = registry.get_template(name).instantiate(seed)
            shown = " ".join(s.lower() for s, _ in oracle_path(name, seed))
            assert all(n.lower() in shown for n in task.params["pair"]), seed
            continue
        assert unread_values(name, seed) == [], (name, seed)


def test_round5_oracles_use_the_new_controls() -> None:
    """Sort by…, Select all, a breadcrumb and the copy of a whole folder are on the solving paths."""
    def clicked(name: str, seed: int = 0) -> list[str]:
        task = registry.get_template(name).instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
        out = []
        for _ in range(task.max_steps):
            a = task.oracle_action(env.phone, obs)
            if a.index is not None:
                el = obs.elements[a.index]
                out.append(f"{(el.resource_id or '').split('/')[-1]}:{el.text or el.content_description}")
            if a.action_type in ("status", "answer"):
                break
            obs = env.step(a)
        return out

    assert "text1:Date modified" in clicked("files_move_three_newest")
    assert "text1:Size" in clicked("files_query_same_size_pair")
    flat = clicked("files_flatten_subfolders")
    assert ":Select all" in flat and any(c.startswith("breadcrumb_text:") for c in flat)
    task = registry.get_template("files_refresh_folder_backup").instantiate(0)
    env, _ = run_oracle(task, 0)
    assert storage.is_dir(env.phone, _in(task.params, "Documents", "Backups", task.params["folder"]))


@pytest.mark.parametrize("name", ROUND5)
def test_round5_oracle_finishes_from_mid_task_screens_and_detours(name: str) -> None:
    tmpl = registry.get_template(name)
    for k, detour in enumerate(FILES_DETOURS):
        seed = 30 + k
        task = tmpl.instantiate(seed)
        env = SimEnv(task, seed)
        obs = env.reset()
        for _ in range(k % 4 + 2):
            action = task.oracle_action(env.phone, obs)
            if action.action_type in ("status", "answer"):
                break
            obs = env.step(action)
        detour(env)
        obs = env.observe()
        for _ in range(tmpl.max_steps):
            action = task.oracle_action(env.phone, obs)
            if action.action_type == "status":
                break
            obs = env.step(action)
            if action.action_type == "answer":
                break
        else:
            raise AssertionError(f"{name} after {detour.__name__}: no finish (at {env.phone.location})")
        assert env.is_successful() == 1.0, (name, detour.__name__)
