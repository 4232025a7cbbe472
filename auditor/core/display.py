"""The notebook display hook: the HTML view of a Report, installed by the package above the renderers.

Core sits below render, so it cannot import the renderer; ``auditor/__init__.py`` installs the view instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_html_view: Callable[[Any], str] | None = None


def install_html_view(view: Callable[[Any], str]) -> None:
    """Make ``view`` the function a notebook calls to show a Report as HTML."""
    global _html_view
    _html_view = view


def html_view() -> Callable[[Any], str] | None:
    """The installed HTML view, or None when no renderer has been installed."""
    return _html_view
