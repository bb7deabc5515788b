"""Task templates over the simulated apps, their registry and fixed splits.

``registry.all_templates()`` / ``get_template(name)`` / ``templates_for_split(split)`` /
``tasks_for(split, seeds)``; every ``tasks/<app>.py`` module is imported automatically.
"""
