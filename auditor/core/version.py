"""The installed distribution's version, read once from its metadata."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("split-auditor")
except PackageNotFoundError:  # running from a source tree that is not installed
    __version__ = "0.0.0"
