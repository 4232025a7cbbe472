"""Reading a small text input (a config, an artifact) as UTF-8, with the line where decoding fails."""

from __future__ import annotations

from pathlib import Path

from auditor.core.paths import open_regular


class TextFileError(Exception):
    """Why a text file could not be read; ``line`` is set when its bytes are not UTF-8."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        super().__init__(reason)
        self.reason, self.line = reason, line


def read_utf8(path: Path, limit: int | None = None) -> tuple[bytes, str]:
    """The file's bytes and text (a UTF-8 byte-order mark dropped); TextFileError when unreadable, not UTF-8
    or (with ``limit``) longer than ``limit`` bytes, which are all that is read of it."""
    try:
        with open_regular(path) as fh:  # a FIFO or device is refused, never read (it would block)
            raw = fh.read() if limit is None else fh.read(limit + 1)
    except OSError as exc:
        raise TextFileError(f"cannot read: {exc.strerror}") from None
    if limit is not None and len(raw) > limit:
        size = f"{limit // 2**20} MiB" if limit % 2**20 == 0 else f"{limit:,} bytes"
        raise TextFileError(f"larger than {size}")
    try:
        return raw, raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TextFileError("not UTF-8 text", raw[: exc.start].count(b"\n") + 1) from None
