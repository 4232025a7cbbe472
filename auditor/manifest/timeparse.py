"""Parse a time column (timestamps, dates, ISO strings or epoch numbers) into int64 nanoseconds, UTC.

Epoch numbers may come as numbers or as text (a CSV column is read as text): digits, optionally signed
or with a fraction, in the configured unit. A column of eight-digit values (20240501, as text, integers or
integral floats) holds ISO 8601 basic dates, not epoch seconds of 1970, unless the unit was set explicitly.
Times without a zone are read as UTC; a text column that mixes them with zoned times is parsed all the same,
and says how many rows that assumption touched.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.errors import StageInputError

NAT = np.iinfo(np.int64).min
EPOCH_SCALE = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
# An epoch in seconds after 1e11 is past year 5000: it is almost surely milliseconds or finer.
_SECONDS_LIMIT = 1e11
_NUMBER = r"^[+-]?(\d+\.?\d*|\.\d+)$"
_INTEGER = r"^[+-]?\d+$"
_BASIC_DATE = r"^\d{8}$"
_EIGHT_DIGITS = (10_000_000, 99_999_999)
EPOCH_NAMES = {"s": "seconds", "ms": "milliseconds", "us": "microseconds", "ns": "nanoseconds"}
# A time of day followed by Z or a UTC offset: 2024-05-01T13:45:00+02:00, 2024-05-01 13:45Z, ...T1345-0500.
_ZONED = r"(?i)[t ]\d{2}(:?\d{2}){0,2}([.,]\d+)?\s*(z|[+-]\d{2}(:?\d{2})?)$"


@dataclass(frozen=True)
class MixedZones:
    """A text column in which some times carry a zone and some do not (those were read as UTC)."""

    naive: int  # rows without a zone
    zoned: int  # rows with Z or an offset
    naive_example: tuple[int, str]  # (row, value) of the first time without a zone
    zoned_example: tuple[int, str]


@dataclass(frozen=True)
class Times:
    """One int64 per row, nanoseconds since the epoch in UTC (NAT where missing), and what was assumed."""

    ns: np.ndarray
    mixed_zones: MixedZones | None = None
    epoch: bool = False  # read from epoch numbers: a bare number (a gap) is in the same unit


def parse_times(column: pa.ChunkedArray, name: str, epoch_unit: str = "s", basic_dates: bool = True) -> Times:
    """Read a time column; raises StageInputError naming the column and an offending value when one
    cannot be read. ``basic_dates`` False (the unit was set explicitly): eight digits are epoch numbers too."""
    t = column.type
    if pa.types.is_dictionary(t):
        column, t = column.cast(t.value_type), t.value_type
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        return Times(_ns_of(column, pa.timestamp("ns", tz=t.tz if pa.types.is_timestamp(t) else None), name))
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        if basic_dates and eight_digits(column):
            return Times(_basic_dates(_integer_text(column), name, epoch_unit))
        if basic_dates:
            _refuse_dates_beside_epochs(column, name)
        return Times(_from_numbers(column, name, epoch_unit), epoch=True)
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _parse_text(column, name, epoch_unit, basic_dates)
    raise StageInputError(f"column '{name}' has type {t}; expected timestamps, dates, ISO 8601 text or epoch numbers")


def _ns_of(column: pa.ChunkedArray, ns: pa.DataType, name: str) -> np.ndarray:
    """Timestamps or dates as int64 ns (NAT for null), cast a chunk at a time into one array: a cast of the whole
    column and its conversion would hold two more copies of it (16 bytes a row) at once."""
    out = np.empty(len(column), dtype=np.int64)
    at = 0
    for chunk in column.chunks:
        try:
            out[at : at + len(chunk)] = _to_int(pa.chunked_array([chunk.cast(ns)]))
        except pa.ArrowInvalid:  # a time nanoseconds since 1970 cannot hold (before 1677 or after 2262)
            raise StageInputError(_out_of_range(chunk, name, at)) from None
        at += len(chunk)
    return out


def _out_of_range(chunk: pa.Array, name: str, at: int) -> str:
    """Which row of ``chunk`` (its first at row ``at``) holds a time outside 1677-09-21 .. 2262-04-11."""
    if pa.types.is_date(chunk.type):
        raw, unit, per_ns = chunk.cast(pa.date32()).cast(pa.int32()).cast(pa.int64()), "days", 86_400 * 10**9
    else:
        unit = chunk.type.unit
        raw, per_ns = chunk.cast(pa.int64()), {"s": 10**9, "ms": 10**6, "us": 10**3}.get(unit, 1)
    values = np.asarray(raw.fill_null(0).to_numpy(zero_copy_only=False), dtype=np.int64)
    limit = np.iinfo(np.int64).max // per_ns
    rows = np.flatnonzero((values > limit) | (values < -limit))
    where = (
        f"{values[rows[0]]} {unit} since 1970 (row {at + int(rows[0]) + 1}, {len(rows)} such row(s))"
        if len(rows)
        else "a value"
    )
    return (
        f"column '{name}': {where} is outside the times this audit can compare (1677-09-21 .. 2262-04-11); "
        "is its unit right?"
    )


def _to_int(column: pa.ChunkedArray) -> np.ndarray:
    values = column.cast(pa.int64()).fill_null(NAT)
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.int64)


def _from_numbers(column: pa.ChunkedArray, name: str, epoch_unit: str) -> np.ndarray:
    """Epoch numbers in ``epoch_unit`` to nanoseconds; integers stay exact (no trip through float)."""
    scale = EPOCH_SCALE[epoch_unit]
    valid = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    exact = pa.types.is_integer(column.type)
    if exact:
        try:
            numbers = np.asarray(column.cast(pa.int64()).fill_null(0).to_numpy(zero_copy_only=False))
        except pa.ArrowInvalid:  # uint64 beyond int64: no epoch in any unit
            raise StageInputError(f"column '{name}': a value is too large for an epoch time") from None
    else:
        numbers = np.asarray(column.cast(pa.float64()).fill_null(np.nan).to_numpy(zero_copy_only=False))
        valid &= np.isfinite(numbers)
    magnitude = np.abs(numbers[valid].astype(np.float64))
    if len(magnitude):
        biggest = int(np.argmax(magnitude))
        example = f"{numbers[valid][biggest]:.0f}"
        if epoch_unit == "s" and magnitude[biggest] > _SECONDS_LIMIT:
            raise StageInputError(
                f"column '{name}': {example} is too large for epoch seconds (past the year 5000); set "
                "stages.temporal_order.epoch_unit to ms, us or ns"
            )
        if magnitude[biggest] >= np.iinfo(np.int64).max / scale:
            raise StageInputError(f"column '{name}': {example} is too large for epoch {epoch_unit}")
    out = np.full(len(numbers), NAT, dtype=np.int64)
    out[valid] = numbers[valid] * scale if exact else (numbers[valid] * scale).astype(np.int64)
    return out


def eight_digits(column: pa.ChunkedArray) -> bool:
    """Whether a column of numbers has a value and every present one is an integer of eight digits (20240501):
    read as ISO 8601 basic dates, as the same values written as text are. Any other column: False."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        return False
    valid = _finite(column).drop_null()
    if not len(valid):
        return False
    low, high = pc.min_max(valid).values()
    if not (_EIGHT_DIGITS[0] <= low.as_py() and high.as_py() <= _EIGHT_DIGITS[1]):
        return False
    return pa.types.is_integer(column.type) or bool(pc.all(pc.equal(pc.floor(valid), valid)).as_py())


def _refuse_dates_beside_epochs(column: pa.ChunkedArray, name: str) -> None:
    """Refuse eight-digit dates (20240401) beside other numbers (epoch seconds, 1714435200) in one column: read as
    epoch numbers too, the dates would be 1970 and every one of them earlier than any other row (a time leak hidden);
    set the unit (stages.temporal_order.epoch_unit) when all are epoch numbers."""
    numbers = _whole_numbers(column)
    dated = dates_among(numbers)
    if dated.any() and not eight_digit_numbers(numbers).all():
        other = numbers[~eight_digit_numbers(numbers)][0]
        raise StageInputError(mixed_dates_message(name, f" ({int(numbers[dated][0])}", f" ({int(other)}"))


def mixed_dates_message(name: str, date: str = "", other: str = "") -> str:
    """The refusal of a column of eight-digit dates beside other numbers (examples given as ` (20240401`)."""
    return (
        f"column '{name}' mixes eight-digit dates{date}{', ' if date else ' ('}read as YYYYMMDD) with other numbers"
        f"{other}{', ' if other else ' ('}epoch numbers?); expected one format throughout: write the dates as epoch "
        "numbers or the epoch numbers as dates, or set stages.temporal_order.epoch_unit if every value is an epoch "
        "number"
    )


def _whole_numbers(column: pa.ChunkedArray) -> np.ndarray:
    """The column's present whole numbers as int64 (fractions and missing values left out)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    valid = _finite(column).drop_null()
    if pa.types.is_floating(valid.type):
        valid = valid.filter(pc.equal(pc.floor(valid), valid))
    return np.asarray(valid.cast(pa.int64(), safe=False).to_numpy(zero_copy_only=False), dtype=np.int64)


def eight_digit_numbers(numbers: np.ndarray) -> np.ndarray:
    return (numbers >= _EIGHT_DIGITS[0]) & (numbers <= _EIGHT_DIGITS[1])


def dates_among(numbers: np.ndarray) -> np.ndarray:
    """Which whole numbers are eight-digit dates (YYYYMMDD from 1900, a month and a day in range)."""
    month, day = numbers // 100 % 100, numbers % 100
    real = (month >= 1) & (month <= 12) & (day >= 1) & (day <= 31) & (numbers // 10_000 >= 1900)
    return eight_digit_numbers(numbers) & real


def some_dates(column: pa.ChunkedArray) -> bool:
    """Whether a column of numbers holds an eight-digit date (where its rows are, for a whole-column choice)."""
    return bool(dates_among(_whole_numbers(column)).any())


def _finite(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """A float column's NaN and infinities as nulls (missing, as `_from_numbers` reads them); others unchanged."""
    if not pa.types.is_floating(column.type):
        return column
    return pc.if_else(pc.is_finite(column), column, pa.scalar(None, column.type))


def _integer_text(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Integral numbers as their digits (20240501.0 as '20240501'), missing ones null."""
    return _finite(column).cast(pa.int64()).cast(pa.string())


def _parse_text(column: pa.ChunkedArray, name: str, epoch_unit: str, basic_dates: bool = True) -> Times:
    from auditor.manifest.placeholders import PLACEHOLDERS

    text = pc.utf8_trim_whitespace(column)
    # A blank or a stand-in for a missing value ('NaT', as pandas' astype(str) writes one; 'null', '-'): no time.
    missing = pc.or_(pc.equal(text, ""), pc.is_in(pc.utf8_lower(text), value_set=pa.array(sorted(PLACEHOLDERS))))
    text = pc.if_else(missing, pa.scalar(None, text.type), text)
    present = text.null_count < len(text)
    if basic_dates and present and _all(text, _BASIC_DATE):
        return Times(_basic_dates(text, name, epoch_unit))
    if present and _all(text, _NUMBER):
        if _all(text, _INTEGER):
            digits = pc.replace_substring_regex(text, r"^\+", "")
            try:
                numbers = digits.cast(pa.int64())
            except pa.ArrowInvalid:  # more digits than int64 holds
                numbers = digits.cast(pa.float64())
        else:
            numbers = text.cast(pa.float64())
        if basic_dates and eight_digits(numbers):  # 20240501.0: a pandas export of dates with one missing
            return Times(_basic_dates(_integer_text(numbers), name, epoch_unit))
        if basic_dates:
            _refuse_dates_beside_epochs(numbers, name)
        return Times(_from_numbers(numbers, name, epoch_unit), epoch=True)
    try:  # Arrow's ISO 8601 cast is fast and strict, and refuses any zone: success means no zone anywhere
        return Times(_to_int(text.cast(pa.timestamp("ns"))))
    except pa.ArrowInvalid:
        pass
    series = text.to_pandas()
    parsed = pd.to_datetime(series, format="ISO8601", utc=True, errors="coerce")
    bad = parsed.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise StageInputError(
            f"column '{name}': cannot read {series.iloc[row]!r} (row {row + 1}, {int(bad.sum())} such row(s)) as "
            "a time; expected one format throughout: ISO 8601 (2024-05-01 or 2024-05-01T13:45:00Z), epoch "
            "numbers (1714571100), or a timestamp column",
            row,
        )
    ns = np.asarray(parsed.to_numpy(dtype="datetime64[ns]", na_value=np.datetime64("NaT")).view(np.int64))
    return Times(ns, _mixed_zones(text, series))


def _all(text: pa.ChunkedArray, pattern: str) -> bool:
    """Whether every non-null value matches ``pattern``."""
    matched = pc.match_substring_regex(text, pattern)
    return int(pc.sum(matched).as_py() or 0) == len(text) - text.null_count


def _basic_dates(text: pa.ChunkedArray, name: str, epoch_unit: str) -> np.ndarray:
    """Eight digits throughout: ISO 8601 basic dates (YYYYMMDD), never epoch seconds of 1970."""
    series = text.to_pandas()
    parsed = pd.to_datetime(series, format="%Y%m%d", errors="coerce")
    bad = parsed.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise StageInputError(
            f"column '{name}': cannot read {series.iloc[row]!r} (row {row + 1}, {int(bad.sum())} such row(s)) as "
            "a date; every value has eight digits, which are read as YYYYMMDD; if they are epoch numbers, set "
            f"stages.temporal_order.epoch_unit (to {epoch_unit} for {EPOCH_NAMES[epoch_unit]})",
            row,
        )
    return np.asarray(parsed.to_numpy(dtype="datetime64[ns]", na_value=np.datetime64("NaT")).view(np.int64))


def _mixed_zones(text: pa.ChunkedArray, series: pd.Series) -> MixedZones | None:
    zoned = np.asarray(pc.match_substring_regex(text, _ZONED).fill_null(False).to_numpy(zero_copy_only=False))
    naive = series.notna().to_numpy() & ~zoned
    if not zoned.any() or not naive.any():
        return None
    first_naive, first_zoned = int(np.flatnonzero(naive)[0]), int(np.flatnonzero(zoned)[0])
    return MixedZones(
        int(naive.sum()),
        int(zoned.sum()),
        (first_naive, str(series.iloc[first_naive])),
        (first_zoned, str(series.iloc[first_zoned])),
    )


def format_time(ns: int) -> str:
    return str(pd.Timestamp(ns, unit="ns", tz="UTC").isoformat()) if ns != NAT else "<missing>"
