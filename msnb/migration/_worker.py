"""Preloaded by scan's forkserver: every worker forks with the analyzer,
the registry and nbformat already imported (and without the slow unused
import :mod:`msnb.migration._startup` skips)."""

from msnb.migration._startup import skip_unused_imports

skip_unused_imports()

from msnb.migration import scan  # noqa: E402

scan._warm_up()
