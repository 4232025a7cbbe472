"""A report as it may leave the machine it ran on: local paths relative to its config's folder.

A report names the files it read by where they were (``/home/alice/proj/audit.yaml``, the manifest, the
artifacts, a code site, a ledger). Shared with a team (uploaded to `audit serve`), it would show everyone the
submitter's folders. Here a path under the config's folder becomes relative to it (``data/manifest.csv``) and
any other absolute path keeps only its name (``…/manifest.csv``). Applied twice it changes nothing more.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from auditor.core.findings import Report

ELIDED = "…"
# An absolute path where a path may start: at the start or after a space, bracket, quote, `=` or comma (not
# inside a URL, a fraction or a relative path); POSIX (two parts or more) or Windows (a drive letter).
_START = r"(?<![^\s(\[{'\"=,`])"
_SEGMENT = r"[^\s/\\:'\"()\[\]{},;<>`|*?]+"
_ABSOLUTE = re.compile(rf"{_START}(?:/(?:{_SEGMENT}/)+|[A-Za-z]:[\\/](?:{_SEGMENT}[\\/])*)(?P<name>{_SEGMENT})")


def _prefixes(folder: str) -> list[str]:
    """The spellings of the config's folder as it appears in a report's text, each ending in its separator."""
    if not folder or folder in (".", "/"):
        return []
    seps = "\\" if PureWindowsPath(folder).drive else "/"
    return [folder.rstrip("\\/") + seps]


def shown_path(text: str, folder: str) -> str:
    """``text`` with each path under ``folder`` made relative to it and every other absolute path reduced to
    ``…/name``; the folder itself becomes ``.``."""
    if not text:
        return text
    for prefix in _prefixes(folder):
        if text == prefix.rstrip("\\/"):
            return "."
        text = re.sub(_START + re.escape(prefix), "", text)
    return _ABSOLUTE.sub(lambda m: f"{ELIDED}/{m.group('name')}", text)


def config_folder(report: Report) -> str:
    """The folder of the report's config (its paths are relative to it), or "" without a config file."""
    path = report.config_path
    if not path:
        return ""
    pure = PureWindowsPath(path) if PureWindowsPath(path).drive else PurePosixPath(path)
    return str(pure.parent) if pure.is_absolute() else ""


def portable(report: Report) -> Report:
    """``report`` with no absolute local path in any of its texts (see the module's docstring)."""
    folder = config_folder(report)

    def walk(value: Any) -> Any:
        if isinstance(value, str):
            return shown_path(value, folder)
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    data = walk(report.model_dump(mode="json"))
    return Report.model_validate(data)
