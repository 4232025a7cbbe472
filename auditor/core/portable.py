"""A report as it may leave the machine it ran on: local paths relative to its config's folder.

A report names the files it read by where they were (``/home/alice/proj/audit.yaml``, the manifest, the
artifacts, a code site, a ledger). Shared with a team (uploaded to `audit serve`), it would show everyone the
submitter's folders. Here a path under the config's folder becomes relative to it (``data/manifest.csv``) and
any other absolute path keeps only its name (``…/manifest.csv``), except in what a finding's fingerprint is
computed from (its key, the evidence's subject fields): there only a code site is shortened, so no two
findings become one. Applied twice it changes nothing more.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from auditor.core.findings import SUBJECT_FIELDS, Report, code_site

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


def shown_path(text: str, folder: str, *, elide: bool = True) -> str:
    """``text`` with each path under ``folder`` made relative to it and (with ``elide``) every other absolute
    path reduced to ``…/name``; the folder itself becomes ``.``."""
    if not text:
        return text
    for prefix in _prefixes(folder):
        if text == prefix.rstrip("\\/"):
            return "."
        text = re.sub(_START + re.escape(prefix), "", text)
    return _ABSOLUTE.sub(lambda m: f"{ELIDED}/{m.group('name')}", text) if elide else text


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

    def walk(value: Any, elide: bool = True) -> Any:
        if isinstance(value, str):
            return shown_path(value, folder, elide=elide)
        if isinstance(value, list):
            return [walk(v, elide) for v in value]
        if not isinstance(value, dict):
            return value
        if isinstance(value.get("code"), str) and isinstance(value.get("evidence"), dict):
            return _finding(value, walk)
        return {walk(k, elide): walk(v, elide) for k, v in value.items()}

    data = walk(report.model_dump(mode="json"))
    return Report.model_validate(data)


def _finding(data: dict[str, Any], walk: Callable[..., Any]) -> dict[str, Any]:
    """A finding's texts made portable, but what its fingerprint is computed from kept one-to-one: ``…/name``
    would turn two values (two documents called ``a.pdf`` in different folders) into one fingerprint, and an
    acceptance of one would then cover the other. Only an absolute code site, which the fingerprint reads by
    file name and line anyway, is reduced to its name (not made relative, which would make it another key)."""
    out = {k: walk(v) for k, v in data.items() if k not in ("key", "evidence")}
    key = data.get("key")
    if isinstance(key, str) and code_site(key) is not None and _is_absolute(key):
        out["key"] = f"{ELIDED}/{code_site(key)}"
    else:
        out["key"] = walk(key, False)
    evidence = data["evidence"]
    out["evidence"] = {walk(k): walk(v, k not in SUBJECT_FIELDS) for k, v in evidence.items()}
    return out


def _is_absolute(path: str) -> bool:
    return PurePosixPath(path).is_absolute() or bool(PureWindowsPath(path).drive)
