"""Side-by-side previews of near copies for the HTML report: two thumbnails, or two texts with the shared
passages marked. Built from a Finding alone; a report read back from a file is untrusted, so a thumbnail
must be a small base64 PNG data URI and marks must lie inside their text, or the preview is left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from markupsafe import Markup, escape

from auditor.core.findings import Finding

_PNG_URI = re.compile(r"data:image/png;base64,[A-Za-z0-9+/]+={0,2}")
MAX_URI = 64 * 1024  # bytes of one thumbnail's data URI
MAX_TEXT = 4000  # characters of one text shown


@dataclass(frozen=True)
class Preview:
    """One pair as the page shows it: the kind, a caption and the two sides as safe markup."""

    kind: str
    caption: str
    holdout_label: str
    near_label: str
    holdout: Markup
    near: Markup


def _image(uri: Any, alt: str) -> Markup | None:
    if not isinstance(uri, str) or len(uri) > MAX_URI or not _PNG_URI.fullmatch(uri):
        return None
    return Markup('<img src="{}" alt="{}">').format(uri, alt)


def _marked(side: Any) -> Markup | None:
    """The text with its marks as <mark> elements; None when the marks do not fit the text."""
    if not isinstance(side, dict) or not isinstance(side.get("text"), str):
        return None
    text = side["text"][:MAX_TEXT]
    marks = side.get("marks") or []
    out, at = [], 0
    for mark in marks:
        if not (isinstance(mark, list | tuple) and len(mark) == 2 and all(isinstance(v, int) for v in mark)):
            return None
        start, end = mark
        if start < at or end < start or end > len(text):
            return None
        out.append(escape(text[at:start]))
        out.append(Markup("<mark>{}</mark>").format(text[start:end]))
        at = end
    out.append(escape(text[at:]))
    prefix = "…" if side.get("start") else ""
    suffix = "…" if isinstance(side.get("length"), int) and side.get("start", 0) + len(text) < side["length"] else ""
    return Markup(prefix) + Markup("").join(out) + Markup(suffix)


def previews_for(finding: Finding) -> tuple[Preview, ...]:
    """The finding's examples that carry a preview, ready to show side by side."""
    shown = []
    for e in finding.examples:
        preview = e.get("preview")
        if not isinstance(preview, dict):
            continue
        left_label = f"{e.get('holdout_split', '')} {e.get('holdout', '')}".strip()
        right_label = f"{e.get('near_split', '')} {e.get('near', '')}".strip()
        caption = f"{e.get('measure', '')} {e.get('similarity', '')}".strip()
        if preview.get("kind") == "images":
            left, right = _image(preview.get("holdout"), left_label), _image(preview.get("near"), right_label)
        elif preview.get("kind") == "texts":
            left, right = _marked(preview.get("holdout")), _marked(preview.get("near"))
        else:
            continue
        if left is not None and right is not None:
            shown.append(Preview(str(preview["kind"]), caption, left_label, right_label, left, right))
    return tuple(shown)
