"""Parse a time column (timestamps, dates, ISO strings or epoch numbers) into int64 nanoseconds, UTC."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from auditor.core.errors import StageInputError

NAT = np.iinfo(np.int64).min
_EPOCH_SCALE = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}
# An epoch in seconds after 1e11 is past year 5000: it is almost surely milliseconds or finer.
_SECONDS_LIMIT = 1e11


def parse_times(column: pa.ChunkedArray, name: str, epoch_unit: str = "s") -> np.ndarray:
    """One int64 per row (nanoseconds since the epoch, UTC); missing values are NAT.

    Raises StageInputError naming the column and an offending value when a value cannot be read.
    """
    t = column.type
    if pa.types.is_dictionary(t):
        column, t = column.cast(t.value_type), t.value_type
    if pa.types.is_timestamp(t) or pa.types.is_date(t):
        as_ns = column.cast(pa.timestamp("ns", tz=t.tz if pa.types.is_timestamp(t) else None))
        return _to_int(as_ns)
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        values = column.to_numpy(zero_copy_only=False).astype(np.float64)
        finite = values[np.isfinite(values)]
        if epoch_unit == "s" and len(finite) and np.abs(finite).max() > _SECONDS_LIMIT:
            example = float(finite[np.argmax(np.abs(finite))])
            raise StageInputError(
                f"column '{name}': {example:.0f} is too large for epoch seconds (past the year 5000); set "
                "stages.temporal_order.epoch_unit to ms, us or ns"
            )
        out = np.full(len(values), NAT, dtype=np.int64)
        ok = np.isfinite(values)
        out[ok] = (values[ok] * _EPOCH_SCALE[epoch_unit]).astype(np.int64)
        return out
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return _parse_text(column, name)
    raise StageInputError(f"column '{name}' has type {t}; expected timestamps, dates, ISO 8601 text or epoch numbers")


def _to_int(column: pa.ChunkedArray) -> np.ndarray:
    values = column.cast(pa.int64()).fill_null(NAT)
    return np.asarray(values.to_numpy(zero_copy_only=False), dtype=np.int64)


def _parse_text(column: pa.ChunkedArray, name: str) -> np.ndarray:
    text = pc.utf8_trim_whitespace(column)
    text = pc.if_else(pc.equal(text, ""), pa.scalar(None, pa.string()), text)
    try:  # Arrow's ISO 8601 cast is fast and strict
        return _to_int(text.cast(pa.timestamp("ns")))
    except pa.ArrowInvalid:
        pass
    series = text.to_pandas()
    parsed = pd.to_datetime(series, format="ISO8601", utc=True, errors="coerce")
    bad = parsed.isna() & series.notna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise StageInputError(
            f"column '{name}': cannot read {series.iloc[row]!r} (row {row}, {int(bad.sum())} such row(s)) as a "
            "time; expected one format throughout: ISO 8601 (2024-05-01 or 2024-05-01T13:45:00Z), epoch "
            "seconds, or a timestamp column"
        )
    return np.asarray(parsed.to_numpy(dtype="datetime64[ns]", na_value=np.datetime64("NaT")).view(np.int64))


def format_time(ns: int) -> str:
    return str(pd.Timestamp(ns, unit="ns", tz="UTC").isoformat()) if ns != NAT else "<missing>"
