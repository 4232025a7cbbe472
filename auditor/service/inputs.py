"""What every request may carry: one rule for bodies and path parameters, checked before the database sees it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Path
from pydantic import BaseModel, ConfigDict, field_validator

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


# A project named in a path: any name reaches the lookup (an unknown one is 404), but a NUL never does.
ProjectPath = Annotated[str, Path(pattern=NO_NUL)]
