"""``python -m droidverify`` = the ``droidverify`` command (for machines without the entry point)."""

from droidverify.cli import main

main()
