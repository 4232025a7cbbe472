"""The walk's values: joining many at once gives what joining them one by one gives, in linear time."""

from __future__ import annotations

import functools
from pathlib import Path

from pytest import MonkeyPatch

from auditor.code.analysis import analyse_file
from auditor.code.values import NOTHING, Atom, Columns, Data, Part, Value, join_all


def _values() -> list[Value]:
    out = []
    for i in range(40):
        rows = frozenset({Atom(i % 3, (Part("s", "train" if i % 2 else "test"),))})
        out.append(
            Value(
                data=Data(rows, fits=frozenset({i % 5}), sources=frozenset({f"c{i % 4}"})) if i % 3 else None,
                objects=frozenset({i % 7}),
                consts=frozenset({i, f"name{i % 6}"}),
                scores=frozenset({i % 2}),
                items=(Value(consts=frozenset({i})), Value(consts=frozenset({-i}))) if i % 4 == 0 else None,
                names_of=Columns(frozenset({f"k{i}"})) if i % 9 == 0 else None,
            )
        )
    return out


def test_joining_many_values_at_once_is_joining_them_one_by_one() -> None:
    values = _values()
    assert join_all(values) == functools.reduce(Value.join, values, NOTHING)
    same_length = [v for v in values if v.items is not None]
    assert join_all(same_length) == functools.reduce(Value.join, same_length, NOTHING)


def test_a_long_literal_list_is_joined_at_once_not_value_by_value(tmp_path: Path, monkeypatch: MonkeyPatch) -> None:
    """300,000 numbers joined one by one copy a growing set of constants each time: hours, not seconds."""
    joins = 0
    plain = Value.join

    def counted(self: Value, other: Value) -> Value:
        nonlocal joins
        joins += 1
        return plain(self, other)

    monkeypatch.setattr(Value, "join", counted)
    script = tmp_path / "big.py"
    script.write_text("data = [" + ", ".join(str(i) for i in range(5_000)) + "]\nprint(len(data))\n")
    assert analyse_file(script).skipped == ()
    assert joins < 1_000
