"""A script made of a case table's fixed head and one case's body, read as `audit code` reads it."""

from __future__ import annotations

import textwrap
from pathlib import Path

from auditor.code.analysis import FileResult, analyse_file


def read_script(tmp_path: Path, head: str, body: str) -> tuple[FileResult, int]:
    """The reading of ``head`` then ``body`` (dedented), and the lines of the head, to count body lines from."""
    script = tmp_path / "script.py"
    script.write_text(head + textwrap.dedent(body).lstrip("\n"))
    return analyse_file(script), head.count("\n")


def leaks_found(tmp_path: Path, head: str, body: str) -> list[tuple[str, int]]:
    """(kind, line of the body) of each leak found, sorted; the script is read whole (no cell or file skipped)."""
    result, offset = read_script(tmp_path, head, body)
    assert result.skipped == ()
    return sorted((p.leak.kind.value, p.place.line - offset) for p in result.leaks)


def leaks_graded(tmp_path: Path, head: str, body: str) -> list[tuple[str, int, bool]]:
    """(kind, line of the body, whether an error) of each leak found, sorted."""
    result, offset = read_script(tmp_path, head, body)
    return sorted((p.leak.kind.value, p.place.line - offset, p.leak.serious) for p in result.leaks)
