"""Process start-up for the processes msnb's command line owns.

nbformat imports jsonschema, and jsonschema imports ``rfc3987_syntax`` when
it is installed (JupyterLab's ``jupyter_events`` pulls it in) to check the
``iri`` string format, which no notebook schema uses.  Building that
package's grammar at import costs 5-9 s per process on the 2-core reference
machine (measured: ``python -c "import rfc3987_syntax"``), longer than a
whole scan.  :func:`skip_unused_imports` marks it absent, so jsonschema
skips that one format checker.  It is called only by ``msnb``'s ``main()``
and by scan's worker processes, never on ``import msnb``: a user's own
process keeps every checker.
"""

from __future__ import annotations

import sys

__all__ = ["skip_unused_imports", "UNUSED"]

#: Optional imports of our dependencies that msnb's commands never need.
UNUSED = ("rfc3987_syntax",)


def skip_unused_imports() -> None:
    """Make ``import rfc3987_syntax`` fail fast in this process (unless it is
    already imported)."""
    for name in UNUSED:
        sys.modules.setdefault(name, None)  # type: ignore[arg-type]
