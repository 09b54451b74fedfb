"""The OpInfo / ModuleInfo cases the suite replays, loaded once per session."""

from __future__ import annotations

import functools

from msnb.adapter import opinfo

__all__ = ["all_cases", "op_cases", "module_cases", "error_cases", "extremal_cases"]


@functools.lru_cache(maxsize=1)
def _dbs():
    return opinfo.load_dbs()


def op_cases():
    return opinfo.op_cases(_dbs()[0])


def module_cases():
    return opinfo.module_cases(_dbs()[1])


def all_cases():
    """Every case the suite replays (``opinfo.suite_cases``)."""
    return opinfo.suite_cases(op_cases() + module_cases())


@functools.lru_cache(maxsize=1)
def error_cases():
    """Every OpInfo error input the suite replays (``opinfo_errors.error_cases``), drawn on a
    helper thread: PyTorch seeds each error input with ``torch.manual_seed``, which formats the
    caller's stack, and pytest's ~45 frames made the drawing take 2-3 times longer (the inputs
    are the same on any stack: no unittest.TestCase is on either)."""
    import concurrent.futures

    from msnb.adapter import opinfo_errors
    db = _dbs()[0]
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="opinfo-errors") as pool:
        return pool.submit(opinfo_errors.error_cases, db).result()


@functools.lru_cache(maxsize=1)
def extremal_cases():
    """The cases the extremal-value replay tests (``opinfo_extremal.suite_cases``)."""
    from msnb.adapter import opinfo_extremal
    return opinfo_extremal.suite_cases(opinfo_extremal.extremal_cases(_dbs()[0]))
