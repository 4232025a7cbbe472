"""Key values that read as a stand-in for a missing value (`N/A`, `null`, `unknown`), named in a finding's fix.

Such a value shared by many rows is one large group that crosses every split. It is compared as written, since
whether it is a real group is the user's to say (`NA` is Namibia too); the fix says that a blank cell is missing.
"""

from __future__ import annotations

from collections.abc import Iterable

PLACEHOLDERS = frozenset(
    {
        "na",
        "n/a",
        "nan",
        "nat",
        "null",
        "none",
        "nil",
        "missing",
        "unknown",
        "undefined",
        "-",
        "--",
        "?",
        "#n/a",
        "<na>",
    }
)


def placeholder_hint(values: Iterable[tuple[str, str]]) -> str:
    """A fix's last sentence naming the (column, value) pairs whose value reads as a placeholder; '' if none."""
    found = list(dict.fromkeys((c, v) for c, v in values if v.strip().casefold() in PLACEHOLDERS))
    if not found:
        return ""
    shown = ", ".join(f"{c} {v!r}" for c, v in found[:3])
    return (
        f" {shown} may stand for a missing value, not a shared one: a blank cell is missing and never compared "
        "(rows without a value are counted, not linked), so if that is what it means, write it blank in the manifest."
    )
