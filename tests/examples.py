"""How many examples a long property run draws: every one in CI (or with --run-slow), a sixth locally.

The examples are the same on every run (the deterministic profile), so the local run is the first part of
what CI checks, never other examples.
"""

from __future__ import annotations

LOCAL_SHARE = 6
LOCAL_AT_LEAST = 20
_FULL: list[bool] = []  # set once by tests/conftest.py's pytest_configure, before any test module is imported


def full_runs(full: bool) -> None:
    _FULL[:] = [full]


def examples(full: int) -> int:
    """``full`` where the slow tests run, else a sixth of it (at least 20)."""
    if not _FULL or _FULL[0]:
        return full
    return min(full, max(LOCAL_AT_LEAST, full // LOCAL_SHARE))
