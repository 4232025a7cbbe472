"""YAML's true and false are no numbers: `max_examples: true` is refused, never read as 1."""

from __future__ import annotations

import typing
from typing import Any

from pydantic import BaseModel, ValidationInfo, field_validator


def _kinds(annotation: Any) -> set[Any]:
    """The plain types an annotation admits (through Optional, unions, Annotated and containers' own type)."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _kinds(typing.get_args(annotation)[0])
    if origin is typing.Union or str(origin) == "<class 'types.UnionType'>":
        return set().union(*(_kinds(a) for a in typing.get_args(annotation)))
    if origin is typing.Literal:
        return {type(a) for a in typing.get_args(annotation)}
    return {annotation if origin is None else origin}


class NoBoolNumbers(BaseModel):
    """A field that takes a number but no boolean refuses true and false (pydantic would read them as 1 and 0)."""

    @field_validator("*", mode="before")
    @classmethod
    def _no_bool_as_number(cls, value: Any, info: ValidationInfo) -> Any:
        if isinstance(value, bool) and info.field_name is not None:
            kinds = _kinds(cls.model_fields[info.field_name].annotation)
            if bool not in kinds and Any not in kinds and kinds & {int, float}:
                raise ValueError(f"expected a number, not {str(value).lower()}")
        return value
