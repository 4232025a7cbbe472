"""Fixtures of the numeric tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from auditor.numeric import pool


@pytest.fixture
def warm() -> Iterator[pool.ChildPool]:
    """A pool of one; the session's own when it is one (its zygote is started once for all these tests)."""
    before = pool.current_pool()
    if before is None or before.size != 1:
        pool.warm_pool(1)
    current = pool.current_pool()
    assert current is not None
    current.fill()
    yield current
    if current is not before:
        pool.warm_pool(before.size if before is not None else 0)
