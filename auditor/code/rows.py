"""Fingerprints of the rows a traced call saw: one 64-bit hash per row of an array, a table, a sparse matrix or
a list of texts (numbers as float64, so a float32 copy of a row is the same row), with the table's column
names and, where the rows carry them, their times. Runs in the child that runs the user's code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

MAX_LIST_ROWS = 10_000_000  # a Python list longer than this is not fingerprinted (it is not a table of rows)


@dataclass
class Rows:
    """The rows of one value: a hash per row, the columns' names (a table) and the rows' times (if dated)."""

    hashes: np.ndarray  # uint64, one per row
    columns: list[str] | None = None
    times: np.ndarray | None = None  # datetime64, one per row

    @property
    def n(self) -> int:
        return int(self.hashes.shape[0])


def fingerprint(value: Any) -> Rows | None:
    """The rows of ``value`` if it is an array-like of rows, else None (a number, a model, a string)."""
    import pandas as pd

    try:
        if isinstance(value, pd.DataFrame):
            return Rows(_hash_frame(value), [str(c) for c in value.columns], _frame_times(value))
        if isinstance(value, pd.Series):
            times = value.index.to_numpy() if isinstance(value.index, pd.DatetimeIndex) else None
            return Rows(_hash_frame(value.to_frame()), None, times)
        if isinstance(value, np.ndarray):
            return _array_rows(value)
        if _is_sparse(value):
            return Rows(_hash_sparse(value))
        if hasattr(value, "detach") and hasattr(value, "numpy") and hasattr(value, "shape"):  # a torch tensor
            return _array_rows(np.asarray(value.detach().cpu().numpy()))
        if isinstance(value, list | tuple) and 1 < len(value) <= MAX_LIST_ROWS and _is_rows_list(value):
            return Rows(_hash_frame(pd.DataFrame({"v": pd.Series(list(value), dtype=object).map(_text)})))
        if hasattr(value, "shape") and hasattr(value, "__array__") and len(getattr(value, "shape", ())) >= 1:
            return _array_rows(np.asarray(value))  # a TensorFlow tensor, an xarray: whatever turns into an array
    except (TypeError, ValueError, MemoryError, AttributeError, RecursionError):
        return None
    return None


def _array_rows(array: np.ndarray) -> Rows | None:
    import pandas as pd

    if array.ndim == 0 or array.shape[0] == 0:
        return None
    flat = array.reshape(array.shape[0], -1)
    if flat.dtype.kind in "biuf":
        flat = flat.astype(np.float64, copy=False)
    frame = pd.DataFrame(flat) if flat.dtype != object else pd.DataFrame(flat).map(_text)
    return Rows(_hash_frame(frame))


def _hash_frame(frame: Any) -> np.ndarray:
    import pandas as pd

    numeric = frame.select_dtypes(include="number")
    if len(numeric.columns) == len(frame.columns) and len(frame.columns):
        frame = numeric.astype(np.float64)
    else:
        frame = frame.map(_text) if any(frame[c].dtype == object for c in frame.columns) else frame
    return pd.util.hash_pandas_object(frame, index=False).to_numpy(dtype=np.uint64)


def _frame_times(frame: Any) -> np.ndarray | None:
    import pandas as pd

    if isinstance(frame.index, pd.DatetimeIndex):
        return frame.index.to_numpy()
    for column in frame.columns:
        if pd.api.types.is_datetime64_any_dtype(frame[column]):
            return frame[column].to_numpy()
    return None


def _is_sparse(value: Any) -> bool:
    return type(value).__module__.startswith("scipy.sparse") and hasattr(value, "tocsr")


def _hash_sparse(value: Any) -> np.ndarray:
    """A hash per row of a sparse matrix: the sum of hashes of its (column, value) entries."""
    import pandas as pd

    csr = value.tocsr()
    entries = pd.util.hash_array(csr.indices.astype(np.int64) * 1_000_003 + csr.data.astype(np.float64).view(np.int64))
    sums = np.zeros(csr.shape[0], dtype=np.uint64)
    lengths = np.diff(csr.indptr)
    rows = np.repeat(np.arange(csr.shape[0]), lengths)
    np.add.at(sums, rows, entries)
    return sums


def _is_rows_list(value: list[Any] | tuple[Any, ...]) -> bool:
    """A list of texts or of equal-length rows (not a list of models, of arrays of another length, of pairs)."""
    first = value[0]
    if isinstance(first, str):
        return all(isinstance(v, str) for v in value[:100])
    if isinstance(first, list | tuple):
        return all(isinstance(v, list | tuple) and len(v) == len(first) for v in value[:100])
    return False


def _text(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def label_columns(x: Any, y: Any) -> list[str]:
    """The columns of ``x`` that are ``y`` again: equal to it, an affine or monotone function of a numeric y, or
    a relabelling of a y with few classes. Those are the label among the features."""
    import pandas as pd

    try:
        frame = x if isinstance(x, pd.DataFrame) else pd.DataFrame(np.asarray(x).reshape(len(x), -1))
        target = pd.Series(np.asarray(y).reshape(-1))
    except (TypeError, ValueError, MemoryError):
        return []
    if len(frame) != len(target) or len(target) < 3 or frame.shape[1] > 100_000:
        return []
    found = []
    numeric_target = pd.api.types.is_numeric_dtype(target) and target.nunique() > 2
    for position, name in enumerate(frame.columns):
        column = frame.iloc[:, position].reset_index(drop=True)
        if _is_the_label(column, target, numeric_target):
            found.append(str(name))
    return found


def _is_the_label(column: Any, target: Any, numeric_target: bool) -> bool:
    import pandas as pd

    if column.isna().all():
        return False
    if column.equals(target) or (column.astype(str).to_numpy() == target.astype(str).to_numpy()).all():
        return True
    if numeric_target and pd.api.types.is_numeric_dtype(column):
        with np.errstate(all="ignore"):
            if column.std() == 0 or target.std() == 0:
                return False
            return bool(abs(column.corr(target, method="spearman")) > 0.99999)
    if not numeric_target and target.nunique() <= max(2, len(target) // 2):
        pairs = pd.DataFrame({"c": column.astype(str), "t": target.astype(str)}).drop_duplicates()
        return len(pairs) == column.astype(str).nunique() == target.astype(str).nunique()
    return False
