"""What every request may carry: one rule for bodies and path parameters, checked before the database sees it."""

from __future__ import annotations

import datetime as dt
import unicodedata
from typing import Annotated, Any

from fastapi import Path
from pydantic import AfterValidator, BaseModel, ConfigDict, field_validator

# PostgreSQL text cannot hold NUL (SQLite can): refused as invalid input on both, never a database error.
NO_NUL = r"^[^\x00]*$"
NUL_MESSAGE = "contains a NUL character (\\u0000), which no stored text may hold"


def refuse_nul(value: Any) -> Any:
    """``value`` unchanged; ValueError when it is a string (or a mapping key) holding a NUL character."""
    if isinstance(value, str) and "\x00" in value:
        raise ValueError(NUL_MESSAGE)
    if isinstance(value, dict) and any(isinstance(k, str) and "\x00" in k for k in value):
        raise ValueError(f"a key {NUL_MESSAGE}")
    return value


class RequestBody(BaseModel):
    """The base of every request body: unknown fields refused, and no text field holding a NUL."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*")
    @classmethod
    def _no_nul(cls, value: Any) -> Any:
        return refuse_nul(value)


# Characters that render as nothing although Python counts them as text: Hangul fillers, the Braille blank,
# the combining grapheme joiner, Khmer inherent vowels, Mongolian and other variation selectors.
_BLANK = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u2800\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)


def visible(text: str | None) -> bool:
    """Whether ``text`` shows at least one character: whitespace, format characters (zero-width spaces, joiners,
    byte-order marks, category Cf), control characters and blanks (U+2800, Hangul fillers) show nothing, so a
    reason made of them is no reason."""
    return text is not None and any(
        not (c.isspace() or c in _BLANK or unicodedata.category(c) in ("Cf", "Cc", "Cn", "Zs", "Zl", "Zp"))
        for c in text
    )


# How deep a report's values may nest: an audit writes about ten levels; reading JSON back stops at 200, so a
# deeper report would be stored and then break every page that reads it.
MAX_NESTING = 64
SHOWN_LEVELS = 12  # of the path to a value nested too deep, in a refusal


def too_deep(value: Any, limit: int = MAX_NESTING) -> str | None:
    """The path (``a.0.b``) of the first list or mapping in ``value`` nested more than ``limit`` levels deep,
    else None; walked without recursion, so no depth of input can exhaust the stack."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict | list):
            if len(path) >= limit:
                # Where the nesting starts is what names the field; sixty more indexes would bury it.
                return ".".join(path[:SHOWN_LEVELS]) + (".…" if len(path) > SHOWN_LEVELS else "")
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            stack.extend((child, (*path, str(key))) for key, child in pairs)
    return None


def not_text(value: Any) -> str | None:
    """The path (``a.0.b``) of the first string or key in ``value`` that is not text (a lone UTF-16 surrogate,
    which JSON's \\u escapes can carry and no UTF-8 text holds), else None; walked without recursion."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(value, ())]
    while stack:
        item, path = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return ".".join(path[:SHOWN_LEVELS]) or "(top level)"
        elif isinstance(item, dict | list):
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                stack.append((child, (*path, str(key))))
                if isinstance(key, str):
                    stack.append((key, (*path, key.encode("utf-8", "backslashreplace").decode("utf-8"))))
    return None


# A project named in a path: any name reaches the lookup (an unknown one is 404), but a NUL never does.
ProjectPath = Annotated[str, Path(pattern=NO_NUL)]


def in_utc(value: dt.datetime) -> dt.datetime:
    """``value`` as the instant in UTC it names (a time without an offset is UTC): times are stored in UTC, and an
    offset may carry an instant past the years 1-9999 a time can hold (9999-12-31T23:59:59-05:00), refused here
    rather than overflowing where the time is used."""
    if value.tzinfo is None:
        return value.replace(tzinfo=dt.UTC)
    try:
        return value.astimezone(dt.UTC)
    except OverflowError:
        raise ValueError(
            f"{value.isoformat()} is an instant in UTC outside the years 1-9999, which no stored time can hold"
        ) from None


# A time in a request body: held as its instant in UTC.
Instant = Annotated[dt.datetime, AfterValidator(in_utc)]
