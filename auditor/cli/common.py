"""What every command shares: exit codes, the two consoles, one-line errors, path and list arguments."""

from __future__ import annotations

import errno
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from auditor.core.errors import AuditError

if TYPE_CHECKING:
    from rich.console import Console

# Everything heavier than typer (rich, pydantic models, pandas, pyarrow, the stages, the renderers) is imported
# by the command that needs it: `audit --help` and `audit stages` must answer at once, and a quiet run that
# prints nothing never loads rich.

EXIT_CLEAN, EXIT_FINDINGS, EXIT_CANNOT_AUDIT = 0, 1, 2
UNWRAPPED_WIDTH = 1_000_000  # rich's width for output that is not a terminal: no line wrapped or cut (as the report's)
ROOT_HELP = "a further folder inputs may be read from (repeatable); by default only the config's folder"


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False, soft_wrap=True)


def stdout_console() -> Console:
    """The console for a command's tables: wrapped to a terminal's width, never wrapped or cut elsewhere (a log,
    a pipe, a file), so that every word and path arrives whole."""
    from rich.console import Console

    if sys.stdout.isatty():
        return Console(highlight=False, markup=False)
    return Console(width=UNWRAPPED_WIDTH, highlight=False, markup=False, soft_wrap=True)


def say(message: str, tag: str = "", style: str = "") -> None:
    """One message on stderr, its ``tag`` ("error: ") in ``style``; the message is printed as written (no markup)."""
    from rich.text import Text

    stderr_console().print(Text(tag, style=style) + Text(message))


def fail(message: str) -> typer.Exit:
    say(message, "error: ", "bold red")
    return typer.Exit(EXIT_CANNOT_AUDIT)


def warn(message: str) -> None:
    say(message, "warning: ", "bold yellow")


def split_list(values: list[str] | None, option: str = "option") -> list[str]:
    """Comma-separated option values as one list; a value that names nothing is refused, never ignored."""
    names: list[str] = []
    for value in values or []:
        parts = [v.strip() for v in value.split(",") if v.strip()]
        if not parts:
            raise AuditError(f"{option} {value!r}: expected one or more names, separated by commas")
        names += parts
    return names


def given_path(text: str | Path) -> Path:
    """A path option's value. An empty one ('--out ""', an unset variable) would be the working directory, where
    nobody asked for files: refused as a usage error (exit 2). A default given as a Path comes through as it is."""
    if isinstance(text, Path):
        return text
    if not text:
        raise typer.BadParameter("an empty path; expected a path (write '.' for the working directory)")
    if "\0" in text:
        raise typer.BadParameter(f"{text!r}: a path cannot contain a null byte")
    return Path(text)


def path_arg(path: Path, what: str, base: Path | None = None) -> Path:
    """``path`` (relative to ``base``) resolved; a NUL byte, a symlink loop or a name too long is a one-line
    error naming ``what``, not a crash."""
    if "\0" in str(path):
        raise AuditError(f"{what} {str(path)!r}: a path cannot contain a NUL byte")
    try:
        resolved = (base / path.expanduser() if base else path.expanduser()).resolve()
        os.stat(resolved)
    except RuntimeError:  # how Python before 3.13 reports a symlink loop while resolving
        raise AuditError(f"{what} {path}: a loop of symbolic links (a link that leads back to itself)") from None
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return resolved  # not there (yet): a report directory is created, a missing config is named later
        if exc.errno == errno.ELOOP:
            raise AuditError(f"{what} {path}: a loop of symbolic links (a link that leads back to itself)") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise AuditError(
                f"{what} {path}: a name in the path is longer than the file system allows (usually 255 bytes)"
            ) from None
        raise AuditError(f"{what} {path}: {exc.strerror or exc}") from None
    return resolved


def topmost_missing(path: Path) -> Path | None:
    missing = None
    for candidate in (path, *path.parents):
        if candidate.exists():
            break
        missing = candidate
    return missing


# --project and --token of the commands that talk to a server with --submit.
ProjectOption = Annotated[str | None, typer.Option("--project", help="with --submit: the server's project")]
TokenOption = Annotated[
    str | None, typer.Option("--token", help="with --submit: the server token (default: $SPLIT_AUDITOR_TOKEN)")
]
