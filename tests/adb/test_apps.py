"""resolve_app: AndroidWorld app names, aliases, packages, and helpful errors for unknown names."""

from __future__ import annotations

import pytest

from droidverify.env.apps import APPS, UnknownAppError, resolve_app
from droidverify.errors import EnvError


@pytest.mark.parametrize("name, package", [
    ("Settings", "com.android.settings"), ("settings", "com.android.settings"),
    ("  SETTINGS  ", "com.android.settings"), ("Contacts", "com.google.android.contacts"),
    ("Phone", "com.google.android.dialer"), ("dialer", "com.google.android.dialer"),
    ("Messages", "com.google.android.apps.messaging"), ("Chrome", "com.android.chrome"),
    ("Camera", "com.android.camera2"), ("Clock", "com.google.android.deskclock"),
    ("Files", "com.google.android.documentsui"), ("Gmail", "com.google.android.gm"),
    ("Maps", "com.google.android.apps.maps"), ("YouTube", "com.google.android.youtube"),
    ("Play Store", "com.android.vending"), ("Photos", "com.google.android.apps.photos"),
    ("Markor", "net.gsantner.markor"), ("Simple Calendar Pro", "com.simplemobiletools.calendar.pro"),
    ("simple calendar", "com.simplemobiletools.calendar.pro"), ("Pro Expense", "com.arduia.expense"),
    ("pro-expense app", "com.arduia.expense"), ("Simple SMS Messenger", "com.simplemobiletools.smsmessenger"),
    ("Broccoli", "com.flauschcode.broccoli"), ("recipe app", "com.flauschcode.broccoli"),
    ("Audio Recorder", "com.dimowner.audiorecorder"), ("VLC", "org.videolan.vlc"),
    ("OsmAnd", "net.osmand"), ("Tasks", "org.tasks"), ("Retro Music", "code.name.monkey.retromusic"),
    ("Joplin", "net.cozic.joplin"), ("OpenTracks", "de.dennisguse.opentracks"),
    ("Simple Gallery Pro", "com.simplemobiletools.gallery.pro"),
    ("com.android.settings", "com.android.settings"),
])
def test_known_apps(name: str, package: str) -> None:
    assert resolve_app(name).package == package


def test_activities_are_fully_qualified() -> None:
    assert resolve_app("settings").component == "com.android.settings/com.android.settings.Settings"
    assert resolve_app("vlc").component == "org.videolan.vlc/org.videolan.vlc.gui.MainActivity"
    for app in APPS:
        assert app.activity and not app.activity.startswith("."), app


def test_unlisted_package_name_passes_through_without_activity() -> None:
    info = resolve_app("org.example.notes")
    assert info.package == "org.example.notes" and info.component is None


@pytest.mark.parametrize("name, suggestion", [("Setings", "Settings"), ("Gmial", "Gmail"), ("joplinn", "Joplin")])
def test_unknown_app_suggests_close_matches(name: str, suggestion: str) -> None:
    with pytest.raises(UnknownAppError) as info:
        resolve_app(name)
    assert isinstance(info.value, EnvError) and suggestion in info.value.suggestions
    assert name in str(info.value)


@pytest.mark.parametrize("name", ["", "   ", "xyzzy quux"])
def test_hopeless_names(name: str) -> None:
    with pytest.raises(UnknownAppError):
        resolve_app(name)
