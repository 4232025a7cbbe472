"""Project names: one rule for the API, the pages and the CLI, so a name is refused before any work."""

from __future__ import annotations

import re

PROJECT_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
PROJECT_NAME_RULE = "letters, digits, '.', '_' and '-', at most 100, starting with a letter or digit"


def project_name_problem(name: str) -> str | None:
    """Why ``name`` cannot name a project (naming it and the rule), or None when it can."""
    if re.fullmatch(PROJECT_NAME.strip("^$"), name):  # fullmatch without `$`: `$` would let "p\n" pass
        return None
    return f"{name!r}: expected {PROJECT_NAME_RULE}"
