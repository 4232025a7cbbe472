"""Renderers: each is a pure function from a frozen Report to a string; the CLI decides where it goes."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from auditor.core.findings import Report
from auditor.render.html import render_html
from auditor.render.json import render_json
from auditor.render.junit import render_junit
from auditor.render.markdown import render_markdown
from auditor.render.sarif import render_sarif

if TYPE_CHECKING:
    from auditor.render.terminal import render_terminal

Renderer = Callable[[Report], str]

# format name -> (renderer, file name inside the report directory)
FILE_RENDERERS: dict[str, tuple[Renderer, str]] = {
    "json": (render_json, "report.json"),
    "markdown": (render_markdown, "report.md"),
    "html": (render_html, "report.html"),
    "junit": (render_junit, "report.junit.xml"),
    "sarif": (render_sarif, "report.sarif"),
}


def render_files(report: Report, formats: Iterable[str], *, root: Path | None = None) -> dict[str, str]:
    """Each format's file name and text; SARIF uris relative to ``root`` (the working directory of the command
    that writes them, the repository's root in CI) when given, as code scanning reads them."""
    sarif: Renderer = partial(render_sarif, root=root)
    renderers = {**FILE_RENDERERS, "sarif": (sarif, "report.sarif")}
    return {renderers[f][1]: renderers[f][0](report) for f in dict.fromkeys(formats)}


def __getattr__(name: str) -> Any:
    """render_terminal on first use: it needs rich, which a run that writes only files never loads."""
    if name == "render_terminal":
        from auditor.render.terminal import render_terminal

        return render_terminal
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FILE_RENDERERS",
    "render_files",
    "render_html",
    "render_json",
    "render_junit",
    "render_markdown",
    "render_sarif",
    "render_terminal",
]
