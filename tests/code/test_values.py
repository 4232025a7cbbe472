"""The walk's values: joining many at once gives what joining them one by one gives, in linear time."""

from __future__ import annotations

import functools
from pathlib import Path

from pytest import MonkeyPatch

from auditor.code.analysis import analyse_file
from auditor.code.values import NOTHING, OPEN, Atom, Columns, Data, Part, Value, join_all


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


def test_a_second_mask_on_one_column_keeps_the_range_both_hold() -> None:
    """`date >= "2022"`, then `date < "2023"`: one side of the date split, the interval between; bounds of two
    names cannot be intersected, and the rows stay as the first mask left them."""
    axis = "['date']"
    after = Part("mask:date", "d>=a", (axis, ("", 2022, True), (OPEN, 0, True)))
    before = Part("mask:date", "d<b", (axis, (OPEN, 0, True), ("", 2023, False)))
    both = Atom(0).masked(after).masked(before)
    assert both.parts == (Part("mask:date", "d>=a&d<b", (axis, ("", 2022, True), ("", 2023, False))),)
    tighter = both.masked(Part("mask:date", "d>c", (axis, ("", 2022, False), (OPEN, 0, True))))
    assert tighter.parts[0].span == (axis, ("", 2022, False), ("", 2023, False))
    named = Part("mask:date", "d<cut", (axis, (OPEN, 0, True), ("cut", 0, False)))
    assert both.masked(named) == both
    other = Part("mask:store", "s==3", ())
    assert both.masked(other).parts == (*both.parts, other)
    assert both.masked(both.parts[0]) == both


def test_a_share_moved_back_ends_before_a_larger_share_and_not_after_it() -> None:
    """`[:int(n * 0.7) - 6]` and `[int(n * 0.85):]` share no row; `[:int(n * 0.85) - 6]` and `[int(n * 0.7):]` may."""
    from auditor.code.values import POSITIONS

    def piece(lower: tuple[str, float, bool], upper: tuple[str, float, bool]) -> Atom:
        return Atom(1, (Part("slice", "range", (POSITIONS, lower, upper)),))

    seventy, eighty_five = "int(len(values) * 0.7)", "int(len(values) * 0.85)"
    early = piece(("", 0, True), (seventy, -6, False))
    late = piece((eighty_five, 0, True), (OPEN, 0, False))
    assert early.disjoint(late) and late.disjoint(early)
    longer = piece(("", 0, True), (eighty_five, -6, False))
    later = piece((seventy, 0, True), (OPEN, 0, False))
    assert not longer.disjoint(later)
