"""A duration as `splits.gap` writes it: a number with a unit (7d, 36h, 90min), or a bare number in the time
column's own units (steps of an integer time column)."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

UNIT_NS = {"s": 1_000_000_000, "min": 60_000_000_000, "h": 3_600_000_000_000, "d": 86_400_000_000_000}
UNIT_NS["w"] = 7 * UNIT_NS["d"]
DURATION_PATTERN = r"^\s*(\d+(\.\d*)?|\.\d+)\s*(s|min|h|d|w)?\s*$"
_FORM = re.compile(DURATION_PATTERN)
EXPECTED = (
    "a duration: a number with a unit s, min, h, d or w (7d, 36h, 90min), or a bare number in the time column's units"
)


@dataclass(frozen=True)
class Duration:
    """``amount`` of ``unit``; no unit means the time column's own units (its epoch unit)."""

    amount: float
    unit: str | None

    def ns(self, epoch_scale: int) -> int:
        """Nanoseconds; ``epoch_scale`` is how many a bare number's unit holds (1e9 for epoch seconds)."""
        return round(self.amount * (UNIT_NS[self.unit] if self.unit is not None else epoch_scale))

    def __str__(self) -> str:
        amount = f"{self.amount:g}"
        return amount + (self.unit or "")


def parse_duration(text: str) -> Duration:
    """A Duration, or ValueError saying what was expected."""
    match = _FORM.match(text)
    if match is None:
        raise ValueError(f"expected {EXPECTED}")
    amount = float(match.group(1))
    # In nanoseconds it must fit an int64: by its own unit, or, bare, by the largest epoch unit (seconds).
    unit_ns = UNIT_NS[match.group(3)] if match.group(3) else UNIT_NS["s"]
    if not math.isfinite(amount) or amount * unit_ns >= 2**63:
        raise ValueError(f"{text.strip()!r} is longer than any time column spans; expected {EXPECTED}")
    return Duration(amount, match.group(3))


def format_span(ns: int, epoch_scale: int | None = None) -> str:
    """A span for a message: in the time column's own units for epoch numbers, else in the largest whole unit."""
    if epoch_scale is not None:
        return f"{ns / epoch_scale:g}"
    for unit in ("d", "h", "min", "s"):
        if ns and ns % UNIT_NS[unit] == 0:
            return f"{ns // UNIT_NS[unit]}{unit}"
    return f"{ns / UNIT_NS['s']:g}s"
