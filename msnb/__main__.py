"""``python -m msnb ...`` is the ``msnb`` command."""

from msnb.cli import main

raise SystemExit(main())
