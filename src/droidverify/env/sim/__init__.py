"""The deterministic phone simulator: ``SimEnv`` over a ``Phone`` whose apps keep state in SQLite.

Build new apps with the view DSL (``view.V`` and the widgets in ``app``); see docs/sim_apps.md.
"""

from droidverify.env.sim.app import App, installed_apps, register_app
from droidverify.env.sim.env import SimEnv
from droidverify.env.sim.phone import Dialog, Phone, Screen, Snapshot
from droidverify.env.sim.view import V, View

__all__ = ["App", "Dialog", "Phone", "Screen", "SimEnv", "Snapshot", "V", "View", "installed_apps",
           "register_app"]
