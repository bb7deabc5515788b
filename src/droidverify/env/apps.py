"""App names an agent may say in ``open_app`` -> Android package (+ launch activity when known).

Packages and activities follow the apps AndroidWorld runs on (a Pixel emulator image with Google
apps plus F-Droid apps). On other devices the activity may differ; :class:`~droidverify.env.adb.AdbEnv`
then falls back to launching the package's LAUNCHER intent.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from droidverify.errors import UnknownAppError

__all__ = ["APPS", "AppInfo", "UnknownAppError", "resolve_app"]


@dataclass(frozen=True)
class AppInfo:
    name: str  # canonical display name
    package: str
    activity: str | None = None  # fully qualified, e.g. "com.android.settings.Settings"
    aliases: tuple[str, ...] = ()

    @property
    def component(self) -> str | None:
        """``package/activity`` for ``am start -n``, or None when the activity is not known."""
        return f"{self.package}/{self.activity}" if self.activity else None


def _app(name: str, component: str, *aliases: str) -> AppInfo:
    package, _, activity = component.partition("/")
    if activity.startswith("."):
        activity = package + activity
    return AppInfo(name, package, activity or None, aliases)


APPS: tuple[AppInfo, ...] = (
    _app("Settings", "com.android.settings/.Settings", "system settings", "android settings"),
    _app("Contacts", "com.google.android.contacts/com.android.contacts.activities.PeopleActivity",
         "google contacts", "people"),
    _app("Phone", "com.google.android.dialer/com.google.android.dialer.extensions.GoogleDialtactsActivity",
         "dialer", "google phone", "phone app"),
    _app("Messages", "com.google.android.apps.messaging/"
         "com.google.android.apps.messaging.ui.ConversationListActivity", "google messages", "sms"),
    _app("Chrome", "com.android.chrome/com.google.android.apps.chrome.Main", "google chrome", "browser"),
    _app("Camera", "com.android.camera2/com.android.camera.CameraLauncher"),
    _app("Clock", "com.google.android.deskclock/com.android.deskclock.DeskClock", "alarm", "deskclock",
         "timer", "stopwatch"),
    _app("Google Calendar", "com.google.android.calendar/com.android.calendar.AllInOneActivity", "gcal"),
    _app("Files", "com.google.android.documentsui/com.android.documentsui.files.FilesActivity",
         "file manager", "documents"),
    _app("Gmail", "com.google.android.gm/.ConversationListActivityGmail", "google mail", "email"),
    _app("Maps", "com.google.android.apps.maps/com.google.android.maps.MapsActivity", "google maps"),
    _app("YouTube", "com.google.android.youtube/com.google.android.apps.youtube.app.WatchWhileActivity",
         "yt"),
    _app("Play Store", "com.android.vending/com.google.android.finsky.activities.MainActivity",
         "google play", "play"),
    _app("Photos", "com.google.android.apps.photos/com.google.android.apps.photos.home.HomeActivity",
         "google photos"),
    _app("Google Drive", "com.google.android.apps.docs/.drive.startup.StartupActivity", "drive"),
    _app("Google Keep", "com.google.android.keep/.activities.BrowseActivity", "keep"),
    _app("Markor", "net.gsantner.markor/net.gsantner.markor.activity.MainActivity", "markor notes"),
    _app("Simple Calendar Pro", "com.simplemobiletools.calendar.pro/"
         "com.simplemobiletools.calendar.pro.activities.MainActivity", "simple calendar", "calendar"),
    _app("Simple SMS Messenger", "com.simplemobiletools.smsmessenger/"
         "com.simplemobiletools.smsmessenger.activities.MainActivity", "simple sms", "sms messenger"),
    _app("Simple Gallery Pro", "com.simplemobiletools.gallery.pro/"
         "com.simplemobiletools.gallery.pro.activities.MainActivity", "simple gallery", "gallery"),
    _app("Simple Draw Pro", "com.simplemobiletools.draw.pro/"
         "com.simplemobiletools.draw.pro.activities.MainActivity", "simple draw", "draw"),
    _app("Pro Expense", "com.arduia.expense/com.arduia.expense.ui.MainActivity", "expense",
         "expenses", "pro expense app", "expense tracker"),
    _app("Broccoli", "com.flauschcode.broccoli/com.flauschcode.broccoli.MainActivity",
         "broccoli recipe app", "recipe app", "recipes"),
    _app("Audio Recorder", "com.dimowner.audiorecorder/"
         "com.dimowner.audiorecorder.app.welcome.WelcomeActivity", "recorder", "voice recorder"),
    _app("VLC", "org.videolan.vlc/.gui.MainActivity", "vlc player", "vlc media player"),
    _app("OsmAnd", "net.osmand/net.osmand.plus.activities.MapActivity", "osmand maps"),
    _app("Tasks", "org.tasks/com.todoroo.astrid.activity.MainActivity", "tasks.org", "tasks app"),
    _app("Retro Music", "code.name.monkey.retromusic/.activities.MainActivity", "retro", "retro player",
         "music"),
    _app("Joplin", "net.cozic.joplin/.MainActivity", "joplin notes"),
    _app("OpenTracks", "de.dennisguse.opentracks/de.dennisguse.opentracks.TrackListActivity",
         "open tracks", "activity tracker"),
    _app("Clipper", "ca.zgrs.clipper/ca.zgrs.clipper.Main", "clipboard"),
    _app("Google Search", "com.google.android.googlequicksearchbox/"
         "com.google.android.googlequicksearchbox.SearchActivity", "google"),
)


def _key(name: str) -> str:
    return re.sub(r"[\s_\-]+", " ", name.strip().lower()).removesuffix(" app").strip()


_INDEX: dict[str, AppInfo] = {}
for _info in APPS:
    for _n in (_info.name, *_info.aliases):
        _INDEX.setdefault(_key(_n), _info)
    _INDEX.setdefault(_info.package.lower(), _info)

_PACKAGE_RE = re.compile(r"^[A-Za-z][\w]*(\.[A-Za-z_][\w]*)+$")


def resolve_app(name: str) -> AppInfo:
    """Look an app up by name, alias or package, case-insensitively.

    A string that looks like a package name (``com.example.app``) and is not in the table resolves
    to an :class:`AppInfo` without activity. Anything else unknown raises :class:`UnknownAppError`
    listing close matches.
    """
    if not isinstance(name, str) or not name.strip():
        raise UnknownAppError(str(name), [])
    info = _INDEX.get(_key(name)) or _INDEX.get(name.strip().lower())
    if info is not None:
        return info
    stripped = name.strip()
    if _PACKAGE_RE.match(stripped):
        return AppInfo(stripped, stripped)
    names = sorted({_key(n) for a in APPS for n in (a.name, *a.aliases)})
    close = difflib.get_close_matches(_key(name), names, n=3, cutoff=0.6)
    return_names = [(_INDEX[c].name if c == _key(_INDEX[c].name) else c) for c in close]
    raise UnknownAppError(name, list(dict.fromkeys(return_names)))
