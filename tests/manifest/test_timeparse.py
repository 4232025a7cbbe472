from __future__ import annotations

from datetime import datetime

import numpy as np
import pyarrow as pa
import pytest

from auditor.core.errors import StageInputError
from auditor.manifest.timeparse import NAT, format_time, parse_times


@pytest.mark.parametrize(
    "kind",
    [pa.timestamp("s"), pa.timestamp("ms", tz="Europe/Paris"), pa.date32()],
    ids=["seconds", "ms-zoned", "dates"],
)
def test_a_column_of_many_chunks_is_read_as_one_cast_reads_it(kind: pa.DataType) -> None:
    """Timestamps and dates are cast a chunk at a time into one array: the same ns, nulls as NAT, in row order."""
    values = [datetime(2020, 1, 1 + i % 28, i % 24) if i % 7 else None for i in range(200)]
    if pa.types.is_date(kind):
        values = [v.date() if v is not None else None for v in values]
    whole = pa.array(values, pa.date32() if pa.types.is_date(kind) else pa.timestamp("s")).cast(kind)
    chunked = pa.chunked_array([whole.slice(lo, 37) for lo in range(0, len(whole), 37)] + [whole.slice(0, 0)])
    ns = pa.timestamp("ns", tz=getattr(kind, "tz", None))
    expected = np.asarray(whole.cast(ns).cast(pa.int64()).fill_null(NAT).to_numpy(zero_copy_only=False))
    got = parse_times(chunked, "t").ns
    assert got.dtype == np.int64 and np.array_equal(got, expected)
    assert int((got == NAT).sum()) == sum(v is None for v in values)
    assert parse_times(pa.chunked_array([], kind), "t").ns.tolist() == []


@pytest.mark.parametrize(
    ("values", "kind", "shown"),
    [
        (
            [1_700_000_000_000, 1_700_000_000_000_000],
            pa.timestamp("ms"),
            "1700000000000000 ms since 1970 (row 2, 1 such",
        ),
        ([0, -(2**62)], pa.timestamp("us"), f"{-(2**62)} us since 1970 (row 2, 1 such"),
        ([0, 200_000], pa.date32(), "200000 days since 1970 (row 2, 1 such"),
    ],
)
def test_a_time_nanoseconds_cannot_hold_is_refused_with_its_column_and_row(
    values: list[int], kind: pa.DataType, shown: str
) -> None:
    from auditor.core.errors import StageInputError

    raw = pa.int32() if pa.types.is_date(kind) else pa.int64()
    column = pa.chunked_array([pa.array(values[:1], raw).cast(kind), pa.array(values[1:], raw).cast(kind)])
    with pytest.raises(StageInputError, match=r"column 'ends': ") as raised:
        parse_times(column, "ends")
    assert shown in str(raised.value) and "is its unit right?" in str(raised.value)


@pytest.mark.parametrize(
    "values",
    [
        [20240301, None, 20240201],
        [20240301.0, float("nan"), 20240201.0, float("inf")],  # NaN and infinities are missing, as for epochs
        ["20240301", None, "20240201"],
        ["20240301.0", "", "20240201.0"],
    ],
)
def test_eight_digits_are_dates_whatever_their_type(values: list[object]) -> None:
    ns = parse_times(pa.chunked_array([pa.array(values)]), "day").ns
    assert [format_time(int(t))[:10] for t in ns if t != NAT] == ["2024-03-01", "2024-02-01"]


@pytest.mark.parametrize(
    "values",
    [
        [20240301.5, 20240201.5],  # fractions: epoch numbers
        [1714435200, 1717200000],  # epoch seconds of 2024
        [10_000_000, 99_999_999, 100_000_000],  # eight digits that are no dates (month 0, day 99) beside nine
    ],
)
def test_numbers_that_are_not_all_eight_digit_integers_stay_epoch_numbers(values: list[object]) -> None:
    assert parse_times(pa.chunked_array([pa.array(values)]), "t").epoch


@pytest.mark.parametrize(
    "values",
    [
        [20240401, 1714435200],  # a date beside epoch seconds: read as seconds it would be 1970
        ["20240401", "1714435200"],
        [20240301, 2024030],  # seven digits beside
        [-20240301, 20240201],
        [20240401.0, float("nan"), 1714435200.0],
    ],
)
def test_eight_digit_dates_beside_other_numbers_are_refused(values: list[object]) -> None:
    with pytest.raises(StageInputError, match="column 't' mixes eight-digit dates .*epoch_unit"):
        parse_times(pa.chunked_array([pa.array(values)]), "t")
    assert parse_times(pa.chunked_array([pa.array(values)]), "t", "s", basic_dates=False).epoch  # the unit set


def test_eight_digits_are_epoch_numbers_when_the_unit_was_set() -> None:
    column = pa.chunked_array([pa.array([10_000_000, 10_086_400])])
    assert parse_times(column, "t", "s", basic_dates=False).ns.tolist() == [10_000_000 * 10**9, 10_086_400 * 10**9]
