"""Where a Parquet manifest holds text that is not UTF-8: found only once a stage has failed on it.

Parquet readers do not check that a string column is UTF-8; an Arrow kernel that needs it then fails with a
message that names neither the file nor the column. Checking every column at read time would cost every audit
a pass over its text, so the file, column, row and value are looked up after such a failure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path

_AT = re.compile(r"index (\d+)")


def is_not_utf8_error(exc: BaseException) -> bool:
    """Whether an exception is Arrow's complaint about text that is not UTF-8."""
    text = str(exc).lower()
    return type(exc).__name__ == "ArrowInvalid" and ("utf8" in text or "utf-8" in text)


def not_utf8(files: Sequence[Path], columns: Iterable[str]) -> str | None:
    """'file: column 'w' holds text that is not UTF-8 (row N of the file, b'...')...' for the first such value
    among ``columns`` of the Parquet ``files``; None when none is found (or a file cannot be read as Parquet)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    wanted = list(columns)
    for path in files:
        try:
            parquet = pq.ParquetFile(path)
        except (OSError, pa.ArrowException):
            continue
        schema = parquet.schema_arrow
        names = [n for n in wanted if n in schema.names and _is_text(schema.field(n).type)]
        offset = 0
        for batch in parquet.iter_batches(columns=names, batch_size=1 << 16):
            for name in names:
                column = batch.column(name)
                try:
                    column.validate(full=True)
                except pa.ArrowInvalid as exc:
                    found = _AT.search(str(exc))
                    at = int(found[1]) if found else 0
                    raw = column.view(pa.large_binary() if pa.types.is_large_string(column.type) else pa.binary())
                    value = raw[at].as_py()
                    shown = repr(value[:60] + b"..." if value is not None and len(value) > 60 else value)
                    return (
                        f"{path}: column '{name}' holds text that is not UTF-8 (row {offset + at + 1} of the file, "
                        f"{shown}); expected UTF-8 text: write the column as UTF-8, or as binary if it is not text"
                    )
            offset += batch.num_rows
    return None


def _is_text(kind: object) -> bool:
    import pyarrow as pa

    return isinstance(kind, pa.DataType) and (pa.types.is_string(kind) or pa.types.is_large_string(kind))
